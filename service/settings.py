"""Configuration from the environment: which store, where, and how the service behaves."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

import msgspec

from service.pg_recorder import TOPIC as RECORDER_TOPIC


class Rate(msgspec.Struct, frozen=True):
    """A token bucket: a burst of `count`, refilled at `count` per `seconds`."""

    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """`COUNT/SECONDS` (e.g. `20/60`); `off` or `0` for no limit."""
        if text.strip().lower() in ("off", "0", "none", ""):
            return None
        count, _, seconds = text.partition("/")
        rate = cls(int(count), float(seconds or "1"))
        if rate.count < 1 or rate.seconds <= 0:
            raise ValueError(f"a rate is COUNT/SECONDS with both above 0, not {text!r}")
        return rate


class Limits(msgspec.Struct, kw_only=True, frozen=True):
    """What one process lets a client have (docs: README, "Limits"). Built in code (the
    tests) there are no rate limits; `from_env` gives a public server's defaults."""

    register: Rate | None = None  # new players per client address
    per_key: Rate | None = None  # requests per API key
    bad_keys: Rate | None = None  # requests with a wrong API key per client address
    bot_games: Rate | None = None  # new games with a bot per player
    competition: Rate | None = None  # new challenges and seeks per player
    open_games: int = 0  # games not over in which a player sits (0: no cap)
    cache_mb: float = 256.0  # the game cache's size, by the deep size of its folds
    cache_games: int = 100_000  # and its count, a bound on its bookkeeping
    store_wait: float = 2.0  # seconds a request waits for a store connection
    statement_timeout: float = 5.0  # seconds a statement may run (and wait on a lock)
    queued: int = 64  # requests waiting for a worker thread before more are shed (503)

    @classmethod
    def from_env(cls) -> Limits:
        env = os.environ.get
        return cls(
            register=Rate.parse(env("TABLETOP_LIMIT_REGISTER", "20/60")),
            per_key=Rate.parse(env("TABLETOP_LIMIT_KEY", "3000/60")),
            bad_keys=Rate.parse(env("TABLETOP_LIMIT_BAD_KEYS", "10/60")),
            bot_games=Rate.parse(env("TABLETOP_LIMIT_BOT_GAMES", "10/60")),
            competition=Rate.parse(env("TABLETOP_LIMIT_COMPETITION", "30/60")),
            open_games=int(env("TABLETOP_LIMIT_OPEN_GAMES", "50")),
            cache_mb=float(env("TABLETOP_CACHE_MB", "256")),
            cache_games=int(env("TABLETOP_CACHE_GAMES", "100000")),
            store_wait=float(env("TABLETOP_STORE_WAIT", "2")),
            statement_timeout=float(env("TABLETOP_STATEMENT_TIMEOUT", "5")),
            queued=int(env("TABLETOP_QUEUED", "64")),
        )


class Settings(msgspec.Struct, kw_only=True):
    database_url: str | None = None  # postgresql://user:pass@host:port/db[?schema=s]
    # a hot standby of it, for history, exports and read-model lists (docs/operations.md)
    read_database_url: str | None = None
    sqlite_path: str = "tabletop.sqlite"
    create_tables: bool = True
    arbiters: frozenset[str] = frozenset()  # player ids allowed to audit running games
    log_json: bool | None = None  # None: JSON unless stderr is a terminal
    limits: Limits = Limits()
    # Origins whose browser pages may call the API ("*" for any); none: same origin only.
    cors_origins: tuple[str, ...] = ()
    stream_token_ttl_s: int = 300  # how long a stream token (POST /v1/stream-tokens) is valid

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            read_database_url=os.environ.get("TABLETOP_READ_DATABASE_URL") or None,
            sqlite_path=os.environ.get("TABLETOP_SQLITE", "tabletop.sqlite"),
            create_tables=os.environ.get("TABLETOP_CREATE_TABLES", "y").lower() in ("y", "1"),
            arbiters=frozenset(filter(None, os.environ.get("TABLETOP_ARBITERS", "").split(","))),
            limits=Limits.from_env(),
            cors_origins=tuple(
                filter(None, map(str.strip, os.environ.get("TABLETOP_CORS_ORIGINS", "").split(",")))
            ),
            stream_token_ttl_s=int(os.environ.get("TABLETOP_STREAM_TOKEN_TTL_S", "300")),
        )

    def standby(self) -> Settings | None:
        """The settings of the read-only standby, if one is set: tables never created."""
        if self.read_database_url is None:
            return None
        if self.database_url is None:
            raise ValueError("TABLETOP_READ_DATABASE_URL needs DATABASE_URL (Postgres)")
        return Settings(database_url=self.read_database_url, create_tables=False)

    def eventsourcing_env(self) -> dict[str, str]:
        """The `eventsourcing` library's own settings for this store."""
        env = {"CREATE_TABLE": "y" if self.create_tables else "n"}
        if self.database_url is None:
            env |= {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": self.sqlite_path,
                "SQLITE_LOCK_TIMEOUT": "10",
            }
            return env
        url = urlparse(self.database_url)
        if url.scheme not in ("postgres", "postgresql"):
            raise ValueError(f"DATABASE_URL must be postgresql://..., not {url.scheme}://")
        query = dict(part.split("=", 1) for part in url.query.split("&") if "=" in part)
        env |= {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": (url.path or "/").lstrip("/") or "postgres",
            "POSTGRES_HOST": url.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(url.port or 5432),
            "POSTGRES_USER": unquote(url.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(url.password or ""),
            "POSTGRES_POOL_SIZE": query.get("pool_size", "10"),
            "POSTGRES_MAX_OVERFLOW": query.get("max_overflow", "20"),
            # the longest wait for a pooled connection (the library's name for it); the
            # API's own store waits `store_wait` (service/store.py bound_waits)
            "POSTGRES_CONNECT_TIMEOUT": "5",
            # a save waits this long on the events table's lock, then fails (503)
            "POSTGRES_LOCK_TIMEOUT": str(max(1, round(self.limits.statement_timeout))),
            # one round trip per save, the log still gap-free (see service/pg_recorder.py)
            "APPLICATION_RECORDER_TOPIC": RECORDER_TOPIC,
        }
        if "schema" in query:
            env["POSTGRES_SCHEMA"] = query["schema"]
        return env
