"""decide, legal commands and the automatic turn sequence.

`decide` checks a command against the exact list of legal commands (so the two can never
disagree), applies it to a working copy and then runs `advance`, which emits every automatic
step up to the next real decision (the engine asks only seats that have a real choice)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from domain.contract import RuleError, illegal, not_your_turn, rank
from domain.plus_ultra import commands as C
from domain.plus_ultra import data as D
from domain.plus_ultra import events as E
from domain.plus_ultra.commands import NO_PARAMS, Params
from domain.plus_ultra.evolve import evolve
from domain.plus_ultra.state import Options, Player, State, working_copy

# --- options, initial state and set-up ---------------------------------------------------


def validate_options(options: Options, seats: int) -> None:
    if not isinstance(seats, int) or not D.MIN_PLAYERS <= seats <= D.MAX_PLAYERS:
        raise RuleError("invalid_options.seats", f"Plus Ultra plays 2 to 4 players, not {seats}")
    if options.common_actions_per_turn not in D.COMMON_ACTIONS_PER_TURN:
        raise RuleError(
            "invalid_options.common_actions_per_turn", "common_actions_per_turn must be 1 or 2"
        )
    if options.initial_order not in D.INITIAL_ORDERS:
        raise RuleError("invalid_options.initial_order", "initial_order must be random or seats")


def initial(options: Options, seats: int) -> State:
    players = [
        Player(
            ducats=D.START_DUCATS,
            active=D.START_TERCIOS_ACTIVE,
            tercio_box=D.TERCIOS_PER_PLAYER - D.START_TERCIOS_ACTIVE,
            stock=D.START_HOUSES,
            house_box=D.HOUSES_PER_PLAYER - D.START_HOUSES,
            rose_up=1,
        )
        for _ in range(seats)
    ]
    market = [t for t, _ in D.STARTING_GOODS[: D.MARKET_SPACES]]
    surplus = [t for t, _ in D.STARTING_GOODS[D.MARKET_SPACES :]]
    return State(
        n=seats,
        options=options,
        peer=list(range(seats)),
        acting=list(range(seats)),
        players=players,
        crown=D.START_CROWN,
        exploration=[None] * D.EXPLORATION_SPACES,
        face_up=[False] * D.EXPLORATION_SPACES,
        blue_reserve=[t for t, _ in D.BLUE_COLONIES],
        market=market,
        surplus=surplus,
        church=[None] * D.CHURCH_SPACES,
        bull_supply=D.BULLS_BY_PLAYERS[seats],
        bull_total=D.BULLS_BY_PLAYERS[seats],
        rose_supply=D.ROSE_WINDOWS - seats,
        magellan_supply=D.MAGELLAN_BY_PLAYERS[seats],
        magellan_total=D.MAGELLAN_BY_PLAYERS[seats],
    )


class _Emitter:
    """Collects events while applying each one to the working state (decide never touches the
    state it was given: it works on a copy)."""

    def __init__(self, st: State) -> None:
        self.st = st
        self.events: list[Any] = []

    def __call__(self, ev: Any) -> None:
        evolve(self.st, ev)
        self.events.append(ev)


def setup(options: Options, seats: int, rng: random.Random) -> list[Any]:
    st = initial(options, seats)
    emit = _Emitter(st)
    order = list(range(seats))
    if options.initial_order == "random":
        rng.shuffle(order)
    emit(E.PeerTrackSet(order=order))
    tiles = list(D.NEW_WORLD_TILES)
    rng.shuffle(tiles)
    emit(E.NewWorldShuffled(count=len(tiles), stack=tiles))
    estates = list(D.ESTATES)
    rng.shuffle(estates)
    emit(E.EstatesShuffled(stack=estates[: D.ESTATES_IN_PLAY], unused=estates[D.ESTATES_IN_PLAY :]))
    emit(E.NewWorldDealt(rows=D.EXPLORATION_SPACES))
    emit(E.TileTurnedUp(row=1, tile=st.exploration[0]))  # type: ignore[arg-type]
    advance(st, rng, emit)
    return emit.events


# --- who is asked -----------------------------------------------------------------------------


def can_reactivate(st: State, seat: int) -> bool:
    p = st.players[seat]
    return p.active == 0 and p.tired >= 1 and p.ducats >= D.REACTIVATION_PRICE


def can_buy_bull(st: State, seat: int) -> bool:
    return st.bull_supply >= 1 and st.players[seat].ducats >= D.BULL_PRICE


def next_asked(st: State, pred: Callable[[State, int], bool]) -> int | None:
    for i in range(st.ask_index, st.n):
        s = st.acting[i]
        if pred(st, s):
            return s
    return None


def awaiting(st: State) -> list[int]:
    ph = st.phase
    if ph == "rounds":
        if st.pending:
            return [st.pending[0].seat]
        return [st.acting[st.actor_index]]
    if ph == "commit":
        return [s for s in st.commit_asked if s not in st.commitments]
    if ph == "draft":
        return [st.acting[st.picks_done % st.n]]
    if ph == "reactivate":
        s = next_asked(st, can_reactivate)
        return [] if s is None else [s]
    if ph == "bulls":
        s = next_asked(st, can_buy_bull)
        return [] if s is None else [s]
    return []


# --- legal options per action ------------------------------------------------------------


def crown_cost_ok(st: State, p: Player) -> bool:
    """R9: "1 ducat + 1 Crown ducat" needs 1 own ducat, or 2 when the Crown is empty."""
    return p.ducats >= (1 if st.crown >= 1 else 2)


def face_up_rows(st: State, kind: str) -> list[int]:
    return [
        r + 1
        for r, t in enumerate(st.exploration)
        if t is not None and st.face_up[r] and D.TILES[t][0] == kind
    ]


def explore_target(st: State) -> tuple[int, str, bool] | None:
    """R16: the top-most face-down tile, else the stack's top into the top-most empty row."""
    for r, t in enumerate(st.exploration):
        if t is not None and not st.face_up[r]:
            return r + 1, t, False
    if st.stack:
        for r, t in enumerate(st.exploration):
            if t is None:
                return r + 1, st.stack[0], True
    return None


def action_options(
    st: State, seat: int, character: str, action: int, bull: bool = False
) -> list[Params]:
    """The parameters with which `character`'s `action` is legal for `seat` now. With `bull`,
    judge it after the bull paying for it has gone back to the supply (R22)."""
    p = st.players[seat]
    bulls = p.bulls - 1 if bull else p.bulls
    bull_supply = st.bull_supply + 1 if bull else st.bull_supply
    out: list[Params] = []
    if character == "admiral":
        if action == 1:
            full = len(st.market) >= D.MARKET_SPACES
            for r in face_up_rows(st, "goods"):
                if full:
                    out.extend(Params(row=r, market_space=i) for i in range(1, D.MARKET_SPACES + 1))
                else:
                    out.append(Params(row=r))
        else:
            out.append(NO_PARAMS)
    elif character == "cardinal":
        if action == 1:
            roses = (False, True) if p.rose_up >= 1 else (False,)
            for i in range(len(st.market)):
                if st.church[i] is None:
                    out.extend(
                        Params(source="market", church_space=i + 1, rose_window=rw) for rw in roses
                    )
            if st.surplus:
                for i, t in enumerate(st.church):
                    if t is None:
                        out.extend(
                            Params(source="surplus", church_space=i + 1, rose_window=rw)
                            for rw in roses
                        )
        elif bull_supply >= 1:
            out.append(NO_PARAMS)
    elif character == "merchant":
        if action == 1:
            if st.market:
                out.append(Params(source="market"))
            if st.surplus:
                out.append(Params(source="surplus"))
        else:
            out.extend(Params(pay=k) for k in D.MERCHANT_PAYS if p.ducats >= k)
    elif character == "constable":
        if action == 1:
            if p.active >= 1:
                if len(st.war) >= st.war_level:  # matched: swap another player's tercio
                    out.extend(Params(war_space=i + 1) for i, s in enumerate(st.war) if s != seat)
                else:
                    out.append(NO_PARAMS)
        elif p.tercio_box >= 1:
            out.extend((Params(tired=False), Params(tired=True)))
    elif character == "conquistador":
        if action == 1:
            if explore_target(st) is not None:
                out.append(NO_PARAMS)
        else:
            out.append(NO_PARAMS)  # R20: the 2 ducats alone are always legal
            out.extend(Params(row=r) for r in face_up_rows(st, "goods"))
    elif character == "pirate":
        if action == 1:
            targets = [s for s in range(st.n) if st.players[s].sea_trade >= 1]
            out.extend(Params(target=s) for s in targets)
            if not targets:  # R23
                out.append(NO_PARAMS)
        else:
            rows = [r for r in face_up_rows(st, "goods") if r <= len(st.colonies)]
            out.extend(Params(row=r) for r in rows)
            if not rows:
                out.append(NO_PARAMS)
    elif character == "king":
        out.append(NO_PARAMS)
    elif character == "secretary_of_state":
        if action == 1:
            if crown_cost_ok(st, p):
                if st.rose_supply >= 1:
                    out.append(Params(item="rose_window"))
                if p.house_box >= 1:
                    out.append(Params(item="house"))
                if st.magellan_supply >= 1:
                    out.append(Params(item="magellan"))
        elif p.ducats >= 2 and st.estate_stack:
            out.append(NO_PARAMS)
    elif character == "viceroy":
        if action == 1:
            if crown_cost_ok(st, p) and p.stock >= 1:
                out.extend(
                    Params(colony=i + 1)
                    for i, c in enumerate(st.colonies)
                    if len(c.houses) < c.size
                )
        else:
            methods = []
            if bulls >= 1:
                methods.append("bull")
            if crown_cost_ok(st, p) and p.active >= 1:
                methods.append("pay")
            for r in face_up_rows(st, "natives"):
                out.extend(Params(row=r, method=m) for m in methods)
    return out


def common_options(st: State, seat: int, action: str) -> list[Params]:
    p = st.players[seat]
    cost = D.COMMON_COST[action]
    if cost is not None and p.ducats < cost:
        return []
    if action in ("court_painter", "loan", "trade_routes"):
        return [NO_PARAMS]
    if action == "fund_tercios":
        return [Params(tired=False), Params(tired=True)] if p.tercio_box >= 1 else []
    if action == "open_mission":
        if p.stock < 1:
            return []
        return [Params(colony=i + 1) for i, c in enumerate(st.colonies) if len(c.houses) < c.size]
    if action == "visit_court":
        pos = st.peer.index(seat)
        return [Params(steps=k) for k in D.VISIT_COURT_STEPS if pos >= k and p.ducats >= k]
    if action == "workshops":
        out = []
        if st.rose_supply >= 1:
            out.append(Params(item="rose_window"))
        if p.house_box >= 1:
            out.append(Params(item="house"))
        return out
    if action == "buy_estate":
        return [NO_PARAMS] if st.estate_stack else []
    return []


def estate_discardable(st: State, p: Player, estate: str) -> bool:
    effect = D.ESTATES[estate][1]
    if effect is None:
        return False
    if effect == "tercio_active":
        return p.tercio_box >= 1
    if effect == "bull":
        return st.bull_supply >= 1
    if effect == "rose_window":
        return st.rose_supply >= 1
    if effect == "house":
        return p.house_box >= 1
    if effect == "refresh_tercios":
        return p.tired >= 1
    return True  # ducats_3, sea_trade (legal even at the end of the track)


def has_allowance(st: State, p: Player) -> bool:
    if st.options.common_actions_per_turn == 1:
        return p.common_count == 0
    return not st.common_in_round


END_ROUND = C.EndRound()


def round_moves(st: State, seat: int) -> Iterator[Any]:
    """A seat's commands in a round, in order (an iterator: `_apply_lone` reads two)."""
    p = st.players[seat]
    bull_ok = p.bulls >= 1 and not p.bull_used
    if st.step1_char is None:
        for ch in p.characters:
            if ch in p.used:
                continue
            for a in D.ACTION_NUMBERS:
                for prm in action_options(st, seat, ch, a):
                    yield C.CharacterAction(character=ch, action=a, params=prm)
            yield C.PassCharacter(character=ch)
    elif bull_ok:
        for a in D.ACTION_NUMBERS:
            for prm in action_options(st, seat, st.step1_char, a, bull=True):
                yield C.BullCharacterAction(action=a, params=prm)
    allowance = has_allowance(st, p)
    if allowance or bull_ok:
        for action in D.COMMON_ACTIONS:
            if action in st.common_taken:
                continue
            for prm in common_options(st, seat, action):
                if allowance:
                    yield C.CommonAction(action=action, params=prm, use_bull=False)
                if bull_ok:
                    yield C.CommonAction(action=action, params=prm, use_bull=True)
    for est in p.estates:
        if estate_discardable(st, p, est):
            yield C.DiscardEstate(estate=est)
    if st.step1_char is not None:
        yield END_ROUND


def pending_moves(st: State) -> list[Any]:
    pend = st.pending[0]
    p = st.players[pend.seat]
    if pend.kind == "natives":
        out: list[Any] = []
        if p.bulls >= 1:
            out.append(C.ResolveNatives(method="bull"))
        if p.ducats >= 1 and p.active >= 1:
            out.append(C.ResolveNatives(method="pay"))
        out.append(C.ResolveNatives(method="decline"))
        return out
    if pend.kind == "colony":
        return [C.ResolveColony(place_house=True), C.ResolveColony(place_house=False)]
    if pend.kind == "levy":
        return [C.LevyResponse(pay=True), C.LevyResponse(pay=False)]
    return [C.RaidResponse(choice="tire"), C.RaidResponse(choice="pay")]


def legal_commands(st: State, seat: int) -> list[Any]:
    return list(_moves(st, seat))


def _moves(st: State, seat: int) -> Iterable[Any]:
    """The legal commands in order: a list, or an iterator in the rounds (`decide` stops at
    the command it checks, `_apply_lone` after two)."""
    if seat not in awaiting(st):
        return []
    ph = st.phase
    if ph == "rounds":
        if st.pending:
            return pending_moves(st)
        return round_moves(st, seat)
    if ph == "commit":
        return [C.CommitTercios(count=k) for k in range(st.players[seat].active + 1)]
    if ph == "draft":
        return [C.PickCharacter(character=c) for c in st.hand]
    if ph == "reactivate":
        return [C.ReactivateTercios(accept=True), C.ReactivateTercios(accept=False)]
    if ph == "bulls":
        return [C.BuyBull(accept=True), C.BuyBull(accept=False)]
    return []


# --- decide -----------------------------------------------------------------------------------

COMMAND_TYPES = (
    C.ReactivateTercios,
    C.PickCharacter,
    C.BuyBull,
    C.CommitTercios,
    C.CharacterAction,
    C.PassCharacter,
    C.BullCharacterAction,
    C.CommonAction,
    C.DiscardEstate,
    C.EndRound,
    C.ResolveNatives,
    C.ResolveColony,
    C.LevyResponse,
    C.RaidResponse,
)


def decide(state: State, seat: int, command: Any, rng: random.Random) -> list[Any]:
    return decide_evolve(state, seat, command, rng)[0]


def decide_evolve(
    state: State, seat: int, command: Any, rng: random.Random
) -> tuple[list[Any], State]:
    """The events of `command` and the working copy they were applied to."""
    if state.phase == "over":
        raise illegal("game_over", "the game is over")
    if not isinstance(command, COMMAND_TYPES):
        raise illegal("unknown_command", "not a Plus Ultra command")
    if not isinstance(seat, int) or seat not in awaiting(state):
        raise not_your_turn(seat)
    try:
        ok = command in _moves(state, seat)
    except TypeError:  # an unhashable or uncomparable field: not a legal command
        ok = False
    if not ok:
        try:
            error = diagnose(state, seat, command, legal_commands(state, seat))
        except Exception:  # a malformed field (e.g. unhashable): still only a rule error
            error = illegal("invalid_choice", "that choice is not possible now")
        raise error
    st = working_copy(state)
    emit = _Emitter(st)
    apply_command(st, seat, command, emit)
    advance(st, rng, emit)
    return emit.events, st


def diagnose(st: State, seat: int, cmd: Any, legal: list[Any]) -> RuleError:
    """A stable reason for a refused command. Messages name only what the seat may know."""
    if not any(type(m) is type(cmd) for m in legal):
        return illegal("wrong_phase", f"{type(cmd).__name__} is not possible now")
    p = st.players[seat]
    if isinstance(cmd, C.PickCharacter):
        return illegal("not_offered", "that character is not among the cards offered to you")
    if isinstance(cmd, C.CommitTercios):
        return illegal("invalid_count", "commit between 0 and your active tercios")
    if isinstance(cmd, (C.CharacterAction, C.PassCharacter)):
        if cmd.character not in p.characters:
            return illegal("not_your_character", "you do not hold that character")
        if cmd.character in p.used:
            return illegal("character_used", "that character was used this turn")
        return illegal("invalid_action", "that action or its parameters are not possible now")
    if isinstance(cmd, C.CommonAction):
        if cmd.action not in D.COMMON_COST:
            return illegal("unknown_action", "no such common action")
        if cmd.action in st.common_taken:
            return illegal("action_taken", "that common action was taken this turn")
        if cmd.use_bull and p.bulls < 1:
            return illegal("no_bull", "you hold no bull")
        if cmd.use_bull and p.bull_used:
            return illegal("bull_used", "you already used a bull for an action this turn")
        if not cmd.use_bull and not has_allowance(st, p):
            return illegal("no_allowance", "you have no common action left")
        cost = D.COMMON_COST[cmd.action]
        if cost is not None and p.ducats < cost:
            return illegal("cannot_afford", "you cannot pay for that action")
        return illegal("invalid_params", "those parameters are not possible now")
    if isinstance(cmd, C.BullCharacterAction):
        return illegal("invalid_action", "that bull action is not possible now")
    if isinstance(cmd, C.DiscardEstate):
        if cmd.estate not in p.estates:
            return illegal("unknown_estate", "you hold no such estate")
        return illegal("cannot_discard", "that estate's effect cannot be applied in full")
    if isinstance(cmd, C.ResolveNatives):
        return illegal("cannot_afford", "you cannot capture that way")
    if isinstance(cmd, C.RaidResponse):
        return illegal("invalid_choice", "choose tire or pay")
    return illegal("invalid_choice", "that choice is not possible now")


def apply_command(st: State, seat: int, cmd: Any, emit: _Emitter, automatic: bool = False) -> None:
    """The events of `cmd`. `automatic`: the engine applies it as the seat's only legal
    command; the commands that can be alone mark their event with it (see `_apply_lone`)."""
    t = type(cmd)
    if t is C.ReactivateTercios:
        emit(E.ReactivationAnswered(seat=seat, accept=cmd.accept))
    elif t is C.PickCharacter:
        emit(E.CharacterPicked(seat=seat, character=cmd.character, automatic=automatic))
    elif t is C.BuyBull:
        card = st.holder.get("cardinal")
        paid = card if cmd.accept and card is not None and card != seat else None
        emit(E.BullAnswered(seat=seat, accept=cmd.accept, cardinal=paid))
    elif t is C.CommitTercios:
        emit(E.TercioCommitted(seat=seat, count=cmd.count))
    elif t is C.CharacterAction:
        _character_action(st, seat, cmd.character, cmd.action, cmd.params, False, emit)
    elif t is C.BullCharacterAction:
        assert st.step1_char is not None
        _character_action(st, seat, st.step1_char, cmd.action, cmd.params, True, emit)
    elif t is C.PassCharacter:
        emit(E.CharacterPassed(seat=seat, character=cmd.character, automatic=automatic))
    elif t is C.CommonAction:
        emit(
            E.CommonActionTaken(seat=seat, action=cmd.action, params=cmd.params, bull=cmd.use_bull)
        )
        if cmd.action == "buy_estate":
            emit(E.EstateTaken(seat=seat, estate=st.estate_stack[0]))
    elif t is C.DiscardEstate:
        emit(E.EstateDiscarded(seat=seat, estate=cmd.estate))
    elif t is C.EndRound:
        emit(E.RoundEnded(seat=seat, automatic=automatic))
    elif t is C.ResolveNatives:
        emit(E.NativesResolved(seat=seat, method=cmd.method, automatic=automatic))
    elif t is C.ResolveColony:
        emit(E.ColonyResolved(seat=seat, place_house=cmd.place_house))
    elif t is C.LevyResponse:
        emit(E.LevyResolved(seat=seat, pay=cmd.pay))
    elif t is C.RaidResponse:
        emit(E.RaidResolved(seat=seat, choice=cmd.choice))


def _character_action(
    st: State, seat: int, ch: str, action: int, params: Params, bull: bool, emit: _Emitter
) -> None:
    if ch == "conquistador" and action == 1:
        target = explore_target(st)
        assert target is not None
        emit(
            E.CharacterActionTaken(seat=seat, character=ch, action=action, params=params, bull=bull)
        )
        row, tile, from_stack = target
        emit(E.TileExplored(seat=seat, row=row, tile=tile, from_stack=from_stack))
        return
    emit(E.CharacterActionTaken(seat=seat, character=ch, action=action, params=params, bull=bull))
    if ch == "secretary_of_state" and action == 2:
        emit(E.EstateTaken(seat=seat, estate=st.estate_stack[0]))


# --- the automatic sequence --------------------------------------------------------------


def advance(st: State, rng: random.Random, emit: _Emitter) -> None:
    while True:
        ph = st.phase
        if ph == "rounds":
            if st.pending and _auto_pending(st, emit):
                continue
            if not _apply_lone(st, emit):
                return
            continue
        if ph == "commit":
            if any(s not in st.commitments for s in st.commit_asked):
                return
            _place_war(st, emit)
        elif ph == "draft":
            if st.picks_done < 2 * st.n:
                if not _apply_lone(st, emit):  # S5: a single card offered is taken
                    return
                continue
            _reveal(st, emit)
        elif ph == "reactivate":
            if next_asked(st, can_reactivate) is not None:
                return
            dice = [rng.randint(1, 6) for _ in range(D.DICE)]
            emit(E.WarDiceRolled(dice=dice, level=sorted(dice)[D.DICE // 2]))  # S3: the median
            order = list(D.CHARACTERS)
            rng.shuffle(order)
            emit(E.CharactersShuffled(order=order))  # S4
        elif ph == "bulls":
            if next_asked(st, can_buy_bull) is not None:
                return
            if st.turn in D.BLUE_COLONY_TURNS and st.blue_reserve:  # S7 (R44)
                emit(E.BlueColonyPlaced(tile=st.blue_reserve[0], space=len(st.colonies) + 1))
            emit(E.CommitmentsOpened(asked=[s for s in st.acting if st.players[s].active >= 1]))
        elif ph == "turn_start":
            emit(E.TurnStarted(turn=st.turn + 1, acting=list(st.peer)))
            for r in range(D.EXPLORATION_SPACES):  # S1 (R15)
                while st.exploration[r] is None and st.stack:
                    emit(E.ExplorationRefilled(row=r + 1, tile=st.stack[0]))
        elif ph == "end_turn":
            _end_of_turn(st, emit)
        elif ph == "scoring":
            emit(final_scoring(st))
        else:
            return


def _apply_lone(st: State, emit: _Emitter) -> bool:
    """when the one awaited seat has a single legal command, apply it (marked automatic)
    instead of asking; False when there is a real choice to wait for.

    Only a `pass_character` (no action, common action or estate left to it), `end_round`, a
    lone offered card (S5) or the `decline` of natives it cannot capture can be alone:
    every other decision always lists at least two commands."""
    seats = awaiting(st)
    if len(seats) != 1:
        return False
    legal = list(islice(_moves(st, seats[0]), 2))
    if len(legal) != 1:
        return False
    apply_command(st, seats[0], legal[0], emit, automatic=True)
    return True


def _auto_pending(st: State, emit: _Emitter) -> bool:
    """Settle a levy or raid whose seat cannot choose (R27): their commands are listed
    whatever the seat can afford, so `_apply_lone` does not see these. False if it must ask."""
    pend = st.pending[0]
    p = st.players[pend.seat]
    if pend.kind == "levy":
        if p.ducats < 1:  # R27
            emit(E.LevyResolved(seat=pend.seat, pay=False, automatic=True))
            return True
        return False
    if pend.kind == "raid":
        tire, pay = p.active >= 1, p.ducats >= 1
        if tire and pay:
            return False
        emit(
            E.RaidResolved(
                seat=pend.seat, choice="tire" if tire else "pay" if pay else "none", automatic=True
            )
        )
        return True
    return False


def _reveal(st: State, emit: _Emitter) -> None:
    """S5 reveal, the passives at the reveal (R26) and peer income (R6)."""
    emit(E.CharactersRevealed(picks=[list(p.characters) for p in st.players]))
    sec = st.holder.get("secretary_of_state")
    if sec is not None and st.holder.get("king", sec) == sec:
        emit(E.SecretaryBonus(seat=sec, gp=D.SECRETARY_BONUS_GP))
    vic = st.holder.get("viceroy")
    if vic is not None:
        k = sum(1 for c in st.colonies if vic in c.houses)
        if k:
            emit(E.ViceroyIncome(seat=vic, ducats=k))
    ducats = [0] * st.n
    gp = [0] * st.n
    gp_table = D.PEER_GP.get(st.turn, {})
    for pos, s in enumerate(st.acting, start=1):
        ducats[s] = D.PEER_DUCATS.get(pos, 0)
        gp[s] = gp_table.get(pos, 0)
    emit(E.PeerIncome(ducats=ducats, gp=gp))


def war_placement(counts: list[int], acting: list[int], level: int) -> tuple[list[int], list[int]]:
    """R33: rank by count (ties by acting order) and place one tercio at a time in rotation."""
    ranking = sorted(acting, key=lambda s: (-counts[s], acting.index(s)))
    left = list(counts)
    placed: list[int] = []
    while len(placed) < level and any(left):
        for s in ranking:
            if left[s] > 0 and len(placed) < level:
                placed.append(s)
                left[s] -= 1
    return placed, left


def _place_war(st: State, emit: _Emitter) -> None:
    counts = [st.commitments.get(s, 0) for s in range(st.n)]
    placed, left = war_placement(counts, st.acting, st.war_level)
    emit(E.WarPlaced(counts=counts, placed=placed, returned=left))


def _end_of_turn(st: State, emit: _Emitter) -> None:
    # E1 war
    won = len(st.war) == st.war_level
    gp = [0] * st.n
    if won:
        for s in st.war:
            gp[s] += 1
        con = st.holder.get("constable")
        if con is not None:
            gp[con] += 1
    emit(E.WarResolved(won=won, gp=gp))
    # E2 natives (R42)
    for r in range(D.EXPLORATION_SPACES):
        t = st.exploration[r]
        if t is not None and st.face_up[r] and D.TILES[t][0] == "natives" and r < len(st.colonies):
            houses = st.colonies[r].houses
            if houses:
                emit(E.NativesAttacked(row=r + 1, seat=houses[-1]))
    # E3 shipping (R19)
    for r in range(D.EXPLORATION_SPACES):
        t = st.exploration[r]
        if t is not None and st.face_up[r] and D.TILES[t][0] == "goods" and r < len(st.colonies):
            emit(
                E.GoodShipped(
                    row=r + 1,
                    tile=t,
                    to="market" if len(st.market) < D.MARKET_SPACES else "surplus",
                )
            )
    # E4 hoarding
    assert st.set_aside is not None
    icon = D.CHARACTER_ICON[st.set_aside]
    removed = [t for t in st.market if D.tile_good(t) == icon]
    emit(E.CrownHoarded(set_aside=st.set_aside, leftovers=list(st.hand), removed=removed))
    # E5
    emit(E.TurnEnded(turn=st.turn))


# --- final scoring -----------------------------------------------------------------------

COMPONENTS = (
    "houses",
    "majorities",
    "bulls",
    "conversion",
    "sea_trade",
    "estates",
    "magellan",
    "natives",
)


def score_components(st: State) -> list[dict[str, int]]:
    n = st.n
    comp = [dict.fromkeys(COMPONENTS, 0) for _ in range(n)]
    for c in st.colonies:
        counts = [c.houses.count(s) for s in range(n)]
        for s in range(n):
            comp[s]["houses"] += counts[s]
        top = max(counts)
        if top > 0 and counts.count(top) == 1:
            comp[counts.index(top)]["majorities"] += D.MAJORITY_GP[c.size]
    values = sorted({p.sea_trade for p in st.players if p.sea_trade >= 1}, reverse=True)
    for s, p in enumerate(st.players):
        comp[s]["bulls"] = -p.bulls
        war = st.war.count(s)
        total = p.ducats + p.active + p.tired + war + p.rose_up + p.rose_down + p.stock
        comp[s]["conversion"] = total // D.CONVERSION_RATE
        if p.sea_trade >= 1:
            i = values.index(p.sea_trade)
            comp[s]["sea_trade"] = D.SEA_TRADE_AWARDS[min(i, len(D.SEA_TRADE_AWARDS) - 1)]
        comp[s]["estates"] = sum(D.ESTATES[e][0] for e in p.estates)
        comp[s]["magellan"] = 0 if st.magellan_complete else D.MAGELLAN_INCOMPLETE_GP * p.magellan
        comp[s]["natives"] = len(p.captured) ** 2
    return comp


def final_scoring(st: State) -> E.GameEnded:
    comp = score_components(st)
    scores = [st.players[s].gp + sum(comp[s].values()) for s in range(st.n)]
    positions = [st.peer.index(s) + 1 for s in range(st.n)]
    ranks = rank([(scores[s], -positions[s]) for s in range(st.n)])
    details = {
        "in_game_gp": [p.gp for p in st.players],
        "components": comp,
        "totals": scores,
        "positions": positions,
    }
    return E.GameEnded(scores=scores, ranks=ranks, positions=positions, details=details)
