"""Per-seat and public views and event redaction: hidden information stops here (R11, R24).

Hidden while the game runs: the stack order (only its size is shown), the identity of forests,
a hacienda tile awaiting `hacienda_place` (its drawer sees it), and every other player's VP
total. Once the game is over the view shows everything.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.puerto_rico import events as E
from domain.puerto_rico.board import score_breakdown
from domain.puerto_rico.data import GOODS, ISLAND
from domain.puerto_rico.state import Options, State


class PlayerView(msgspec.Struct, kw_only=True):
    seat: int
    doubloons: int
    vp: int | None  # None: secret (R24)
    goods: dict[str, int]
    tiles: dict[str, int]
    occupied: dict[str, int]
    forests: int
    forest_tiles: list[str] | None  # identities, only once the game is over
    buildings: dict[str, int]
    san_juan: int
    doubling_role: str | None  # the role the library doubles this round (2p option)


class Progress(msgspec.Struct, kw_only=True):
    """Where the round stands, as the rules count it (public: the seats saw it happen)."""

    actor: int  # the seat of the step (-1: none, or every seat of a guest window)
    first_governor: int
    picks: int  # roles picked this round
    passes: int  # consecutive passes in the captain phase
    window_for: E.WindowFor  # what a guest window comes before ("": none yet)
    last_phase: str  # the phase that ended last
    hacienda_used: bool  # this settler turn
    wharf_used: list[bool]  # per seat, this captain phase
    small_wharf_used: list[bool]
    captain_shipped: bool  # the captain's privilege was granted
    received: dict[str, int]  # the craftsman phase's produced goods, per good
    vp_paper: int  # VP awarded beyond the chip supply


class GameView(msgspec.Struct, kw_only=True):
    viewer: int | None
    seats: int
    options: Options
    phase: str
    step: str
    awaiting: list[int]
    round: int
    governor: int
    chooser: int
    role: str
    roles: dict[str, int]
    picked: list[str]
    players: list[PlayerView]
    row: list[str]
    discard: list[str]
    stack_size: int
    stack: list[str] | None  # top first, only once the game is over
    hacienda_tile: str | None  # the drawer's secret tile awaiting hacienda_place
    quarries: int
    supply: dict[str, int]
    colonists: int
    colonist_ship: int
    vp_supply: int
    ships: list[dict[str, Any]]
    trading_house: list[str]
    buildings_left: dict[str, int]
    draft_slots: dict[int, int]
    drafted: list[str]
    end_triggered: bool
    over: bool
    scores: list[dict[str, int]] | None
    progress: Progress


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
