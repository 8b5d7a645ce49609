"""A game's options from JSON, exact for the seats chosen: the one check the service (new
games), the command line (selfplay, duel) and tournaments all use."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.contract import Game, RuleError
from domain.refusals import field_at


def parse_options(game: Game[Any, Any], raw: Any, seats: int) -> Any:
    """`raw` (a JSON object) as `game.options_type`, checked for `seats` players.

    Raises RuleError with a stable code:
    - `invalid_options.seats`: a player count the game does not take (the games' own code);
    - `invalid_options.unknown`: a key the game has no option for (never silently ignored);
    - `invalid_options`: a value of the wrong type;
    - the game's `invalid_options.<what>` (`validate_options`): a value, or a combination with
      the seats or other options, that it refuses.
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
            f"options.{unknown[0]}",
        )
    try:
        options = msgspec.convert(raw, game.options_type, strict=True)
    except msgspec.ValidationError as error:
        field, _ = field_at(str(error), "options")
        raise RuleError("invalid_options", f"options: {error}", field) from None
    game.validate_options(options, seats)
    return options
