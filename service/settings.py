"""Configuration from the environment: which store, where, and how the service behaves."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

import msgspec

from service.pg_recorder import TOPIC as RECORDER_TOPIC


class Settings(msgspec.Struct, kw_only=True):
    database_url: str | None = None  # postgresql://user:pass@host:port/db[?schema=s]
    # a hot standby of it, for history, exports and read-model lists (docs/operations.md)
    read_database_url: str | None = None
    sqlite_path: str = "tabletop.sqlite"
    create_tables: bool = True
    arbiters: frozenset[str] = frozenset()  # player ids allowed to audit running games
    log_json: bool | None = None  # None: JSON unless stderr is a terminal

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            read_database_url=os.environ.get("TABLETOP_READ_DATABASE_URL") or None,
            sqlite_path=os.environ.get("TABLETOP_SQLITE", "tabletop.sqlite"),
            create_tables=os.environ.get("TABLETOP_CREATE_TABLES", "y").lower() in ("y", "1"),
            arbiters=frozenset(filter(None, os.environ.get("TABLETOP_ARBITERS", "").split(","))),
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
            "POSTGRES_CONNECT_TIMEOUT": "5",
            # one round trip per save, the log still gap-free (see service/pg_recorder.py)
            "APPLICATION_RECORDER_TOPIC": RECORDER_TOPIC,
        }
        if "schema" in query:
            env["POSTGRES_SCHEMA"] = query["schema"]
        return env
