"""The service's Ed25519 keys: made once and kept in the store, served at /v1/keys,
rotated; an export's footer signs its header and final hash, and any changed byte fails."""

from __future__ import annotations

import json
from typing import Any

from litestar.testing import TestClient

from api.main import build
from service.seal import check_export
from service.settings import Settings
from service.signing import Signer, parse_keys, signature_valid
from service.store import open_store
from tests.support.api import Api


def _bots_game(api: Api) -> str:
    """A game of bots, once they have played it out (the server's bot runner)."""
    ada = api.player("ada")
    game = api.create(ada, "secret-duel", 2, {0: "random", 1: "random"})
    assert api.settled(game["id"])["status"] == "finished"
    return str(game["id"])


def _export(api: Api, game_id: str) -> list[dict[str, Any]]:
    return [
        json.loads(x) for x in api.client.get(f"/v1/games/{game_id}/export").text.split("\n") if x
    ]


def test_an_export_is_signed_and_one_changed_byte_fails(api: Api) -> None:
    keys = parse_keys(api.client.get("/v1/keys").text)
    lines = _export(api, _bots_game(api))
    seal = check_export(lines, "game", keys, None)
    assert seal.ok and seal.signature == "valid" and seal.key_id in keys
    signature = lines[-1]["signature"]["signature"]
    for where in range(0, len(signature), 16):  # a hex digit of the signature itself
        changed = json.loads(json.dumps(lines))
        digit = "0" if signature[where] != "0" else "1"
        changed[-1]["signature"]["signature"] = signature[:where] + digit + signature[where + 1 :]
        assert check_export(changed, "game", keys, None).signature == "invalid"
    for field in ("seed_commitment", "id", "game"):  # one character of the header
        changed = json.loads(json.dumps(lines))
        text = changed[0][field]
        changed[0][field] = text[:-1] + ("x" if text[-1] != "x" else "y")
        assert check_export(changed, "game", keys, None).signature == "invalid"
    changed = json.loads(json.dumps(lines))
    changed[-2]["hash"] = changed[-2]["hash"][:-1] + (
        "0" if changed[-2]["hash"][-1] != "0" else "1"
    )
    assert check_export(changed, "game", keys, None).signature == "invalid"


def test_every_byte_of_a_signed_statement_counts(any_settings: Settings) -> None:
    store = open_store(any_settings)
    try:
        signer = Signer(store)
        message = b'{"final_hash":"00ff","header":{"format":"tabletop-game/2"}}'
        signed = signer.sign(lambda key_id: message)
        public = {k.key_id: k.public_key for k in signer.published()}[signed["key_id"]]
        assert signature_valid(public, message, signed["signature"])
        for i in range(len(message)):
            changed = message[:i] + bytes([message[i] ^ 1]) + message[i + 1 :]
            assert not signature_valid(public, changed, signed["signature"])
    finally:
        store.close()


def test_the_key_is_kept_in_the_store_and_rotates(any_settings: Settings) -> None:
    with TestClient(build(any_settings)) as c:
        api = Api(c)
        first = c.get("/v1/keys").json()["keys"]
        old_export = _export(api, _bots_game(api))
    assert len(first) == 1 and first[0]["current"] and first[0]["algorithm"] == "ed25519"
    with TestClient(build(any_settings)) as c:  # a restart signs with the same key
        assert c.get("/v1/keys").json()["keys"] == first
    store = open_store(any_settings)
    try:
        rotated = Signer(store).rotate()
    finally:
        store.close()
    with TestClient(build(any_settings)) as c:
        api = Api(c)
        listed = c.get("/v1/keys").json()["keys"]
        assert [k["key_id"] for k in listed] == [first[0]["key_id"], rotated.key_id]
        assert [k["current"] for k in listed] == [False, True]
        keys = parse_keys(c.get("/v1/keys").text)
        new_export = _export(api, _bots_game(api))
        head = c.get("/v1/transparency/head").json()
    assert new_export[-1]["signature"]["key_id"] == rotated.key_id == head["key_id"]
    assert check_export(new_export, "game", keys, None).ok
    assert check_export(old_export, "game", keys, None).ok  # the old key still verifies
    only_new = {rotated.key_id: keys[rotated.key_id]}
    seal = check_export(old_export, "game", only_new, None)
    assert not seal.ok and seal.signature == "unchecked"
    assert any("not among the keys given" in d for d in seal.detail)


def test_a_rematch_offered_after_the_end_keeps_the_proof(api: Api) -> None:
    """Events chained after the end (a rematch's offer) are signed; the log vouches for
    the game up to its end."""
    import random

    keys = parse_keys(api.client.get("/v1/keys").text)
    ada = api.player("ada")
    game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0, client_seed="a")
    api.play_out(game["id"], {0: ada}, random.Random(1))
    offered = api.client.post(f"/v1/games/{game['id']}/rematch", headers=api.auth(ada))
    assert offered.status_code == 200, offered.text
    lines = _export(api, game["id"])
    assert lines[-2]["type"] == "rematch_offered"
    seal = check_export(lines, "game", keys, None)
    assert seal.ok and seal.inclusion == "valid", seal
    ending = next(x for x in lines if x.get("type") == "game_finished")
    assert lines[-1]["transparency"]["leaf"]["final_hash"] == ending["hash"]
