"""Ratings: every rated finished game moves its players' OpenSkill ratings for that game
type (Weng-Lin, Plackett-Luce, from the `openskill` package), with the final ranks and
their ties; a forfeit ranks last already in the result. Bots are rated under their full
spec (`bot:greedy`, `bot:mcts:playouts=64`: `bot_identity` spells aliases one way), so a
newcomer can measure themselves against each setting of a bot; a game with two seats of
one bot moves that bot by the mean of both seats' updates.

The order is the transparency log's (docs/ratings.md). A game is rated when its
`game_finished` is applied, and the projection applies events in notification order (a
batch's rated games sorted by that position), so games are rated in the order of the
notification ids of their endings. The log's leaves are every ending (`game_finished`,
`game_aborted`, `tournament_finished`) in that same order (service/transparency.py reads
the notifications after its last leaf's position and appends each ending found). The store
makes notification ids visible only in order (service/pg_recorder.py keeps the table lock;
SQLite has one writer), so neither skips one and the rated games come in leaf order: the
ratings are the fold of the log's rated leaves, which `tabletop ratings recompute`
(projections/ratings_recompute.py) reproduces from the log and the exports alone, bit for bit
(tests/ratings). A rebuild of the read model recomputes them the same way.

The leaderboard ranks by the conservative ordinal, mu - 3 sigma. A rating is provisional
while sigma is above PROVISIONAL_SIGMA.
"""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

from service.fold import Fold

MODEL = PlackettLuce()
# A rating is provisional while its sigma is above this: about the first 10 rated games
# against settled opponents, as Lichess marks a Glicko rating while its deviation is above
# 110 (which takes about 10 games from 350). The ratio 110/350 of OpenSkill's 25/3 (2.62)
# would take some 56 two-seat games, since an OpenSkill game tells less than a Glicko one
# (docs/ratings.md has the figures).
PROVISIONAL_SIGMA = 5.0
BOT = "bot:"
# The parameters of an mcts bot by alias (domain/bots.py), in the order the canonical form
# lists them.
_MCTS_KEYS = {"playouts": "playouts", "p": "playouts", "ms": "ms", "rollout": "rollout",
              "r": "rollout", "horizon": "horizon", "h": "horizon"}  # fmt: skip
_MCTS_ORDER = ("playouts", "ms", "rollout", "horizon")


def provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def bot_identity(spec: str) -> str:
    """A bot spec as one rating identity: `mcts:p=64` and `mcts:playouts=64` are one bot,
    spelt `mcts:playouts=64` (long keys, in a fixed order, numbers without leading zeros);
    `mcts` and `mcts:playouts=16` stay two (what a spec leaves out is the default of its
    day, which may change). The meaning of a spec is domain/bots.py's; a spec this cannot
    read is kept as it is."""
    name, colon, params = spec.strip().partition(":")
    if not colon or name != "mcts":
        return spec.strip()
    values: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, raw = item.partition("=")
        field = _MCTS_KEYS.get(key.strip())
        if field is None or not eq or field in values:
            return spec.strip()
        raw = raw.strip()
        values[field] = str(int(raw)) if raw.isascii() and raw.isdigit() else raw
    if not values:
        return name
    return name + ":" + ",".join(f"{k}={values[k]}" for k in _MCTS_ORDER if k in values)


def canonical(participant_id: str) -> str:
    """A participant id as the ratings key it: a bot's by `bot_identity`, a player's as is."""
    if participant_id.startswith(BOT):
        return BOT + bot_identity(participant_id.removeprefix(BOT))
    return participant_id


def participant(fold: Fold, seat: int) -> tuple[str, str]:
    """(rating identity, name shown) of a seat: its player, or the bot by its full spec."""
    player = fold.players[seat]
    if player is not None:
        return player, fold.names[seat] or player
    bot = bot_identity(fold.bots.get(seat, "random"))
    return f"{BOT}{bot}", f"{bot} bot"


class Ratings:
    """The current ratings, as the projection has applied them (loaded from the read model
    on first use; forgotten when a write fails, since it may not have committed). The
    recompute uses it too, with nothing to load: one piece of arithmetic for both."""

    def __init__(self, load: Any) -> None:
        self._load = load  # (game, participant) -> (mu, sigma, games) | None
        self._known: dict[tuple[str, str], tuple[float, float, int]] = {}
        self.names: dict[tuple[str, str], str] = {}  # the name each was rated under last

    def forget(self) -> None:
        self._known.clear()
        self.names.clear()

    def current(self, game: str, who: str) -> tuple[float, float, int]:
        key = (game, who)
        if key not in self._known:
            self._known[key] = self._load(game, who) or (MODEL.mu, MODEL.sigma, 0)
        return self._known[key]

    def known(self) -> dict[tuple[str, str], tuple[float, float, int]]:
        """Every rating applied or loaded so far, by (game, participant)."""
        return dict(self._known)

    def rate(self, fold: Fold) -> list[dict[str, Any]]:
        """The new rating of each participant of a finished rated game (applied here), with
        its `change`: the ordinal after less the ordinal before."""
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
            before_mu, before_sigma, played = self.current(game, who)
            games = played + 1
            self._known[(game, who)] = (mu, sigma, games)
            self.names[(game, who)] = names[who]
            rows.append(
                {"game": game, "participant": who, "name": names[who], "mu": mu,
                 "sigma": sigma, "ordinal": ordinal(mu, sigma), "games": games,
                 "change": ordinal(mu, sigma) - ordinal(before_mu, before_sigma)}
            )  # fmt: skip
        return rows
