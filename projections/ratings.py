"""Ratings: every rated finished game moves its players' OpenSkill ratings for that game
type (Weng-Lin, Plackett-Luce, from the `openskill` package), with the final ranks and
their ties; a forfeit ranks last already in the result. Bots are rated under their own
names (`bot:greedy`), so a newcomer can measure themselves against them; a game with two
seats of one bot moves that bot by the mean of both seats' updates.

Games are rated in log order, so a rebuild of the read model recomputes every rating bit
for bit. The leaderboard ranks by the conservative ordinal, mu - 3 sigma.
"""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

from service.fold import Fold

MODEL = PlackettLuce()


def participant(fold: Fold, seat: int) -> tuple[str, str]:
    """(rating identity, name shown) of a seat: its player, or the bot by name."""
    player = fold.players[seat]
    if player is not None:
        return player, fold.names[seat] or player
    bot = fold.bots.get(seat, "random")
    return f"bot:{bot}", f"{bot} bot"


class Ratings:
    """The current ratings, as the projection has applied them (loaded from the read model
    on first use; forgotten when a write fails, since it may not have committed)."""

    def __init__(self, load: Any) -> None:
        self._load = load  # (game, participant) -> (mu, sigma, games) | None
        self._known: dict[tuple[str, str], tuple[float, float, int]] = {}

    def forget(self) -> None:
        self._known.clear()

    def current(self, game: str, who: str) -> tuple[float, float, int]:
        key = (game, who)
        if key not in self._known:
            self._known[key] = self._load(game, who) or (MODEL.mu, MODEL.sigma, 0)
        return self._known[key]

    def rate(self, fold: Fold) -> list[dict[str, Any]]:
        """The new rating of each participant of a finished rated game (applied here)."""
        assert fold.result is not None
        game = fold.game.name
        seats = [participant(fold, s) for s in range(fold.seats)]
        teams = []
        for who, _ in seats:
            mu, sigma, _ = self.current(game, who)
            teams.append([MODEL.create_rating([mu, sigma], name=who)])
        after = MODEL.rate(teams, ranks=[float(r) for r in fold.result.ranks])
        moved: dict[str, list[tuple[float, float]]] = {}
        for (who, _), team in zip(seats, after, strict=True):
            moved.setdefault(who, []).append((team[0].mu, team[0].sigma))
        names = dict(seats)
        rows = []
        for who, values in moved.items():
            mu = sum(v[0] for v in values) / len(values)
            sigma = sum(v[1] for v in values) / len(values)
            games = self.current(game, who)[2] + 1
            self._known[(game, who)] = (mu, sigma, games)
            rows.append(
                {"game": game, "participant": who, "name": names[who], "mu": mu,
                 "sigma": sigma, "ordinal": mu - 3 * sigma, "games": games}
            )  # fmt: skip
        return rows
