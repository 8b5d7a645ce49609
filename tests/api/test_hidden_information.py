"""No endpoint gives a seat (or a spectator) another seat's hidden information: the deck
order, others' hands and draws, others' commitments before the reveal (Secret Duel)."""

from __future__ import annotations

import json
import random
from typing import Any
from uuid import UUID

from tests.support.api import Api
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

CARD_FIELDS = {"card", "cards", "hand", "hands", "deck", "my_commitment"}


def _cards_in(body: Any) -> set[int]:
    found: set[int] = set()

    def walk(node: Any, field: str | None) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, key)
        elif isinstance(node, list):
            for value in node:
                walk(value, field)
        elif isinstance(node, int) and not isinstance(node, bool) and field in CARD_FIELDS:
            found.add(node)

    walk(body, None)
    return found


def _secrets(api: Api, game_id: str, viewer: int | None) -> set[int]:
    """Ground truth from the server's own state: what `viewer` must not learn now."""
    reads = api.client.app.state.tabletop.game_reads  # type: ignore[attr-defined]
    fold = reads.get(UUID(game_id))
    if fold.status == "finished":
        return set()  # after the end everything is public
    state = fold.state
    hidden = set(state.deck)
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            hidden |= set(hand)
            if state.committed[seat] is not None:
                hidden.add(state.committed[seat])
    return hidden


def _everything_seen(api: Api, game_id: str, player: dict[str, str] | None) -> list[Any]:
    c, auth = api.client, Api.auth(player)
    game = c.get(f"/v1/games/{game_id}", headers=auth).json()
    seen = [game, c.get(f"/v1/games/{game_id}/events", headers=auth).json()]
    ndjson = c.get(
        f"/v1/games/{game_id}/events", headers={**auth, "Accept": "application/x-ndjson"}
    )
    seen += [json.loads(line) for line in ndjson.text.splitlines()]
    seen.append(
        c.get(
            f"/v1/games/{game_id}/replay", params={"version": game["version"]}, headers=auth
        ).json()
    )
    for path in ("export", "audit"):  # refused while running; the refusal tells nothing
        seen.append(c.get(f"/v1/games/{game_id}/{path}", headers=auth).text)
    if player is not None:
        seen.append(c.get(f"/v1/games/{game_id}/legal-moves", headers=auth).json())
    return seen


def test_no_endpoint_leaks_hidden_cards(api: Api) -> None:
    rng = random.Random(f"{base_seed()}/hidden-information")
    players = [api.player(f"p{i}") for i in range(3)]
    game_id = api.create(players[0], "secret-duel", 3, seat=0)["id"]
    for seat in (1, 2):
        r = api.client.post(
            f"/v1/games/{game_id}/join", json={"seat": seat}, headers=Api.auth(players[seat])
        )
        assert r.status_code == 200, r.text
    seated = dict(enumerate(players))
    checked = 0

    def check_all() -> None:
        nonlocal checked
        for viewer in (0, 1, None):
            player = seated[viewer] if viewer is not None else None
            leaked = _cards_in(_everything_seen(api, game_id, player)) & _secrets(
                api, game_id, viewer
            )
            assert not leaked, f"seat {viewer} saw hidden cards {leaked}"
            checked += 1

    def on_step(seat: int, answer: dict[str, Any]) -> None:
        leaked = _cards_in(answer) & _secrets(api, game_id, seat)
        assert not leaked, f"the move answer showed seat {seat} hidden cards {leaked}"
        check_all()

    check_all()
    final = api.play_out(game_id, seated, rng, on_step)
    assert final["status"] == "finished"
    assert checked > 20
    # once finished, everything is public: the deck order and all hands are in the view
    assert final["view"]["deck"] is not None and final["view"]["hands"] is not None
