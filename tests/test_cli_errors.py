"""The command line refuses a bad option, bot name or player count before playing anything:
one line on stderr, exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["selfplay", "--game", "puerto-rico", "--options", '{"expansions": "new_buildings"}'],
            "invalid_options.unknown",
        ),
        (
            ["selfplay", "--game", "puerto-rico", "--options", '{"vp_pool_5p": 126}'],
            "invalid_options.vp_pool_5p",
        ),
        (
            ["selfplay", "--game", "puerto-rico", "--players", "3", "--options", "{"],
            "not JSON",
        ),
        (["selfplay", "--game", "caylus", "--options", '{"favours": 3}'], "invalid_options"),
        (["selfplay", "--game", "plus-ultra", "--players", "7"], "2-4 players, not 7"),
        (["selfplay", "--game", "santa-maria", "--bots", "random,genius"], "genius"),
        (["duel", "--game", "caylus", "--bot", "genius", "--games", "1"], "genius"),
        (["duel", "--game", "caylus", "--against", "genius", "--games", "1"], "genius"),
        (["duel", "--game", "santa-maria", "--players", "1", "--games", "1"], "not 1"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_code_2(args: list[str], says: str) -> None:
    done = _cli(*args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_good_options_still_play() -> None:
    done = _cli(
        "selfplay",
        "--game",
        "puerto-rico",
        "--players",
        "2",
        "--seed",
        "s",
        "--options",
        '{"expansion": "new-buildings", "library_2p_once_per_round": true}',
    )
    assert done.returncode == 0, done.stderr
    assert '"players": 2' in done.stdout
