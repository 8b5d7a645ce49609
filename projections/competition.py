"""The read model of challenges and seeks, fed by the games projection (projections/games.py)
in the same batches and transactions as the games:

- a `Noticed` event a player must hear of (`challenge_received`, `seek_matched`) becomes a
  row of `rm_notices`, beside the games' notices, with the id `log position x 32`: the
  notice is an event of its own, so the id is unique and sorts with the games' notices by
  log position, and a client resumes both with one `Last-Event-ID`;
- a challenge's or seek's events rewrite its list rows (`rm_challenges`, `rm_seeks`:
  projections/views.py) with its summary, folded from its stream as logged up to the
  batch's last event of it;
- a seek pool's events need nothing: the seeks' own streams say all the lists show.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import msgspec

from projections.notices import PER_EVENT, Notice
from projections.views import Extra
from service import challenges, clocks, seeks
from service.challenge_log import CHALLENGE, POOL, SEEK, Noticed, Stream, stream_of
from service.store import Recorded

SHOWN = ("challenge_received", "seek_matched")  # the kinds a player is told of
_encode = msgspec.json.Encoder().encode


def is_competition(kind: str) -> bool:
    """Whether a stored event's type is a challenge's, seek's or seek pool's: the games
    projection hands those here by their prefix alone, with no query of the log."""
    return kind.startswith((CHALLENGE, SEEK))  # (POOL starts with SEEK)


class Batch:
    """One batch's challenge and seek events and notices, turned into rows at its end."""

    def __init__(self) -> None:
        # stream -> (prefix, position of its first event in the batch, events in log order)
        self.streams: dict[UUID, tuple[str, int, list[Recorded]]] = {}
        self.notices: list[Notice] = []

    def add(self, event: Recorded, position: int) -> None:
        if event.type.startswith(POOL):
            return
        prefix = CHALLENGE if event.type.startswith(CHALLENGE) else SEEK
        entry = self.streams.setdefault(event.originator_id, (prefix, position, []))
        entry[2].append(event)

    def notice(self, event: Noticed, position: int) -> None:
        """A Noticed event at `position`: a notice if it is one a player is told of (older
        logs hold kinds that only fed lists: those are skipped)."""
        if event.kind not in SHOWN:
            return
        game = str(event.data.get("game", "")) if event.kind == "seek_matched" else ""
        self.notices.append(
            Notice(
                id=position * PER_EVENT,
                player=event.player,
                kind=event.kind,
                game=game,
                data=dict(event.data),
            )
        )

    def rows(self, events_of: Callable[[UUID, int], list[Any]], extra: Extra) -> None:
        """The batch's rows into `extra`. A stream whose first event is in the batch needs
        no read of the log; another is read up to its last event here (`events_of`)."""
        extra.notices += self.notices
        for stream_id, (prefix, seq, batch) in self.streams.items():
            events = batch
            if batch[0].originator_version != 1:
                earlier = events_of(stream_id, batch[0].originator_version - 1)
                events = [e for e in earlier if isinstance(e, Recorded)] + batch
            stream = stream_of(events, prefix)
            if stream is None:  # not a stream this service writes: nothing to list
                continue
            if prefix == CHALLENGE:
                _challenge_rows(stream, seq, extra)
            else:
                _seek_row(stream, seq, extra)


def _challenge_rows(stream: Stream, seq: int, extra: Extra) -> None:
    row = challenges.summary(stream)
    body = _encode(row).decode()
    for player in (row["challenger"], *row["players"]):
        extra.challenges.append((row["id"], player, seq, row["status"], body))


def _seek_row(stream: Stream, seq: int, extra: Extra) -> None:
    row = seeks.summary(stream)
    fill_at = row["fill_at"]
    due = clocks.micros(fill_at) if fill_at and row["status"] == "open" else None
    pool = stream.first()["pool"]
    extra.seeks.append(
        (row["id"], row["player"], seq, row["status"], pool, due, _encode(row).decode())
    )
