"""Whose eyes a read of a game looks through. By default the caller's: its seat's view (the
public one for spectators) while the game runs, everything once it is over. A finished or
aborted game may also be seen as any seat saw it (`seat`) by anyone, as the replays and the
viewer's perspectives need; while it runs, only one's own seat may be asked for."""

from __future__ import annotations

import msgspec

from api import schemas as s
from service.errors import Forbidden, Unprocessable
from service.fold import Fold
from service.reads import GameReads


def seat_asked(fold: Fold, caller_seat: int | None, seat: int | None) -> int | None:
    """The seat a read shows: `seat` when it may be shown, else the caller's; raises 403 for
    another seat of a running game and 422 for a seat the game does not have."""
    if seat is None:
        return caller_seat
    if not 0 <= seat < fold.seats:
        raise Unprocessable("invalid_seat", f"seat must be in 0..{fold.seats - 1}")
    if not fold.over and seat != caller_seat:
        raise Forbidden("not_your_seat", "a running game is seen only from your own seat")
    return seat


def replay_out(
    games: GameReads, fold: Fold, caller_seat: int | None, version: int, seat: int | None
) -> s.ReplayOut:
    """GET .../replay: the view at `version` (the caller's, or `seat`'s once finished) and,
    once the game is finished, the whole state."""
    shown = seat_asked(fold, caller_seat, seat)
    past = games.replay(fold, version)
    finished = fold.over
    if finished and seat is None:
        shown = None  # as before `seat` existed: the public view at that version
    return s.ReplayOut(
        game=fold.game.name,
        version=past.version,
        status=past.status,
        awaiting=past.awaiting(),
        view=games.view(past, shown),
        state=msgspec.to_builtins(past.state) if finished else None,
    )
