"""Per-seat and public views and event redaction: hidden information stops here (R11, R24).

Hidden while the game runs: the stack order (only its size is shown), the identity of forests,
a hacienda tile awaiting `hacienda_place` (its drawer sees it), and every other player's VP
total. Once the game is over the view shows everything.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.enums import one_of
from domain.puerto_rico import events as E
from domain.puerto_rico.board import score_breakdown
from domain.puerto_rico.data import (
    GOODS,
    GUEST_WINDOW,
    ISLAND,
    PHASES,
    ROLE_PHASES,
    ROLES,
    SCORE_PARTS,
    STEPS,
    BuildingId,
    Good,
    IslandKind,
    Role,
    VioletId,
)
from domain.puerto_rico.state import Options, State

# The keys of each cargo ship in `GameView.ships`.
SHIP_KEYS: tuple[str, ...] = ("capacity", "good", "load")


class PlayerView(msgspec.Struct, kw_only=True):
    """One player's colony and holdings, as the viewer may see them."""

    seat: int  # the seat, 0 to seats - 1
    doubloons: int  # doubloons held
    vp: int | None  # chips and paper VP, no building VP; None: secret from this viewer (R24)
    goods: dict[Good, int]  # good -> barrels held
    tiles: dict[IslandKind, int]  # plantation kind or quarry -> tiles on the island (no forests)
    occupied: dict[IslandKind, int]  # plantation kind or quarry -> those tiles with a colonist
    forests: int  # forest tiles on the island (face down, no circle)
    forest_tiles: list[Good] | None  # the forests' plantation kinds; None until the game is over
    buildings: dict[BuildingId, int]  # building owned -> colonists on it (0: unoccupied)
    san_juan: int  # colonists in San Juan, on no circle
    doubling_role: Role | None  # the role the library doubles this round (2p option)


class Progress(msgspec.Struct, kw_only=True):
    """Where the round stands, as the rules count it (public: the seats saw it happen)."""

    actor: int  # the seat of the step (-1: none, or every seat of a guest window)
    first_governor: int  # the seat of the game's first governor (the draft starts there)
    picks: int  # roles picked this round
    passes: int  # consecutive passes in the captain phase
    window_for: E.WindowFor  # what a guest window comes before ("": none yet)
    last_phase: Annotated[str, one_of(("", *ROLE_PHASES))]  # the phase that ended last ("": none)
    hacienda_used: bool  # this settler turn
    wharf_used: list[bool]  # per seat, this captain phase
    small_wharf_used: list[bool]  # per seat, this captain phase
    captain_shipped: bool  # the captain's privilege was granted
    # good -> barrels the craftsman (chooser) produced this phase, aqueduct's included
    received: dict[Good, int]
    vp_paper: int  # VP awarded beyond the chip supply


class GameView(msgspec.Struct, kw_only=True):
    """The table as one seat (or a spectator) sees it; everything once the game is over."""

    viewer: int | None  # the seat this view is for; None: a spectator
    seats: int  # number of players, 2 to 5
    options: Options  # the options the game was created with
    # setup (until the first draft pick), draft, roles (between phases), the running role's phase,
    # end (the last guest window) or over
    phase: Annotated[str, one_of(PHASES)]
    # the awaited decision ("": none; guest_window: every seat in `awaiting`)
    step: Annotated[str, one_of(("", *STEPS, GUEST_WINDOW))]
    awaiting: list[int]  # the seats whose decision is awaited (empty: none, or the game is over)
    round: int  # the round's number, from 1 (0: during the draft)
    governor: int  # the seat holding the governor card
    chooser: int  # the seat that picked the running (or last) role; -1: no pick yet
    role: Annotated[str, one_of(("", *ROLES))]  # the running role ("": between phases)
    roles: dict[Role, int]  # role card in this game -> doubloons lying on it
    picked: list[Role]  # the roles picked this round, in pick order
    players: list[PlayerView]  # every player's colony and holdings, by seat
    row: list[Good]  # the face-up plantations to take
    discard: list[Good]  # the discarded plantations, face up, reshuffled when the stack runs out
    stack_size: int  # the tiles in the face-down plantation stack
    stack: list[Good] | None  # the stack's plantations, top first; None until the game is over
    # the drawer's secret tile awaiting hacienda_place (None: none, or another seat's)
    hacienda_tile: Good | None
    quarries: int  # quarries left in the supply
    supply: dict[Good, int]  # good -> barrels left in the supply
    colonists: int  # colonists in the supply
    colonist_ship: int  # colonists on the colonist ship
    vp_supply: int  # VP chips left (0 triggers the game end)
    # the cargo ships, smallest first: capacity, good (None: empty) and load (barrels)
    ships: list[dict[Annotated[str, one_of(SHIP_KEYS)], Any]]
    trading_house: list[Good]  # the barrels in the trading house (4 places), in sale order
    buildings_left: dict[BuildingId, int]  # building in this game -> copies left to buy
    # draft slot cost (1-10) -> slots still free (empty without the expansion)
    draft_slots: dict[int, int]
    drafted: list[VioletId]  # the violet buildings drafted so far, in draft order
    end_triggered: bool  # the game ends after this round
    over: bool  # the game is over
    # per seat, the final score by part ("total" included); None until the game is over
    scores: list[dict[Annotated[str, one_of(SCORE_PARTS)], int]] | None
    progress: Progress  # the round's bookkeeping


def view(s: State, seat: int | None) -> GameView:
    over = s.over
    players = []
    for i, p in enumerate(s.players):
        players.append(
            PlayerView(
                seat=i,
                doubloons=p.doubloons,
                vp=p.vp if (over or i == seat) else None,
                goods={g: p.goods[k] for k, g in enumerate(GOODS)},
                tiles={t: p.tiles[k] for k, t in enumerate(ISLAND)},
                occupied={t: p.occupied[k] for k, t in enumerate(ISLAND)},
                forests=len(p.forests),
                forest_tiles=p.forests[:] if over else None,
                buildings=dict(p.buildings),
                san_juan=p.san_juan,
                doubling_role=p.doubling_role,
            )
        )
    if s.step == "guest_window":
        waiting = list(s.window)
    elif s.step and not over:
        waiting = [s.actor]
    else:
        waiting = []
    return GameView(
        viewer=seat,
        seats=s.n,
        options=s.options,
        phase=s.phase,
        step=s.step,
        awaiting=waiting,
        round=s.round,
        governor=s.governor,
        chooser=s.chooser,
        role=s.role,
        roles=dict(s.roles),
        picked=s.picked[:],
        players=players,
        row=s.row[:],
        discard=s.discard[:],
        stack_size=len(s.stack),
        stack=s.stack[::-1] if over else None,
        hacienda_tile=s.hacienda_tile if (over or (seat is not None and seat == s.actor)) else None,
        quarries=s.quarries,
        supply={g: s.supply[k] for k, g in enumerate(GOODS)},
        colonists=s.colonists,
        colonist_ship=s.ship_colonists,
        vp_supply=s.vp_supply,
        ships=[
            {
                "capacity": s.ship_capacity[i],
                "good": GOODS[s.ship_good[i]] if s.ship_good[i] >= 0 else None,
                "load": s.ship_load[i],
            }
            for i in range(len(s.ship_capacity))
        ],
        trading_house=[GOODS[g] for g in s.house],
        buildings_left=dict(s.buildings_left),
        draft_slots=dict(s.draft_slots),
        drafted=s.drafted[:],
        end_triggered=s.end_triggered,
        over=over,
        scores=[score_breakdown(p) for p in s.players] if over else None,
        progress=Progress(
            actor=s.actor,
            first_governor=s.first_governor,
            picks=s.picks,
            passes=s.passes,
            window_for=s.window_for,
            last_phase=s.last_phase,
            hacienda_used=s.hacienda_used,
            wharf_used=s.wharf_used[:],
            small_wharf_used=s.small_wharf_used[:],
            captain_shipped=s.captain_shipped,
            received={g: s.received[k] for k, g in enumerate(GOODS)},
            vp_paper=s.vp_paper,
        ),
    )


def redact(event: Any, seat: int | None) -> Any:
    t = type(event)
    if t is E.StackShuffled:
        return E.StackShuffled(size=event.size, order=None)
    if t is E.Settled and event.source == "forest":
        return E.Settled(
            seat=event.seat,
            source="forest",
            tile="forest",
            hospice=event.hospice,
            library=event.library,
        )
    if t is E.HaciendaDrawn and event.pending and seat != event.seat:
        return E.HaciendaDrawn(seat=event.seat, tile=None, pending=True)
    if t is E.HaciendaPlaced and event.as_forest:
        return E.HaciendaPlaced(seat=event.seat, tile=None, as_forest=True)
    return event
