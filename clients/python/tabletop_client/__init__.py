"""Tabletop's API v1 for programs that play: `Client` (over httpx) and, in
`tabletop_client.models`, every answer and every game's commands, views and events as
msgspec structs generated from the server's OpenAPI document."""

from tabletop_client import models
from tabletop_client.client import ApiError, Client, game_of

__all__ = ["ApiError", "Client", "game_of", "models"]
