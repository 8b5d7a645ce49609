"""Every ruling the code cites is in the repository: each `Rn` in the code of a game (its
package under domain/ and its tests) is a ruling of that game's rulings.py, which the game's
page lists; elsewhere (api/, service/, ...) a citation names its game on the same line."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

from domain.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
# A citation: R and a number standing alone. Santa Maria's retire spaces (RS1..RS5), scholars
# (SC01) and the like never match: a letter follows the R, or one comes before it.
CITATION = re.compile(r"\bR[0-9]+\b")
# Folders whose code may cite the rulings of any game, naming it.
SHARED = ("domain", "api", "service", "projections", "tabletop", "tests")


def _rulings() -> dict[str, dict[str, str]]:
    """Package folder (`puerto_rico`) -> its RULINGS, for each hosted game under domain/."""
    found: dict[str, dict[str, str]] = {}
    for game in GAMES.values():
        package = inspect.getmodule(type(game))
        assert package is not None
        if not package.__name__.startswith("domain."):
            continue  # the tests-only game
        folder = package.__name__.split(".")[1]
        try:
            found[folder] = importlib.import_module(f"{package.__name__}.rulings").RULINGS
        except ModuleNotFoundError:
            found[folder] = {}  # a game with no rulings may cite none
    return found


RULINGS = _rulings()
# Every way a line may name a game: its package folder, its name and its title.
NAMES = {
    folder: {folder, game.name, game.title}
    for game in GAMES.values()
    if (folder := game.name.replace("-", "_")) in RULINGS
}


def _citations() -> list[tuple[str, str, str, set[str]]]:
    """(file:line, the line, the cited id, the games it may be of) for every citation."""
    found = []
    for top in SHARED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == Path(__file__) or path.name == "rulings.py":  # defines, cites none
                continue
            parts = path.relative_to(ROOT).parts
            own = {parts[1]} & set(RULINGS) if len(parts) > 2 else set()
            for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
                for cited in CITATION.findall(line):
                    games = own or {f for f, names in NAMES.items() if _names(line, names)}
                    where = f"{path.relative_to(ROOT)}:{number}"
                    found.append((where, line.strip(), cited, games))
    return found


def _names(line: str, names: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(name)}\b", line) for name in names)


def test_every_cited_ruling_is_a_ruling_of_its_game() -> None:
    citations = _citations()
    wrong = [
        f"{where}: {cited} is not a ruling of {' or '.join(sorted(games)) or 'a game it names'}:"
        f" {line}"
        for where, line, cited, games in citations
        if not any(cited in RULINGS[game] for game in games)
    ]
    assert not wrong, "\n".join(wrong)
    assert len(citations) > 100  # the scan sees the code's citations


def test_every_game_has_its_rulings_numbered_and_written() -> None:
    assert set(RULINGS) == {"caylus", "plus_ultra", "puerto_rico", "santa_maria"}
    for folder, rulings in RULINGS.items():
        assert list(rulings) == [f"R{n}" for n in range(1, len(rulings) + 1)], folder
        empty = [key for key, text in rulings.items() if not text.strip()]
        assert not empty, f"domain/{folder}/rulings.py: empty rulings {empty}"
        for key, text in rulings.items():  # one ruling may point to another
            assert set(CITATION.findall(text)) <= set(rulings), f"{folder} {key}: {text}"


def test_the_citation_pattern_sees_citations_only() -> None:
    seen = ["(R24)", "R12:", "# R5, R6", "needs expansion new-buildings (R5)", "R1-R3"]
    unseen = ["RS3", "RS1-RS3", "SC08", "TR01", "BI05", "R2D2", "rR1", "R_1"]
    assert all(CITATION.search(text) for text in seen)
    assert not any(CITATION.search(text) for text in unseen)


def test_a_shared_file_names_the_game_it_cites() -> None:
    line = '("santa-maria", sm.Decline): "R37",'
    assert {f for f, names in NAMES.items() if _names(line, names)} == {"santa_maria"}
    assert not {f for f, names in NAMES.items() if _names("a ruling (R5)", names)}
