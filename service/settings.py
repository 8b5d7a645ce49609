"""Configuration from the environment: which store, where, and how the service behaves."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlparse

import msgspec
from eventsourcing.postgres import PostgresFactory
from eventsourcing.utils import Environment, EnvType

from service.pg_recorder import TOPIC as RECORDER_TOPIC

# The URL's libpq parameters that choose among its hosts, and their values: which host a
# connection settles on, and whether they are tried in the URL's order or at random.
HOST_CHOICE = {
    "target_session_attrs": (
        "any", "read-write", "read-only", "primary", "standby", "prefer-standby"
    ),
    "load_balance_hosts": ("disable", "random"),
}  # fmt: skip


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
    # postgresql://user:pass@host:port/db[?schema=s]; several hosts, host1:port1,host2:port2,
    # with target_session_attrs=read-write: whichever accepts writes (docs/operations.md)
    database_url: str | None = None
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
        url = self.read_database_url
        # reads only: any server will do, whatever PGTARGETSESSIONATTRS asks of the primary's
        if "target_session_attrs=" not in url:
            url += ("&" if "?" in url else "?") + "target_session_attrs=any"
        return Settings(database_url=url, create_tables=False)

    def connect_args(self) -> dict[str, Any]:
        """(Postgres) psycopg's arguments naming the store (hosts, the choice among them, the
        database and who connects), for a connection of a process's own; the caller adds
        its timeouts (CONNECT_TIMEOUT and KEEPALIVES, as the pool's connections have)."""
        env = self.eventsourcing_env()
        args: dict[str, Any] = {
            "host": env["POSTGRES_HOST"],
            "port": env["POSTGRES_PORT"],
            "dbname": env["POSTGRES_DBNAME"],
            "user": env["POSTGRES_USER"],
            "password": env["POSTGRES_PASSWORD"],
        }
        for name in HOST_CHOICE:
            if _env_key(name) in env:
                args[name] = env[_env_key(name)]
        return args

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
        userinfo, _, hostlist = url.netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        hosts = [_host_port(h) for h in hostlist.split(",")]
        env |= {
            "PERSISTENCE_MODULE": FACTORY_TOPIC,
            "POSTGRES_DBNAME": (url.path or "/").lstrip("/") or "postgres",
            # libpq's lists, tried in turn (in order, or at random: load_balance_hosts)
            "POSTGRES_HOST": ",".join(host for host, _ in hosts),
            "POSTGRES_PORT": ",".join(port for _, port in hosts),
            "POSTGRES_USER": unquote(user or "postgres"),
            "POSTGRES_PASSWORD": unquote(password),
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
        for name, values in HOST_CHOICE.items():
            if name in query:
                value = unquote(query[name])
                if value not in values:
                    raise ValueError(f"DATABASE_URL: {name} is one of {values}, not {value!r}")
                env[_env_key(name)] = value
        return env


def _host_port(text: str) -> tuple[str, str]:
    """`host`, `host:port`, `[v6]` or `[v6]:port` of a URL's host list."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = text.partition(":")
    if port and not port.isdigit():
        raise ValueError(f"DATABASE_URL: a port is a number, not {port!r}")
    return unquote(host) or "127.0.0.1", port or "5432"


# TCP keepalives for every connection to the store: one to a host that vanished without a word
# (powered off, cut off: no reset ever comes) is found dead within a minute when idle (a
# LISTEN, a role lock's wait) and within 30 s with data unanswered, instead of never.
KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,  # ms: unacknowledged data on a dead route
}
CONNECT_TIMEOUT = 5  # seconds for each of the URL's hosts (libpq's own default is forever)


def _env_key(name: str) -> str:
    """Our key in the library's environment for a libpq parameter of HOST_CHOICE (the
    library builds its pool's connection arguments from a fixed list of keys of its own)."""
    return f"POSTGRES_{name.upper()}"


class TargetedPostgresFactory(PostgresFactory):
    """The library's Postgres factory, whose pool's connections also carry the URL's
    target_session_attrs and load_balance_hosts: every connection of the store, of its
    subscriptions (LISTEN) and of the read models built on it then settles on the host the
    URL asks for, the primary after a failover (service/loop_writer.py own_connection copies
    the pool's arguments). They also give up connecting to a host after CONNECT_TIMEOUT (the
    next host is tried) and carry KEEPALIVES: the library sets neither, so a connection to
    a host that went dark would wait for TCP's own retries (minutes), or for ever."""

    def __init__(self, env: Environment | EnvType | None) -> None:
        super().__init__(env)
        kwargs = self.datastore.pool.kwargs
        assert isinstance(kwargs, dict), "the library's pool is built from keyword arguments"
        kwargs.update(KEEPALIVES, connect_timeout=CONNECT_TIMEOUT)
        for name in HOST_CHOICE:  # the pool opens on its first use, after this
            value = self.env.get(_env_key(name))
            if value:
                kwargs[name] = value


FACTORY_TOPIC = f"{__name__}:{TargetedPostgresFactory.__name__}"
