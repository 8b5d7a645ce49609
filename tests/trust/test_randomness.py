"""Player-contributed randomness: each seat's client seed, fixed when the last seat is
taken, mixed with the server's committed seed (HMAC-SHA256); `verify` recomputes it all."""

from __future__ import annotations

import json
import random
from typing import Any
from uuid import UUID

import msgspec
import pytest
from litestar.testing import TestClient

from api.main import build
from domain.randomness import commitment, rng_for
from domain.registry import get as get_game
from service.audit import verify
from service.records import seed_stream
from service.settings import Settings
from tests.support.api import Api
from tests.trust.rewrite import rewrite_game, rewrite_json


def _seated_game(api: Api, seeds: tuple[str, str]) -> tuple[str, dict[int, Any]]:
    """A secret duel of ada (seat 0), bob (seat 1) and a bot, each human with its seed."""
    ada, bob = api.player("ada"), api.player("bob")
    game = api.create(ada, "secret-duel", 3, {2: "random"}, seat=0, client_seed=seeds[0])
    joined = api.client.post(
        f"/v1/games/{game['id']}/join", json={"client_seed": seeds[1]}, headers=api.auth(bob)
    )
    assert joined.status_code == 200, joined.text
    return game["id"], {0: ada, 1: bob}


def _export(api: Api, game_id: str) -> list[dict[str, Any]]:
    answer = api.client.get(f"/v1/games/{game_id}/export")
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines()]


def _setup(lines: list[dict[str, Any]], client_seeds: list[str]) -> list[Any]:
    """The setup events the rules make from the export's revealed seed and these seeds."""
    from service.chain import rules_seed

    header, fixed = lines[0], next(x for x in lines if x.get("type") == "randomness_fixed")
    game = get_game(header["game"])
    assert game is not None
    seed = rules_seed(bytes.fromhex(lines[-1]["seed"]), header["id"], client_seeds)
    options = msgspec.convert(header["options"], game.options_type)
    events = game.setup(options, header["seats"], rng_for(seed, fixed["version"]))
    return [msgspec.to_builtins(e) for e in events]


def test_chosen_client_seeds_are_public_fixed_and_reproduce_the_game(api: Api) -> None:
    game_id, seated = _seated_game(api, ("adas-luck!", "b0b"))
    shown = api.game(game_id)
    bot_seed = shown["seats"][2]["client_seed"]
    assert [s["client_seed"] for s in shown["seats"]] == ["adas-luck!", "b0b", bot_seed]
    assert len(bot_seed) == 16  # the server gives the bot's seat one
    api.play_out(game_id, seated, random.Random(5))
    lines = _export(api, game_id)
    assert lines[0]["format"] == "tabletop-game/2"
    types = [x.get("type") for x in lines]
    fixed = types.index("randomness_fixed")
    assert types[fixed - 1] == "seat_taken" and types[fixed + 1] == "deck_shuffled"
    assert lines[fixed]["data"] == {"client_seeds": ["adas-luck!", "b0b", bot_seed]}
    report = verify(lines)
    assert report.verified, report
    assert report.client_seeds == ["adas-luck!", "b0b", bot_seed]
    # the same seeds give the recorded outcome again; another seed of bob's another one
    recorded = [{"type": x["type"], **x["data"]} for x in lines[fixed + 1 : fixed + 5]]
    assert _setup(lines, ["adas-luck!", "b0b", bot_seed]) == recorded
    assert _setup(lines, ["adas-luck!", "b0c", bot_seed]) != recorded
    assert api.client.get(f"/v1/games/{game_id}/audit").json()["client_seeds"] == [
        "adas-luck!",
        "b0b",
        bot_seed,
    ]


def test_a_client_seed_changes_the_outcome(api: Api) -> None:
    """Two games alike but for one client seed, their server seeds made equal: the deals
    differ; the seeds of either deal reproduce it."""
    game_id, seated = _seated_game(api, ("same", "mine"))
    api.play_out(game_id, seated, random.Random(5))
    lines = _export(api, game_id)
    seeds = lines[[x.get("type") for x in lines].index("randomness_fixed")]["data"]
    decks = {
        tuple(
            _setup(lines, [*seeds["client_seeds"][:1], mine, seeds["client_seeds"][2]])[0]["deck"]
        )
        for mine in ("mine", "yours", "theirs", "ours")
    }
    assert len(decks) == 4


def test_a_client_seed_rewritten_afterwards_is_detected(api: Api, any_settings: Settings) -> None:
    game_id, seated = _seated_game(api, ("alpha", "beta"))
    api.play_out(game_id, seated, random.Random(2))

    def bob_claims_gamma(version: int, event: dict[str, Any]) -> None:
        if event["type"] == "seat_taken" and event["data"].get("client_seed") == "beta":
            event["data"] = {**event["data"], "client_seed": "gamma"}

    rewrite_game(any_settings, UUID(game_id), bob_claims_gamma)
    report = verify(_export(api, game_id))
    assert not report.verified and report.chain_intact
    assert report.detail == "randomness_fixed names other client seeds than the seats gave"

    def and_the_fixing_too(version: int, event: dict[str, Any]) -> None:
        if event["type"] == "randomness_fixed":
            event["data"] = {"client_seeds": ["alpha", "gamma", *event["data"]["client_seeds"][2:]]}

    rewrite_game(any_settings, UUID(game_id), and_the_fixing_too)
    lines = _export(api, game_id)
    report = verify(lines)
    shuffled = next(x["version"] for x in lines if x.get("type") == "deck_shuffled")
    assert not report.verified and report.chain_intact and report.seed_matches_commitment
    assert report.first_divergent_version == shuffled  # those seeds deal other cards


def test_a_server_seed_chosen_after_the_commitment_is_detected(any_settings: Settings) -> None:
    """The operator sees both client seeds, then swaps the kept server seed for one it
    likes better before play goes on: the seed the game reveals is not the committed one."""
    with TestClient(build(any_settings)) as c:
        api = Api(c)
        game_id, seated = _seated_game(api, ("alpha", "beta"))
        committed = api.game(game_id)["seed_commitment"]
    chosen = bytes(range(32))
    assert commitment(chosen) != committed
    rewrite_json(any_settings, seed_stream(UUID(game_id)), 1, {"seed": chosen.hex()})
    with TestClient(build(any_settings)) as c:  # a restart: the service reads the new seed
        api = Api(c)
        api.play_out(game_id, seated, random.Random(3))
        lines = _export(api, game_id)
        audit = c.get(f"/v1/games/{game_id}/audit").json()
    assert lines[-1]["seed"] == chosen.hex()
    report = verify(lines)
    assert report.chain_intact and not report.seed_matches_commitment and not report.verified
    assert audit["verified"] is False and audit["seed_matches_commitment"] is False


@pytest.mark.parametrize("seed", ["", "with space", "x" * 65, "é"])
def test_a_bad_client_seed_is_refused(api: Api, seed: str) -> None:
    ada = api.player("ada")
    body = {"game": "secret-duel", "seats": 2, "seat": 0, "client_seed": seed}
    answer = api.client.post("/v1/games", json=body, headers=api.auth(ada))
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")


def test_a_game_from_before_client_seeds_still_plays_and_verifies(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games created before `/2` (no `randomness` in game_created) keep the server's seed
    alone, export `/1`, verify, and refuse a client seed."""
    import service.decisions as decisions  # where a new game's events are recorded

    made = decisions.recorded

    def as_before(*args: Any, **kwargs: Any) -> Any:
        if args[3] == "game_created":
            args = (*args[:7], {k: v for k, v in args[7].items() if k != "randomness"}, *args[8:])
        return made(*args, **kwargs)

    monkeypatch.setattr(decisions, "recorded", as_before)
    ada, bob = api.player("ada"), api.player("bob")
    game = api.create(ada, "secret-duel", 3, {2: "random"}, seat=0)
    monkeypatch.undo()
    refused = api.client.post(
        f"/v1/games/{game['id']}/join", json={"client_seed": "late"}, headers=api.auth(bob)
    )
    assert refused.status_code == 422 and refused.json()["code"] == "client_seed_unsupported"
    joined = api.client.post(f"/v1/games/{game['id']}/join", headers=api.auth(bob))
    assert joined.status_code == 200, joined.text
    api.play_out(game["id"], {0: ada, 1: bob}, random.Random(4))
    lines = _export(api, game["id"])
    assert lines[0]["format"] == "tabletop-game/1"
    assert "randomness_fixed" not in [x.get("type") for x in lines]
    report = verify(lines)
    assert report.verified and report.client_seeds is None, report
