"""For every registered game, what the API shows a seat or a spectator is exactly what the
game's own `view` and `redact` allow (the games' suites prove those hide their secrets):
the service never shows the raw state or a raw event of a running game."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID

import msgspec
import pytest

from service.lines import service_line
from tests.conftest import all_games
from tests.support.api import Api
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def _expected(api: Api, game_id: str, seat: int | None) -> tuple[Any, list[Any]]:
    reads = api.client.app.state.tabletop.game_reads  # type: ignore[attr-defined]
    fold = reads.get(UUID(game_id))
    view = msgspec.to_builtins(fold.game.view(fold.state, seat))
    events = []
    for e in reads.stored(fold.id):
        data = e.data
        # the readable line: the game's own, of the event as this seat may see it
        text = service_line(e.type, data, seat)
        if e.type not in ("game_created", "seat_taken", "randomness_fixed", "game_finished"):
            event = fold.decode(e.type, data)
            text = fold.game.describe(fold.game.redact(event, seat), seat)
            data = msgspec.to_builtins(fold.game.redact(event, seat))
        data = {**data, "type": e.type}  # the data names its type (the clients' discriminator)
        events.append(
            {
                "version": e.originator_version,
                "type": e.type,
                "seat": e.seat,
                "at": e.at,
                "data": data,
                "text": text,
            }
        )
    return view, events


@pytest.mark.parametrize("game", all_games())
def test_every_endpoint_shows_only_the_games_own_view(pg_api: Api, game: str) -> None:
    api = pg_api
    rng = random.Random(f"{base_seed()}/views/{game}")
    kinds = {t["name"]: t for t in api.client.get("/v1/game-types").json()}
    seats = kinds[game]["min_players"]
    players = [api.player(f"p{i}") for i in range(seats)]
    game_id = api.create(players[0], game, seats, seat=0)["id"]
    for seat in range(1, seats):
        joined = api.client.post(
            f"/v1/games/{game_id}/join", json={"seat": seat}, headers=Api.auth(players[seat])
        )
        assert joined.status_code == 200
    checks = 0

    def check(_: int = 0, __: Any = None) -> None:
        nonlocal checks
        if checks and rng.random() > 0.15:  # a sample, but never none (short games)
            return
        for seat in (*range(seats), None):
            player = players[seat] if seat is not None else None
            auth = Api.auth(player)
            view, events = _expected(api, game_id, seat)
            shown = api.client.get(f"/v1/games/{game_id}", headers=auth).json()
            if shown["status"] != "active":
                return
            assert shown["view"] == view, f"seat {seat}"
            assert (
                api.client.get(f"/v1/games/{game_id}/events", headers=auth).json()["events"]
                == events
            )
            replay = api.client.get(
                f"/v1/games/{game_id}/replay", params={"version": shown["version"]}, headers=auth
            ).json()
            assert replay["view"] == view and replay["state"] is None
            checks += 1

    check()
    final = api.play_out(game_id, dict(enumerate(players)), rng, check)
    assert final["status"] == "finished"
    assert checks > 0
