"""The notices of challenges and seeks on the player stream, beside the games' notices.

The games' notices come from the read model (projections/notices.py, table rm_notices),
ids `log position x 32 + index`. A challenge's or seek's notice is a `Noticed` event of its
own in the log (service/challenge_log.py), read by its topic, and takes the id `position x
32` in the same space: ids of both kinds sort together by log position, and a client
resumes both with one `Last-Event-ID`. Both are read up to the position the read model has
reached, read first, so a game notice still on its way is never passed over by a later
challenge notice.
"""

from __future__ import annotations

from typing import Any, Protocol

from projections.notices import PER_EVENT, Notice, encode
from service.challenge_log import notices_between
from service.store import EventStoreApp

SHOWN = ("challenge_received", "seek_matched")  # the kinds a player is told of
LIMIT = 500  # the read model's page (GamesView.notices_for)


class Notices(Protocol):
    def notices_for(self, player_id: str, after: int, limit: int = 500) -> list[bytes]: ...

    def max_tracking_id(self, application_name: str) -> int | None: ...


def notices_with_competition(
    view: Notices, store: EventStoreApp, player_id: str, after: int
) -> list[bytes]:
    """The player's notices after id `after`, games' and competition's, in id order."""
    tracked = view.max_tracking_id(store.name) or 0
    rows = view.notices_for(player_id, after, LIMIT)
    cap = (tracked + 1) * PER_EVENT - 1
    if len(rows) == LIMIT:
        cap = min(cap, _id(rows[-1]))
    rows = [r for r in rows if _id(r) <= cap]
    mine = [
        encode(
            Notice(
                id=position * PER_EVENT,
                player=player_id,
                kind=n.kind,
                game=str(n.data.get("game", "")) if n.kind == "seek_matched" else "",
                data=dict(n.data),
            )
        )
        for position, n in notices_between(store, after // PER_EVENT, cap // PER_EVENT, player_id)
        if n.kind in SHOWN and position * PER_EVENT > after
    ]
    if not mine:
        return rows
    return sorted([*rows, *mine], key=_id)


def _id(row: bytes) -> int:
    import msgspec

    decoded: Any = msgspec.json.decode(row)
    return int(decoded["id"])
