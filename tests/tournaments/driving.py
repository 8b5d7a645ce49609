"""Driving a tournament in a test: the director moves it on (`TournamentService.advance`,
what the timekeeper runs each tick), and the bot runner plays its tables' bots after the
commits that leave them awaited, so a tournament of bots advances over time, not in one
call. `play` alternates the two, waiting on the games themselves (the adapter's
`settled`), until the tournament is over or only people are awaited at its tables."""

from __future__ import annotations

from uuid import UUID

from service.fold import Fold
from service.tournament_log import Folded
from service.tournaments import TournamentService
from tests.support.games import GameService

ROUNDS = 200  # director passes at most: far more than any tournament here has rounds
TABLE_S = 120.0  # seconds a table's bots may take to play it out


def running_tables(t: Folded) -> list[UUID]:
    """The games of the current round whose results are not recorded yet."""
    if t.state.status != "running" or not t.state.rounds:
        return []
    return [UUID(table.game) for table in t.state.rounds[-1].tables if table.ranks is None]


def settle_tables(games: GameService, t: Folded) -> list[Fold]:
    """The current round's running games, once no bot is to move in any of them."""
    return [games.settled(game_id, TABLE_S) for game_id in running_tables(t)]


def play(tournaments: TournamentService, games: GameService, tid: UUID) -> Folded:
    """Advance the tournament while its bots can play it: finished, or running with every
    unrecorded table awaiting a person."""
    for _ in range(ROUNDS):
        t = tournaments.advance(tid)
        if t.state.status != "running":
            return t
        tables = settle_tables(games, t)
        if not any(fold.over for fold in tables):
            return t  # nothing to record: people are to move
    raise AssertionError(f"the tournament {tid} did not end in {ROUNDS} passes")
