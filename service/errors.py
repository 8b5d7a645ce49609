"""Refusals the service answers with, each with a stable code and an HTTP status.

The API turns them into application/problem+json; nothing is changed when one is raised.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError


class Problem(Exception):
    status = 400

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class Unauthorized(Problem):
    status = 401


class Forbidden(Problem):
    status = 403


class NotFound(Problem):
    status = 404


class Conflict(Problem):
    status = 409


class Unprocessable(Problem):
    status = 422


class Unavailable(Problem):
    status = 503


# What a store out of reach raises (the library's errors, or a bounded wait's 503).
STORE_DOWN = (OperationalError, InterfaceError, Unavailable)
