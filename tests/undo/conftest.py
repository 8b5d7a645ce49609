"""The takeback tests use the service tests' fixtures: a store of their own on the real
Postgres, a fake server clock, the game service and a registered player."""

from tests.service.conftest import ada, clock, service, store

__all__ = ["ada", "clock", "service", "store"]
