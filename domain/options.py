"""A game's options from JSON, exact for the seats chosen: the one check the service (new
games), the command line (selfplay, duel) and tournaments all use."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.contract import Game, RuleError


def parse_options(game: Game[Any, Any], raw: Any, seats: int) -> Any:
    """`raw` (a JSON object) as `game.options_type`, checked for `seats` players.

    Raises RuleError: `invalid_options.seats` for a player count the game does not take (the
    code the games' own checks use),
    `invalid_options.unknown` for a key it has no option for (never silently ignored),
    `invalid_options` for a value of the wrong type, and the game's own
    `invalid_options.<what>` (`validate_options`) for a value or combination it refuses.
    """
    if not game.min_players <= seats <= game.max_players:
        raise RuleError(
            "invalid_options.seats",
            f"{game.name} seats {game.min_players}-{game.max_players} players, not {seats}",
        )
    if not isinstance(raw, dict):
        raise RuleError("invalid_options", "options are a JSON object")
    known = [field.encode_name for field in msgspec.structs.fields(game.options_type)]
    unknown = sorted(str(key) for key in raw if key not in known)
    if unknown:
        raise RuleError(
            "invalid_options.unknown",
            f"{game.name} has no option {', '.join(unknown)} (its options: {', '.join(known)})",
        )
    try:
        options = msgspec.convert(raw, game.options_type, strict=True)
    except msgspec.ValidationError as error:
        raise RuleError("invalid_options", f"options: {error}") from None
    game.validate_options(options, seats)
    return options
