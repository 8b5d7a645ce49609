"""Puerto Rico (Andreas Seyfarth, alea 2002) for 2 to 5 players: the base game, the official
two-player variant (applied with 2 seats) and The New Buildings expansion (an option).

Each player builds a colony: an island of 12 spaces for plantations and quarries and a city
of 12 spaces for buildings. Each round, starting with the governor, every player picks one
of the role cards left (settler, mayor, builder, craftsman, trader, captain, and with 2, 4
or 5 players the prospector); the role's action is then taken by every player in turn from
the chooser on, and only the chooser gets its privilege (a doubloon off, an extra good, ...).
Doubloons left on unpicked roles grow by one each round. Settlers take plantations, the
mayor hands out colonists to man them, the craftsman produces goods on manned plantations
and production buildings, the trader sells one good each to the trading house, the captain
ships goods for victory points (compulsory, and whatever does not fit on a ship spoils
beyond what a player may store), the builder buys buildings, whose powers bend these rules.
The game ends after the round in which the colonists run out, a city is full, or the victory
points run out; buildings' points, shipped points and the large buildings' bonuses make
the score, ties broken by doubloons plus goods. With the expansion, players first draft the
violet buildings the game uses. Hidden while the game runs: the plantation stack's order,
the identity of forests, a tile drawn by the hacienda until placed, and others' shipped
points.

Options refuse, never ignore, what cannot apply (the 5-player points pool with 4 seats, the
expansion's options without it); with `auto_forced` a decision with one legal move is played
at once.

`Rn` in messages and comments is ruling n of the Rulings on this game's page,
docs/games/puerto-rico.md."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import msgspec

from domain.contract import Bot, Evaluation, Result, RuleError, rank
from domain.puerto_rico import rules
from domain.puerto_rico.board import score_breakdown, tiebreak
from domain.puerto_rico.commands import Command
from domain.puerto_rico.data import (
    BARRELS,
    BASE_VIOLET,
    DRAFT_SLOTS,
    EXPANSIONS,
    FOREST_HOUSE_WITH_HACIENDA,
    LIBRARY_CRAFTSMAN_GOODS,
    PLANTATION_TILES,
    PRODUCTION_BUILDINGS,
    VP_POOL_5P,
    copies,
    setup_for,
)
from domain.puerto_rico.events import Event
from domain.puerto_rico.evolve import evolve as _evolve
from domain.puerto_rico.hidden import sample_hidden as _sample_hidden
from domain.puerto_rico.hidden import state_from_view as _state_from_view
from domain.puerto_rico.state import Options, Player, State
from domain.puerto_rico.view import GameView
from domain.puerto_rico.view import redact as _redact
from domain.puerto_rico.view import view as _view


def _invalid(what: str, message: str) -> RuleError:
    return RuleError(f"invalid_options.{what}", message)


def _check_applicable(options: Options, seats: int) -> None:
    """an option that cannot apply to these seats or without the expansion is refused,
    not ignored. Its default value always passes: it asks for the rules as printed."""
    printed = Options()
    if options.expansion == "none":  # the forest house and the library are expansion buildings
        if options.forest_house_with_hacienda != printed.forest_house_with_hacienda:
            raise _invalid("forest_house_with_hacienda", "needs expansion new-buildings (R5)")
        if options.library_craftsman_goods != printed.library_craftsman_goods:
            raise _invalid("library_craftsman_goods", "needs expansion new-buildings (R20)")
        if options.library_2p_once_per_round != printed.library_2p_once_per_round:
            raise _invalid("library_2p_once_per_round", "needs expansion new-buildings (R21)")
    if seats != 2 and options.library_2p_once_per_round != printed.library_2p_once_per_round:
        raise _invalid("library_2p_once_per_round", f"2 players only (R21), not {seats}")
    if seats != 5 and options.vp_pool_5p != printed.vp_pool_5p:
        raise _invalid("vp_pool_5p", f"5 players only, not {seats}")


class PuertoRico:
    name = "puerto-rico"
    title = "Puerto Rico"
    min_players = 2
    max_players = 5
    options_type = Options
    command_type = Command
    event_type = Event
    can_sample_hidden = True

    def __init__(self) -> None:
        from domain.puerto_rico.bots import BOTS, EVALUATION, rollout

        self.bots = BOTS
        self.rollout_bot: Bot | None = rollout  # the search's rollout policy (domain/bots.py)
        self.evaluation: Evaluation | None = EVALUATION  # its estimate of an unfinished game

    def validate_options(self, options: Options, seats: int) -> None:
        if not isinstance(seats, int) or not self.min_players <= seats <= self.max_players:
            raise _invalid("seats", f"Puerto Rico takes 2 to 5 players, not {seats}")
        if options.expansion not in EXPANSIONS:
            raise _invalid("expansion", "expansion is none or new-buildings")
        if options.vp_pool_5p not in VP_POOL_5P:
            raise _invalid("vp_pool_5p", "vp_pool_5p is 122 or 126")
        if options.forest_house_with_hacienda not in FOREST_HOUSE_WITH_HACIENDA:
            raise _invalid("forest_house_with_hacienda", "allowed or exclusive")
        if options.library_craftsman_goods not in LIBRARY_CRAFTSMAN_GOODS:
            raise _invalid("library_craftsman_goods", "any or different")
        if not isinstance(options.library_2p_once_per_round, bool):
            raise _invalid("library_2p_once_per_round", "a boolean")
        if not isinstance(options.auto_forced, bool):
            raise _invalid("auto_forced", "a boolean")
        _check_applicable(options, seats)

    def initial(self, options: Options, seats: int) -> State:
        n = seats
        cfg = setup_for(n, options.vp_pool_5p)
        col = 1 if n == 2 else 0
        stack = [k for k, c in PLANTATION_TILES.items() for _ in range(c[col])]
        expansion = options.expansion == "new-buildings"
        kinds = PRODUCTION_BUILDINGS if expansion else PRODUCTION_BUILDINGS + BASE_VIOLET
        left = {b: copies(b, n) for b in kinds}
        goods = [c[col] for c in BARRELS.values()]
        return State(
            n=n,
            options=options,
            players=[Player(doubloons=cfg.doubloons) for _ in range(n)],
            roles={r: 0 for r in cfg.roles},
            stack=stack,
            quarries=cfg.quarries,
            supply=goods[:],
            colonists=cfg.colonists,
            ship_colonists=cfg.ship_colonists,
            vp_supply=cfg.vp,
            ship_capacity=list(cfg.ships),
            ship_good=[-1] * len(cfg.ships),
            ship_load=[0] * len(cfg.ships),
            buildings_left=left,
            draft_slots=dict(DRAFT_SLOTS) if expansion else {},
            wharf_used=[False] * n,
            small_wharf_used=[False] * n,
            vp_pool=cfg.vp,
            goods_total=goods,
            colonists_total=cfg.colonists + cfg.ship_colonists,
            plantations_total=len(stack),
            quarries_total=cfg.quarries,
            doubloons_start=cfg.doubloons * n,
            copies_total=dict(left),
        )

    def setup(self, options: Options, seats: int, rng: random.Random) -> list[Any]:
        return rules.setup_events(self.initial(options, seats), rng)

    def decide(self, state: State, seat: int, command: Any, rng: random.Random) -> list[Any]:
        return rules.decide(state, seat, command, rng)

    def decide_evolve(
        self, state: State, seat: int, command: Any, rng: random.Random
    ) -> tuple[list[Any], State]:
        return rules.decide_evolve(state, seat, command, rng)

    def evolve(self, state: State, event: Any) -> State:
        return _evolve(state, event)

    def clone(self, state: State) -> State:
        return state.copy()

    def legal_commands(self, state: State, seat: int) -> Sequence[Any]:
        return rules.legal_commands(state, seat)

    def awaiting(self, state: State) -> list[int]:
        return rules.awaiting(state)

    def sample_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        return _sample_hidden(state, seat, rng)

    def state_from_view(self, view: GameView, seat: int, rng: random.Random) -> State:
        table = self.initial(view.options, view.seats)  # the box's totals
        return _state_from_view(view, seat, rng, table)

    def view(self, state: State, seat: int | None) -> GameView:
        return _view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return _redact(event, seat)

    def result(self, state: State) -> Result | None:
        if not state.over:
            return None
        details = [score_breakdown(p) for p in state.players]
        scores = [d["total"] for d in details]
        ties = [tiebreak(p) for p in state.players]
        return Result(
            scores=scores,
            ranks=rank([(sc, t) for sc, t in zip(scores, ties, strict=False)]),
            tiebreak=ties,
            details={"breakdown": details},
        )

    # The web viewer (describe.py: a line per event; render.py: the board from a view).
    def describe(self, event: Any, seat: int | None) -> str:
        from domain.puerto_rico.describe import describe

        return describe(event, seat)

    def render(self, view: Any) -> str:
        from domain.puerto_rico.render import render

        return render(view)


GAME = PuertoRico()

__all__ = ["GAME", "Options", "State", "msgspec"]
