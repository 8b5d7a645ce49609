"""evolve: apply one event to the state, in place. One small function per event type.

Effects of actions live here (decide validates and supplies the outcomes of random draws);
evolve never draws and never fails for an event that decide produced.

Fields are assigned, lists and dicts are replaced, never changed in place: `decide` works on
a shallow copy (`state.working_copy`) that shares them with the state it was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.plus_ultra import data as D
from domain.plus_ultra import events as E
from domain.plus_ultra.state import Colony, Pending, Player, State

# --- shared mechanics -------------------------------------------------------------------------


def _replaced(values: list[Any], i: int, value: Any) -> list[Any]:
    """`values` with item `i` replaced, as a new list."""
    out = values[:]
    out[i] = value
    return out


def _without(values: list[Any], value: Any) -> list[Any]:
    """`values` without its first `value`, as a new list (`list.remove` on a copy)."""
    out = values[:]
    out.remove(value)
    return out


def _set_houses(st: State, colony: int, houses: list[int]) -> None:
    c = st.colonies[colony]
    st.colonies = _replaced(st.colonies, colony, Colony(tile=c.tile, size=c.size, houses=houses))


def _add_house(st: State, colony: int, seat: int) -> None:
    _set_houses(st, colony, [*st.colonies[colony].houses, seat])


def _take_tile(st: State, source: str, i: int) -> str:
    """Market space `i + 1` (the Market closes its gap), or else the top of the Surplus."""
    if source == "market":
        tile = st.market[i]
        st.market = st.market[:i] + st.market[i + 1 :]
    else:
        tile = st.surplus[-1]
        st.surplus = st.surplus[:-1]
    return tile


def crown_gain(st: State, amount: int) -> None:
    """R7: above 6 the Crown stays at 6; the excess goes 1 ducat at a time to the
    players in acting order, starting with the 1st and cycling."""
    st.crown += amount
    if st.crown > D.CROWN_MAX:
        excess = st.crown - D.CROWN_MAX
        st.crown = D.CROWN_MAX
        for i in range(excess):
            st.players[st.acting[i % st.n]].ducats += 1


def pay_crown_ducat(st: State, p: Player) -> None:
    """R9: the Crown pays its share while it holds ducats; at 0 the player pays it himself."""
    if st.crown >= 1:
        st.crown -= 1
    else:
        p.ducats -= 1


def gain_sea_trade(p: Player, steps: int) -> None:
    p.sea_trade = min(D.SEA_TRADE_MAX, p.sea_trade + steps)  # steps past 15 are lost


def move_up(st: State, seat: int, steps: int) -> None:
    """R5: pass `steps` players directly ahead on the live track; each moves down one."""
    i = st.peer.index(seat)
    j = max(0, i - steps)
    peer = st.peer[:]
    del peer[i]
    peer.insert(j, seat)
    st.peer = peer


def place_colony(st: State, tile: str) -> None:
    st.colonies = [*st.colonies, Colony(tile=tile, size=D.colony_size(tile), houses=[])]


def clear_row(st: State, row: int) -> None:
    st.exploration = _replaced(st.exploration, row - 1, None)
    st.face_up = _replaced(st.face_up, row - 1, False)


def capture(st: State, seat: int, row: int) -> None:
    tile = st.exploration[row - 1]
    assert tile is not None
    p = st.players[seat]
    p.captured = [*p.captured, tile]
    clear_row(st, row)


def complete_church(st: State, donor: Player) -> None:
    donor.gp += D.CHURCH_COMPLETION_GP
    for p in st.players:  # R14: every player's rose windows turn face up
        p.rose_up += p.rose_down
        p.rose_down = 0
    for t in st.church:
        assert t is not None
        st.out = [*st.out, t]
    st.church = [None] * D.CHURCH_SPACES


def take_magellan(st: State, p: Player) -> None:
    st.magellan_supply -= 1
    p.magellan += 1
    if st.magellan_supply == 0:  # R29: completion pays 3 GP per card held, at once
        st.magellan_complete = True
        for q in st.players:
            q.gp += D.MAGELLAN_COMPLETION_GP * q.magellan


def use_character(st: State, seat: int, character: str, bull: bool) -> None:
    p = st.players[seat]
    if bull:
        p.bulls -= 1
        st.bull_supply += 1
        p.bull_used = True
    else:
        p.used = [*p.used, character]
        st.step1_char = character
    if character == "king":  # R26: the King's passive, whenever the card is used
        move_up(st, seat, st.n)


# --- set-up -----------------------------------------------------------------------------------


def _peer_track_set(st: State, ev: E.PeerTrackSet) -> None:
    st.peer = list(ev.order)
    st.acting = list(ev.order)


def _new_world_shuffled(st: State, ev: E.NewWorldShuffled) -> None:
    assert ev.stack is not None
    st.stack = list(ev.stack)


def _estates_shuffled(st: State, ev: E.EstatesShuffled) -> None:
    assert ev.stack is not None and ev.unused is not None
    st.estate_stack = list(ev.stack)
    st.estates_unused = list(ev.unused)


def _new_world_dealt(st: State, ev: E.NewWorldDealt) -> None:
    st.stack, st.exploration, st.face_up = st.stack[:], st.exploration[:], st.face_up[:]
    for r in range(ev.rows):
        st.exploration[r] = st.stack.pop(0)
        st.face_up[r] = False


def _tile_turned_up(st: State, ev: E.TileTurnedUp) -> None:
    st.face_up = _replaced(st.face_up, ev.row - 1, True)
    if D.tile_kind(ev.tile) == "colony":  # R15
        place_colony(st, ev.tile)
        clear_row(st, ev.row)
    st.phase = "turn_start"  # the last set-up step


# --- start of turn ----------------------------------------------------------------------------


def _turn_started(st: State, ev: E.TurnStarted) -> None:
    st.turn = ev.turn
    st.acting = list(ev.acting)
    st.phase = "reactivate"
    st.ask_index = 0


def _exploration_refilled(st: State, ev: E.ExplorationRefilled) -> None:
    tile, st.stack = st.stack[0], st.stack[1:]
    if D.tile_kind(tile) == "colony":
        place_colony(st, tile)  # the same space is filled again (R15)
    else:
        st.exploration = _replaced(st.exploration, ev.row - 1, tile)
        st.face_up = _replaced(st.face_up, ev.row - 1, True)


def _reactivation_answered(st: State, ev: E.ReactivationAnswered) -> None:
    st.ask_index = st.acting.index(ev.seat) + 1
    if ev.accept:
        p = st.players[ev.seat]
        p.ducats -= D.REACTIVATION_PRICE
        p.active += p.tired
        p.tired = 0


def _war_dice_rolled(st: State, ev: E.WarDiceRolled) -> None:
    st.dice = list(ev.dice)
    st.war_level = ev.level


def _characters_shuffled(st: State, ev: E.CharactersShuffled) -> None:
    assert ev.order is not None
    st.set_aside = ev.order[0]
    st.hand = list(ev.order[1:])
    st.phase = "draft"
    st.picks_done = 0
    st.holder = {}
    st.revealed = False
    st.hoarded = False
    for p in st.players:
        p.characters = []
        p.used = []


def _character_picked(st: State, ev: E.CharacterPicked) -> None:
    assert ev.character is not None
    st.hand = _without(st.hand, ev.character)
    p = st.players[ev.seat]
    p.characters = [*p.characters, ev.character]
    st.holder = {**st.holder, ev.character: ev.seat}
    st.picks_done += 1


def _characters_revealed(st: State, ev: E.CharactersRevealed) -> None:
    st.revealed = True
    st.phase = "bulls"
    st.ask_index = 0


def _secretary_bonus(st: State, ev: E.SecretaryBonus) -> None:
    st.players[ev.seat].gp += ev.gp


def _viceroy_income(st: State, ev: E.ViceroyIncome) -> None:
    st.players[ev.seat].ducats += ev.ducats


def _peer_income(st: State, ev: E.PeerIncome) -> None:
    for s, p in enumerate(st.players):
        p.ducats += ev.ducats[s]
        p.gp += ev.gp[s]


def _bull_answered(st: State, ev: E.BullAnswered) -> None:
    st.ask_index = st.acting.index(ev.seat) + 1
    if ev.accept:
        p = st.players[ev.seat]
        p.ducats -= D.BULL_PRICE
        p.bulls += 1
        st.bull_supply -= 1
        if ev.cardinal is not None:  # the Cardinal's passive (R21)
            st.players[ev.cardinal].ducats += 1


def _blue_colony_placed(st: State, ev: E.BlueColonyPlaced) -> None:
    st.blue_reserve = _without(st.blue_reserve, ev.tile)
    place_colony(st, ev.tile)


# --- action phase -----------------------------------------------------------------------------


def _commitments_opened(st: State, ev: E.CommitmentsOpened) -> None:
    st.phase = "commit"
    st.commit_asked = list(ev.asked)
    st.commitments = {}


def _tercio_committed(st: State, ev: E.TercioCommitted) -> None:
    assert ev.count is not None
    st.commitments = {**st.commitments, ev.seat: ev.count}


def _war_placed(st: State, ev: E.WarPlaced) -> None:
    for s, p in enumerate(st.players):
        p.active -= ev.counts[s]
        p.tired += ev.returned[s]
    st.war = list(ev.placed)
    st.commit_asked = []
    st.phase = "rounds"
    st.round = 1
    st.actor_index = 0
    st.step1_char = None
    st.common_in_round = False


def _character_action_taken(st: State, ev: E.CharacterActionTaken) -> None:
    use_character(st, ev.seat, ev.character, ev.bull)
    ACTIONS[(ev.character, ev.action)](st, ev.seat, ev.params)


def _character_passed(st: State, ev: E.CharacterPassed) -> None:
    use_character(st, ev.seat, ev.character, False)  # R38


def _admiral_1(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    tile = st.exploration[params.row - 1]
    good = D.tile_good(tile)
    bonus = all(D.tile_good(t) != good for t in st.market)  # R13: tested before anything moves
    if len(st.market) < D.MARKET_SPACES:
        st.market = [*st.market, tile]
    else:
        i = params.market_space - 1
        st.surplus = [*st.surplus, st.market[i]]
        st.market = _replaced(st.market, i, tile)
    clear_row(st, params.row)
    gain_sea_trade(p, 1)
    if bonus:
        p.gp += D.ADMIRAL_BONUS_GP


def _admiral_2(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    gain_sea_trade(p, 2)
    p.ducats += 1


def _cardinal_1(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    i = params.church_space - 1
    tile = _take_tile(st, params.source, i)
    st.church = _replaced(st.church, i, tile)
    p.gp += D.DONATION_GP  # R14: donation, then rose window, then completion
    if params.rose_window:
        p.rose_up -= 1
        p.rose_down += 1
        p.gp += D.ROSE_WINDOW_GP[D.tile_good(tile)]  # type: ignore[index]
    if all(t is not None for t in st.church):
        complete_church(st, p)


def _cardinal_2(st: State, seat: int, params: Any) -> None:
    st.players[seat].bulls += 1
    st.bull_supply -= 1


def _merchant_1(st: State, seat: int, params: Any) -> None:
    # R11: Market space 1, or the top of the Surplus
    tile = _take_tile(st, params.source, 0)
    good = D.tile_good(tile)
    m = sum(1 for t in st.market if D.tile_good(t) == good)  # the sold tile already left
    st.out = [*st.out, tile]  # R12
    st.players[seat].ducats += max(0, D.MERCHANT_BASE_PRICE - m)


def _merchant_2(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    p.ducats -= params.pay
    p.gp += params.pay - 1


def _constable_1(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    p.active -= 1
    if params.war_space is not None:  # R25: the swap takes another player's tercio
        i = params.war_space - 1
        st.players[st.war[i]].tired += 1
        st.war = _replaced(st.war, i, seat)
    else:
        st.war = [*st.war, seat]


def _constable_2(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    p.tercio_box -= 1
    if params.tired:
        p.tired += 1
    else:
        p.active += 1


def _conquistador_1(st: State, seat: int, params: Any) -> None:
    pass  # the exploration itself is the following TileExplored event


def _conquistador_2(st: State, seat: int, params: Any) -> None:
    st.players[seat].ducats += 2
    if params.row is not None:  # R20
        st.surplus = [*st.surplus, st.exploration[params.row - 1]]
        clear_row(st, params.row)


def _pirate_1(st: State, seat: int, params: Any) -> None:
    st.players[seat].ducats += 2
    if params.target is not None:
        st.players[params.target].sea_trade -= 1


def _pirate_2(st: State, seat: int, params: Any) -> None:
    st.players[seat].ducats += 2
    if params.row is not None:
        st.out = [*st.out, st.exploration[params.row - 1]]
        clear_row(st, params.row)
        houses = st.colonies[params.row - 1].houses
        for s in st.acting:  # R24: the Pirate included, in acting order
            if s in houses:
                st.pending = [*st.pending, Pending(kind="raid", seat=s, row=params.row)]


def _king_1(st: State, seat: int, params: Any) -> None:
    st.players[seat].gp += D.king_gp(st.crown)


def _king_2(st: State, seat: int, params: Any) -> None:
    crown_gain(st, 2)  # R27: the Crown and its overflow first
    for s in st.acting:
        if s != seat:
            st.pending = [*st.pending, Pending(kind="levy", seat=s)]


def _secretary_1(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    p.ducats -= 1
    pay_crown_ducat(st, p)
    if params.item == "rose_window":
        st.rose_supply -= 1
        p.rose_up += 1
    elif params.item == "house":
        p.house_box -= 1
        p.stock += 1
    else:
        take_magellan(st, p)


def _secretary_2(st: State, seat: int, params: Any) -> None:
    st.players[seat].ducats -= 2  # the estate itself is the following EstateTaken event


def _viceroy_1(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    p.ducats -= 1
    pay_crown_ducat(st, p)
    p.stock -= 1
    _add_house(st, params.colony - 1, seat)


def _viceroy_2(st: State, seat: int, params: Any) -> None:
    p = st.players[seat]
    if params.method == "bull":
        p.bulls -= 1
        st.bull_supply += 1
    else:
        p.ducats -= 1
        pay_crown_ducat(st, p)
        p.active -= 1
        p.tired += 1
    capture(st, seat, params.row)


ACTIONS: dict[tuple[str, int], Callable[[State, int, Any], None]] = {
    ("admiral", 1): _admiral_1,
    ("admiral", 2): _admiral_2,
    ("cardinal", 1): _cardinal_1,
    ("cardinal", 2): _cardinal_2,
    ("merchant", 1): _merchant_1,
    ("merchant", 2): _merchant_2,
    ("constable", 1): _constable_1,
    ("constable", 2): _constable_2,
    ("conquistador", 1): _conquistador_1,
    ("conquistador", 2): _conquistador_2,
    ("pirate", 1): _pirate_1,
    ("pirate", 2): _pirate_2,
    ("king", 1): _king_1,
    ("king", 2): _king_2,
    ("secretary_of_state", 1): _secretary_1,
    ("secretary_of_state", 2): _secretary_2,
    ("viceroy", 1): _viceroy_1,
    ("viceroy", 2): _viceroy_2,
}


def _common_action_taken(st: State, ev: E.CommonActionTaken) -> None:
    p = st.players[ev.seat]
    st.common_taken = [*st.common_taken, ev.action]
    if ev.bull:
        p.bulls -= 1
        st.bull_supply += 1
        p.bull_used = True
    else:
        p.common_count += 1
        st.common_in_round = True
    a, prm = ev.action, ev.params
    cost = prm.steps if a == "visit_court" else D.COMMON_COST[a]
    p.ducats -= cost or 0
    if a == "court_painter":
        p.gp += D.COURT_PAINTER_GP
    elif a == "loan":
        p.gp -= D.LOAN_GP_COST  # R28: never blocked by 0 GP
        p.ducats += D.LOAN_DUCATS
    elif a == "fund_tercios":
        p.tercio_box -= 1
        if prm.tired:
            p.tired += 1
        else:
            p.active += 1
    elif a == "trade_routes":
        gain_sea_trade(p, 1)
    elif a == "open_mission":
        assert prm.colony is not None
        p.stock -= 1
        _add_house(st, prm.colony - 1, ev.seat)
    elif a == "visit_court":
        assert prm.steps is not None
        move_up(st, ev.seat, prm.steps)
    elif a == "workshops":
        if prm.item == "rose_window":
            st.rose_supply -= 1
            p.rose_up += 1
        else:
            p.house_box -= 1
            p.stock += 1
    # buy_estate: the estate itself is the following EstateTaken event


def _tile_explored(st: State, ev: E.TileExplored) -> None:
    r = ev.row - 1
    if ev.from_stack:
        st.stack = st.stack[1:]
        st.exploration = _replaced(st.exploration, r, ev.tile)
    st.face_up = _replaced(st.face_up, r, True)
    kind = D.tile_kind(ev.tile)
    p = st.players[ev.seat]
    if kind == "goods":
        p.gp += D.EXPLORE_GOODS_GP
    elif kind == "natives":
        st.pending = [*st.pending, Pending(kind="natives", seat=ev.seat, row=ev.row)]
    else:
        place_colony(st, ev.tile)
        clear_row(st, ev.row)
        if p.stock >= 1 and p.ducats >= 2:
            st.pending = [*st.pending, Pending(kind="colony", seat=ev.seat, row=len(st.colonies))]


def _estate_taken(st: State, ev: E.EstateTaken) -> None:
    p = st.players[ev.seat]
    p.estates = [*p.estates, st.estate_stack[0]]
    st.estate_stack = st.estate_stack[1:]


def _estate_discarded(st: State, ev: E.EstateDiscarded) -> None:
    p = st.players[ev.seat]
    p.estates = _without(p.estates, ev.estate)
    st.estates_discarded = [*st.estates_discarded, ev.estate]
    effect = D.ESTATES[ev.estate][1]
    if effect == "tercio_active":
        p.tercio_box -= 1
        p.active += 1
    elif effect == "bull":  # no Cardinal passive for it
        st.bull_supply -= 1
        p.bulls += 1
    elif effect == "ducats_3":
        p.ducats += 3
    elif effect == "rose_window":
        st.rose_supply -= 1
        p.rose_up += 1
    elif effect == "house":
        p.house_box -= 1
        p.stock += 1
    elif effect == "sea_trade":
        gain_sea_trade(p, 1)
    elif effect == "refresh_tercios":
        p.active += p.tired
        p.tired = 0


def _natives_resolved(st: State, ev: E.NativesResolved) -> None:
    pend, st.pending = st.pending[0], st.pending[1:]
    p = st.players[ev.seat]
    if ev.method == "bull":
        p.bulls -= 1
        st.bull_supply += 1
    elif ev.method == "pay":
        p.ducats -= 1
        p.active -= 1
        p.tired += 1
    else:
        return  # a declined tile stays face up
    capture(st, ev.seat, pend.row)


def _colony_resolved(st: State, ev: E.ColonyResolved) -> None:
    pend, st.pending = st.pending[0], st.pending[1:]
    if ev.place_house:
        p = st.players[ev.seat]
        p.ducats -= 2
        p.stock -= 1
        _add_house(st, pend.row - 1, ev.seat)


def _levy_resolved(st: State, ev: E.LevyResolved) -> None:
    st.pending = st.pending[1:]
    p = st.players[ev.seat]
    if ev.pay:
        p.ducats -= 1
    else:
        p.gp -= 1


def _raid_resolved(st: State, ev: E.RaidResolved) -> None:
    st.pending = st.pending[1:]
    p = st.players[ev.seat]
    if ev.choice == "tire":
        p.active -= 1
        p.tired += 1
    elif ev.choice == "pay":
        p.ducats -= 1


def _round_ended(st: State, ev: E.RoundEnded) -> None:
    st.step1_char = None
    st.common_in_round = False
    st.actor_index += 1
    if st.actor_index == st.n:
        st.actor_index = 0
        st.round += 1
        if st.round > D.ROUNDS_PER_TURN:
            st.phase = "end_turn"


# --- end of turn ------------------------------------------------------------------------------


def _war_resolved(st: State, ev: E.WarResolved) -> None:
    for s, p in enumerate(st.players):
        p.gp += ev.gp[s]
    for s in st.war:  # won or not, placed tercios come back tired
        st.players[s].tired += 1
    st.war = []


def _natives_attacked(st: State, ev: E.NativesAttacked) -> None:
    houses = st.colonies[ev.row - 1].houses
    seat = houses[-1]  # R42: the last-built house
    _set_houses(st, ev.row - 1, houses[:-1])
    st.players[seat].stock += 1


def _good_shipped(st: State, ev: E.GoodShipped) -> None:
    tile = st.exploration[ev.row - 1]
    assert tile is not None
    if ev.to == "market":
        st.market = [*st.market, tile]
    else:
        st.surplus = [*st.surplus, tile]  # R19
    clear_row(st, ev.row)


def _crown_hoarded(st: State, ev: E.CrownHoarded) -> None:
    st.hoarded = True
    for t in ev.removed:
        st.market = _without(st.market, t)  # the Market closes its gaps
        st.out = [*st.out, t]
    crown_gain(st, len(ev.removed))


def _turn_ended(st: State, ev: E.TurnEnded) -> None:
    for p in st.players:
        p.characters = []
        p.used = []
        p.common_count = 0
        p.bull_used = False
    st.holder = {}
    st.set_aside = None
    st.hand = []
    st.picks_done = 0
    st.revealed = False
    st.hoarded = False
    st.common_taken = []
    st.war = []
    st.war_level = 0
    st.dice = []
    st.commitments = {}
    st.round = 0
    st.acting = list(st.peer)
    st.phase = "scoring" if ev.turn >= D.TURNS else "turn_start"


def _game_ended(st: State, ev: E.GameEnded) -> None:
    st.final = {
        "scores": list(ev.scores),
        "ranks": list(ev.ranks),
        "positions": list(ev.positions),
        "details": ev.details,
    }
    st.phase = "over"


HANDLERS: dict[type, Callable[[State, Any], None]] = {
    E.PeerTrackSet: _peer_track_set,
    E.NewWorldShuffled: _new_world_shuffled,
    E.EstatesShuffled: _estates_shuffled,
    E.NewWorldDealt: _new_world_dealt,
    E.TileTurnedUp: _tile_turned_up,
    E.TurnStarted: _turn_started,
    E.ExplorationRefilled: _exploration_refilled,
    E.ReactivationAnswered: _reactivation_answered,
    E.WarDiceRolled: _war_dice_rolled,
    E.CharactersShuffled: _characters_shuffled,
    E.CharacterPicked: _character_picked,
    E.CharactersRevealed: _characters_revealed,
    E.SecretaryBonus: _secretary_bonus,
    E.ViceroyIncome: _viceroy_income,
    E.PeerIncome: _peer_income,
    E.BullAnswered: _bull_answered,
    E.BlueColonyPlaced: _blue_colony_placed,
    E.CommitmentsOpened: _commitments_opened,
    E.TercioCommitted: _tercio_committed,
    E.WarPlaced: _war_placed,
    E.CharacterActionTaken: _character_action_taken,
    E.CharacterPassed: _character_passed,
    E.CommonActionTaken: _common_action_taken,
    E.TileExplored: _tile_explored,
    E.EstateTaken: _estate_taken,
    E.EstateDiscarded: _estate_discarded,
    E.NativesResolved: _natives_resolved,
    E.ColonyResolved: _colony_resolved,
    E.LevyResolved: _levy_resolved,
    E.RaidResolved: _raid_resolved,
    E.RoundEnded: _round_ended,
    E.WarResolved: _war_resolved,
    E.NativesAttacked: _natives_attacked,
    E.GoodShipped: _good_shipped,
    E.CrownHoarded: _crown_hoarded,
    E.TurnEnded: _turn_ended,
    E.GameEnded: _game_ended,
}


def evolve(state: State, event: Any) -> State:
    HANDLERS[type(event)](state, event)
    return state
