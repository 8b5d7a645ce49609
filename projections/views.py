"""The games read model: the library's tracking recorders (Postgres and SQLite) extended
with our tables, so that the read-model rows and the tracked position of the event log are
written in one transaction (each event applied exactly once).

Tables: `rm_games` (one row per game: its summary, and `seq`, the notification id of its
creation, which orders the lists newest first and keys the cursors) and `rm_seats` (one row
per seat a player holds: the player's history), and beside them the indexes, notices,
ratings, tournaments, challenges and seeks below. The SQL is shared; only the placeholders,
table qualification and types differ between the two stores.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec
from eventsourcing.persistence import ApplicationRecorder, Mapper, Tracking, TrackingRecorder
from eventsourcing.postgres import (
    PostgresApplicationRecorder,
    PostgresDatastore,
    PostgresTrackingRecorder,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL

from projections.notices import Notice
from projections.notices import encode as encode_notice
from projections.ratings import PROVISIONAL_SIGMA
from projections.summary import GameSummary, encode, seat_rows
from service.store import EventStoreApp, MsgspecTranscoder

NAME = "games"  # the projection's name: its tracking table and environment prefix
TRACKING_TABLE = f"{NAME}_tracking"

_DDL = [
    "CREATE TABLE IF NOT EXISTS {games} ("
    " game_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, game TEXT NOT NULL,"
    " status TEXT NOT NULL, version INTEGER NOT NULL, last_activity TEXT NOT NULL,"
    " applied INTEGER NOT NULL, summary TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rm_games_seq ON {games} (seq)",
    "CREATE INDEX IF NOT EXISTS rm_games_game_seq ON {games} (game, seq)",
    "CREATE INDEX IF NOT EXISTS rm_games_status_seq ON {games} (status, seq)",
    "CREATE TABLE IF NOT EXISTS {seats} ("
    " game_id TEXT NOT NULL, seat INTEGER NOT NULL, player_id TEXT NOT NULL,"
    " game TEXT NOT NULL, seq BIGINT NOT NULL, status TEXT NOT NULL,"
    " rank INTEGER, score INTEGER, PRIMARY KEY (game_id, seat))",
    "CREATE INDEX IF NOT EXISTS rm_seats_player ON {seats} (player_id, seq)",
    # The timekeeper's index: each running game's next deadline (us since the epoch).
    "CREATE TABLE IF NOT EXISTS {deadlines} (game_id TEXT PRIMARY KEY, deadline BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rm_deadlines_deadline ON {deadlines} (deadline)",
    # The bot runner's index: each running game that awaits a bot, since when (us).
    "CREATE TABLE IF NOT EXISTS {bot_turns} (game_id TEXT PRIMARY KEY, since BIGINT NOT NULL)",
    # What each player is told (projections/notices.py); ids follow the log.
    "CREATE TABLE IF NOT EXISTS {notices} ("
    " id BIGINT PRIMARY KEY, player_id TEXT NOT NULL, game_id TEXT NOT NULL,"
    " kind TEXT NOT NULL, body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rm_notices_player ON {notices} (player_id, id)",
    # Ratings per game type (projections/ratings.py) and each rated game's new values.
    "CREATE TABLE IF NOT EXISTS {ratings} ("
    " game TEXT NOT NULL, participant TEXT NOT NULL, name TEXT NOT NULL,"
    " mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,"
    " ordinal DOUBLE PRECISION NOT NULL, games INTEGER NOT NULL,"
    " PRIMARY KEY (game, participant))",
    "CREATE INDEX IF NOT EXISTS rm_ratings_board ON {ratings} (game, ordinal)",
    # One row per participant and rated game: its rating after the game, `seq` the position
    # of the game's ending (its order in the transparency log), `ended_at` that event's time,
    # `change` the ordinal after less the ordinal before, `games` the rated games by then.
    "CREATE TABLE IF NOT EXISTS {history} ("
    " participant TEXT NOT NULL, game TEXT NOT NULL, game_id TEXT NOT NULL, seq BIGINT NOT NULL,"
    " mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,"
    " ordinal DOUBLE PRECISION NOT NULL, ended_at TEXT NOT NULL,"
    " change DOUBLE PRECISION NOT NULL, games INTEGER NOT NULL,"
    " PRIMARY KEY (participant, game_id))",
    "CREATE INDEX IF NOT EXISTS rm_rating_history_pages ON {history} (participant, game, seq)",
    "CREATE TABLE IF NOT EXISTS {tournaments} ("
    " tournament_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, status TEXT NOT NULL,"
    " summary TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rm_tournaments_seq ON {tournaments} (seq)",
    # Challenges (projections/competition.py): a row per challenge and player in it (the
    # challenger and each challenged), `seq` the position of its creation, `summary` its
    # JSON (service/challenges.py summary): a player's list is one indexed range.
    "CREATE TABLE IF NOT EXISTS {challenges} ("
    " challenge_id TEXT NOT NULL, player_id TEXT NOT NULL, seq BIGINT NOT NULL,"
    " status TEXT NOT NULL, summary TEXT NOT NULL, PRIMARY KEY (challenge_id, player_id))",
    "CREATE INDEX IF NOT EXISTS rm_challenges_player ON {challenges} (player_id, seq)",
    # Seeks: one row each; `fill_at` (us) only while it is open with a bot-fill time, so
    # the timekeeper finds the pools due with one indexed range.
    "CREATE TABLE IF NOT EXISTS {seeks} ("
    " seek_id TEXT PRIMARY KEY, player_id TEXT NOT NULL, seq BIGINT NOT NULL,"
    " status TEXT NOT NULL, pool_id TEXT NOT NULL, fill_at BIGINT, summary TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rm_seeks_player ON {seeks} (player_id, seq)",
    "CREATE INDEX IF NOT EXISTS rm_seeks_player_status ON {seeks} (player_id, status, seq)",
    "CREATE INDEX IF NOT EXISTS rm_seeks_fill ON {seeks} (fill_at)",
]
_TABLES = (
    "seats",
    "games",
    "deadlines",
    "bot_turns",
    "notices",
    "ratings",
    "history",
    "tournaments",
    "challenges",
    "seeks",
)
_NAMES = {t: f"rm_{t}" for t in _TABLES} | {"history": "rm_rating_history", "meta": "rm_meta"}
# What these tables hold and how: a read model built by another version is dropped when a
# process creates the tables, and the runner rebuilds it from the log (a rebuild is the only
# migration). Bump it with any change to a table or to what its rows say. (1: before it was
# kept; 2: ratings by bot spec, rating history with its time, change and games; 3:
# challenges, seeks and their notices.)
READ_MODEL_VERSION = 3


class Extra:
    """What a batch writes beside the games: new ratings, rating history, tournaments,
    challenges and seeks (projections/competition.py) and their notices."""

    def __init__(self) -> None:
        self.ratings: list[dict[str, Any]] = []
        self.history: list[dict[str, Any]] = []
        self.tournaments: list[dict[str, Any]] = []
        # (challenge id, player id, seq, status, summary JSON)
        self.challenges: list[tuple[str, str, int, str, str]] = []
        # (seek id, player id, seq, status, pool id, fill_at us or None, summary JSON)
        self.seeks: list[tuple[str, str, int, str, str, int | None, str]] = []
        self.notices: list[Notice] = []


# `applied` counts the events applied to the row; it equals `version` when each event was
# applied exactly once (the crash test checks it).
_UPSERT_GAME = (
    "INSERT INTO {games} AS g"
    " (game_id, seq, game, status, version, last_activity, applied, summary)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET"
    " status = excluded.status, version = excluded.version,"
    " last_activity = excluded.last_activity, applied = g.applied + excluded.applied,"
    " summary = excluded.summary"
)
_INSERT_SEAT = (
    "INSERT INTO {seats} (game_id, seat, player_id, game, seq, status, rank, score)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


class GameWrite:
    """One game's new summary, whether its seat rows (players, status, result) change, its
    next deadline, since when it awaits a bot, and the notices its events caused."""

    __slots__ = (
        "bot_since",
        "deadline",
        "events",
        "had_bot_turn",
        "had_deadline",
        "notices",
        "seats_changed",
        "seq",
        "summary",
    )

    def __init__(self, summary: GameSummary, seq: int, seats_changed: bool, events: int) -> None:
        self.summary, self.seq, self.seats_changed = summary, seq, seats_changed
        self.events = events  # how many of the batch's events this write applies
        self.deadline: int | None = None
        self.bot_since: int | None = None
        # whether its rows in the indexes may be there (False: no DELETE to send)
        self.had_deadline = self.had_bot_turn = True
        self.notices: list[Notice] = []


class GamesView(TrackingRecorder):
    """The read model's queries and writes, over either store (mixed into the library's
    tracking recorder of that store)."""

    datastore: Any
    tables: dict[str, str]  # our tables by role, qualified
    # Run first in each write transaction (Postgres: no wait for the WAL flush).
    write_preamble: tuple[str, ...] = ()

    @property
    def games(self) -> str:
        return self.tables["games"]

    def _sql(self, text: str) -> str:
        return text.format(**self.tables)

    @contextmanager
    def _cursor(self, commit: bool) -> Iterator[Any]:
        with self.datastore.transaction(commit=commit) as cursor:
            yield cursor

    # ---- writes: the rows and the tracked position in one transaction -------------------

    def write(
        self, writes: Sequence[GameWrite], tracking: Tracking, extra: Extra | None = None
    ) -> None:
        """One statement per kind of row for the whole batch (executemany pipelines them on
        Postgres): round trips, not rows, are what a busy process waits on."""
        games = [
            (s.id, w.seq, s.game, s.status, s.version, s.last_activity, w.events,
             encode(s).decode())
            for w in writes
            for s in (w.summary,)
        ]  # fmt: skip
        changed = [w for w in writes if w.seats_changed]
        seats = [
            (w.summary.id, r["seat"], r["player_id"], w.summary.game, w.seq, w.summary.status,
             r["rank"], r["score"])
            for w in changed
            for r in seat_rows(w.summary)
        ]  # fmt: skip
        with self._cursor(commit=True) as c:
            for statement in self.write_preamble:
                c.execute(statement)
            if games:
                c.executemany(self._sql(_UPSERT_GAME), games)
            if changed:
                delete = self._sql("DELETE FROM {seats} WHERE game_id = ?")
                c.executemany(delete, [(w.summary.id,) for w in changed])
            if seats:
                c.executemany(self._sql(_INSERT_SEAT), seats)
            self._write_clocks_and_notices(c, writes)
            if extra is not None:
                self._write_extra(c, extra)
            self._insert_tracking(c, tracking)

    def _write_extra(self, c: Any, extra: Extra) -> None:
        if extra.ratings:
            c.executemany(
                self._sql(
                    "INSERT INTO {ratings} (game, participant, name, mu, sigma, ordinal, games)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game, participant) DO UPDATE SET"
                    " name = excluded.name, mu = excluded.mu, sigma = excluded.sigma,"
                    " ordinal = excluded.ordinal, games = excluded.games"
                ),
                [
                    (r["game"], r["participant"], r["name"], r["mu"], r["sigma"], r["ordinal"],
                     r["games"])
                    for r in extra.ratings
                ],
            )  # fmt: skip
        if extra.history:
            c.executemany(
                self._sql(
                    "INSERT INTO {history} (participant, game, game_id, seq, mu, sigma, ordinal,"
                    " ended_at, change, games) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                [
                    (r["participant"], r["game"], r["game_id"], r["seq"], r["mu"], r["sigma"],
                     r["ordinal"], r["at"], r["change"], r["games"])
                    for r in extra.history
                ],
            )  # fmt: skip
        if extra.tournaments:
            c.executemany(
                self._sql(
                    "INSERT INTO {tournaments} (tournament_id, seq, status, summary)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT (tournament_id) DO UPDATE SET"
                    " status = excluded.status, summary = excluded.summary"
                ),
                [(t["id"], t["seq"], t["status"], t["summary"]) for t in extra.tournaments],
            )
        self._write_competition(c, extra)

    def _write_competition(self, c: Any, extra: Extra) -> None:
        """Challenges' and seeks' rows (a row's `seq` stays its creation's) and notices."""
        if extra.challenges:
            c.executemany(
                self._sql(
                    "INSERT INTO {challenges} (challenge_id, player_id, seq, status, summary)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (challenge_id, player_id) DO UPDATE SET"
                    " status = excluded.status, summary = excluded.summary"
                ),
                extra.challenges,
            )
        if extra.seeks:
            c.executemany(
                self._sql(
                    "INSERT INTO {seeks} (seek_id, player_id, seq, status, pool_id, fill_at,"
                    " summary) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (seek_id) DO UPDATE SET"
                    " status = excluded.status, fill_at = excluded.fill_at,"
                    " summary = excluded.summary"
                ),
                extra.seeks,
            )
        if extra.notices:
            c.executemany(
                self._sql(
                    "INSERT INTO {notices} (id, player_id, game_id, kind, body)"
                    " VALUES (?, ?, ?, ?, ?)"
                ),
                [(n.id, n.player, n.game, n.kind, encode_notice(n).decode())
                 for n in extra.notices],
            )  # fmt: skip

    def _index(
        self, c: Any, table: str, column: str, rows: list[tuple[str, int | None, bool]]
    ) -> None:
        """One of the games' indexes (`table`: game id -> `column`): a row per game that
        has a value, none for a game without one (removed where it may have had one)."""
        gone = [(game,) for game, value, had in rows if value is None and had]
        kept = [(game, value) for game, value, _ in rows if value is not None]
        if gone:
            c.executemany(self._sql(f"DELETE FROM {{{table}}} WHERE game_id = ?"), gone)
        if kept:
            c.executemany(
                self._sql(
                    f"INSERT INTO {{{table}}} (game_id, {column}) VALUES (?, ?)"
                    f" ON CONFLICT (game_id) DO UPDATE SET {column} = excluded.{column}"
                ),
                kept,
            )

    def _write_clocks_and_notices(self, c: Any, writes: Sequence[GameWrite]) -> None:
        deadlines = [(w.summary.id, w.deadline, w.had_deadline) for w in writes]
        self._index(c, "deadlines", "deadline", deadlines)
        bot_turns = [(w.summary.id, w.bot_since, w.had_bot_turn) for w in writes]
        self._index(c, "bot_turns", "since", bot_turns)
        told = [
            (n.id, n.player, n.game, n.kind, encode_notice(n).decode())
            for w in writes
            for n in w.notices
        ]
        if told:
            c.executemany(
                self._sql(
                    "INSERT INTO {notices} (id, player_id, game_id, kind, body)"
                    " VALUES (?, ?, ?, ?, ?)"
                ),
                told,
            )

    def reset(self, application_name: str) -> None:
        """Drop the read model and forget the tracked position: the next run starts at 0."""
        with self._cursor(commit=True) as c:
            for table in _TABLES:
                c.execute(self._sql(f"DROP TABLE IF EXISTS {{{table}}}"))
            c.execute(
                f"DELETE FROM {self._tracking_table()} WHERE application_name = " + self._sql("?"),
                (application_name,),
            )
            for statement in _DDL:
                c.execute(self._sql(statement))

    def _tracking_table(self) -> str:
        raise NotImplementedError

    meta_lock: tuple[str, ...] = ()  # (Postgres) one process at a time checks the version

    def _drop_if_built_otherwise(self) -> None:
        """(Before the tables are created.) Drop the read model and its tracked position when
        another READ_MODEL_VERSION built it (or one from before versions were kept): the
        runner then rebuilds it from the log. `rm_meta` (name -> value) keeps the version."""
        meta = self.tables["meta"]
        with self._cursor(commit=True) as c:
            c.execute(
                f"CREATE TABLE IF NOT EXISTS {meta} (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            for statement in self.meta_lock:
                c.execute(statement.format(meta=meta))
            c.execute(f"SELECT value FROM {meta} WHERE name = 'version'")
            row = c.fetchone()
            if row is not None and str(row["value"]) == str(READ_MODEL_VERSION):
                return
            for table in _TABLES:
                c.execute(self._sql(f"DROP TABLE IF EXISTS {{{table}}}"))
            c.execute(f"DROP TABLE IF EXISTS {self._tracking_table()}")
            c.execute(f"DELETE FROM {meta} WHERE name = 'version'")
            c.execute(
                self._sql(f"INSERT INTO {meta} (name, value) VALUES ('version', ?)"),
                (str(READ_MODEL_VERSION),),
            )

    if TYPE_CHECKING:  # given by the store's tracking recorder, after this class in the MRO

        def create_table(self) -> None: ...

        def _insert_tracking(self, cursor: Any, tracking: Tracking) -> None: ...

    # ---- reads --------------------------------------------------------------------------

    def seq_of(self, game_id: str) -> int | None:
        with self._cursor(commit=False) as c:
            c.execute(self._sql("SELECT seq FROM {games} WHERE game_id = ?"), (game_id,))
            row = c.fetchone()
        return None if row is None else int(row["seq"])

    def list_games(
        self,
        game: str | None,
        status: str | None,
        player: str | None,
        before: int | None,
        limit: int,
    ) -> list[tuple[int, bytes]]:
        """(seq, summary JSON) newest first, created before `before` (keyset pagination)."""
        return self._newest(
            "SELECT g.seq, g.summary FROM {games} g",
            (
                ("g.game = ?", game),
                ("g.status = ?", status),
                ("g.seq < ?", before),
                ("EXISTS (SELECT 1 FROM {seats} s WHERE s.game_id = g.game_id"
                 " AND s.player_id = ?)", player),
            ),
            "g.seq",
            limit,
        )  # fmt: skip

    def _newest(
        self, select: str, filters: Sequence[tuple[str, Any]], seq: str, limit: int
    ) -> list[tuple[int, bytes]]:
        """(seq, summary) rows of `select` newest first, with the filters whose value is
        given (None: no filter)."""
        given = [(clause, value) for clause, value in filters if value is not None]
        sql = select
        if given:
            sql += " WHERE " + " AND ".join(clause for clause, _ in given)
        sql += f" ORDER BY {seq} DESC LIMIT ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (*(value for _, value in given), limit))
            return [(int(r["seq"]), str(r["summary"]).encode()) for r in c.fetchall()]

    def player_stats(self, player_id: str) -> list[dict[str, Any]]:
        sql = (
            "SELECT game, COUNT(*) AS played,"
            " SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END) AS finished,"
            " SUM(CASE WHEN rank = 1 THEN 1 ELSE 0 END) AS wins"
            " FROM {seats} WHERE player_id = ? GROUP BY game ORDER BY game"
        )
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (player_id,))
            counts = ("played", "finished", "wins")
            return [
                {"game": r["game"], **{k: int(r[k] or 0) for k in counts}} for r in c.fetchall()
            ]

    def player_recent(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        sql = (
            "SELECT s.seat, s.rank, s.score, g.summary FROM {seats} s"
            " JOIN {games} g ON g.game_id = s.game_id"
            " WHERE s.player_id = ? ORDER BY s.seq DESC, s.seat LIMIT ?"
        )
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (player_id, limit))
            return [
                {"seat": r["seat"], "rank": r["rank"], "score": r["score"],
                 "summary": str(r["summary"]).encode()}
                for r in c.fetchall()
            ]  # fmt: skip

    def due(self, until: int, limit: int = 1000) -> list[tuple[int, str]]:
        """(deadline, game id) of the running games whose deadline is `until` or earlier,
        the earliest first (the timekeeper)."""
        sql = "SELECT deadline, game_id FROM {deadlines} WHERE deadline <= ? ORDER BY deadline"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql + " LIMIT ?"), (until, limit))
            return [(int(r["deadline"]), str(r["game_id"])) for r in c.fetchall()]

    def awaiting_bots(self, before: int, limit: int = 1000) -> list[str]:
        """The running games that have awaited a bot since `before` (us) or earlier, the
        longest waiting first (the bot runner's sweep)."""
        sql = "SELECT game_id FROM {bot_turns} WHERE since <= ? ORDER BY since LIMIT ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (before, limit))
            return [str(r["game_id"]) for r in c.fetchall()]

    def next_deadline(self) -> int | None:
        with self._cursor(commit=False) as c:
            c.execute(self._sql("SELECT MIN(deadline) AS d FROM {deadlines}"))
            row = c.fetchone()
        return None if row is None or row["d"] is None else int(row["d"])

    def notices_for(self, player_id: str, after: int, limit: int = 500) -> list[bytes]:
        """The player's notices after id `after`, oldest first (JSON of notices.Notice)."""
        sql = "SELECT body FROM {notices} WHERE player_id = ? AND id > ? ORDER BY id LIMIT ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (player_id, after, limit))
            return [str(r["body"]).encode() for r in c.fetchall()]

    # ---- ratings and tournaments --------------------------------------------------------

    def rating_of(self, game: str, participant: str) -> tuple[float, float, int] | None:
        sql = "SELECT mu, sigma, games FROM {ratings} WHERE game = ? AND participant = ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (game, participant))
            row = c.fetchone()
        return None if row is None else (float(row["mu"]), float(row["sigma"]), int(row["games"]))

    def leaderboard(
        self, game: str, offset: int, limit: int, provisional: bool = True
    ) -> list[dict[str, Any]]:
        """Best conservative rating first (ties: more games, then the id); without the
        provisional ratings (sigma above PROVISIONAL_SIGMA) unless `provisional`."""
        settled = "" if provisional else " AND sigma <= ?"
        sql = (
            "SELECT participant, name, mu, sigma, ordinal, games FROM {ratings} WHERE game = ?"
            f"{settled} ORDER BY ordinal DESC, games DESC, participant LIMIT ? OFFSET ?"
        )
        bound = () if provisional else (PROVISIONAL_SIGMA,)
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (game, *bound, limit, offset))
            return [dict(r) for r in c.fetchall()]

    def ratings_of(self, participant: str) -> list[dict[str, Any]]:
        sql = (
            "SELECT game, mu, sigma, ordinal, games FROM {ratings} WHERE participant = ?"
            " ORDER BY game"
        )
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (participant,))
            return [dict(r) for r in c.fetchall()]

    def rating_history(
        self, participant: str, game: str, before: int | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """A participant's ratings at a game type after each of its rated games, the latest
        first, those that ended before position `before` (keyset pagination)."""
        sql = (
            "SELECT game_id, seq, ended_at, mu, sigma, ordinal, change, games FROM {history}"
            " WHERE participant = ? AND game = ? AND seq < ? ORDER BY seq DESC LIMIT ?"
        )
        end = before if before is not None else 2**62
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (participant, game, end, limit))
            return [dict(r) for r in c.fetchall()]

    def rated_anywhere(self, participant: str) -> bool:
        """Whether the participant has a rating at any game type (a bot is known by that)."""
        sql = "SELECT 1 AS found FROM {ratings} WHERE participant = ? LIMIT 1"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (participant,))
            return c.fetchone() is not None

    def tournament_seq(self, tournament_id: str) -> int | None:
        sql = "SELECT seq FROM {tournaments} WHERE tournament_id = ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (tournament_id,))
            row = c.fetchone()
        return None if row is None else int(row["seq"])

    def list_tournaments(
        self, status: str | None, before: int | None, limit: int
    ) -> list[tuple[int, bytes]]:
        filters = (("status = ?", status), ("seq < ?", before))
        return self._newest("SELECT seq, summary FROM {tournaments}", filters, "seq", limit)

    def running_tournaments(self) -> list[str]:
        """The tournaments the director moves on each tick: the running ones, and the open
        ones with a start time (it starts or cancels them then). The start time is read from
        the summary's JSON (`"starts_at":"...`, null when unset), so the table needs no
        column of its own; a false match would only cost the director a look."""
        sql = (
            "SELECT tournament_id FROM {tournaments} WHERE status = 'running'"
            " OR (status = 'open' AND summary LIKE ?)"
        )
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), ('%"starts_at":"%',))
            return [str(r["tournament_id"]) for r in c.fetchall()]

    # ---- challenges and seeks (projections/competition.py) ---------------------------------

    def challenges_of(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        """The player's challenges, received and sent, newest first (their summaries)."""
        sql = "SELECT summary FROM {challenges} WHERE player_id = ? ORDER BY seq DESC LIMIT ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (player_id, limit))
            return [_decode_row(r["summary"]) for r in c.fetchall()]

    def seeks_of(self, player_id: str, only_open: bool, limit: int) -> list[dict[str, Any]]:
        """The player's seeks (the open ones with `only_open`), newest first."""
        where = " AND status = 'open'" if only_open else ""
        sql = f"SELECT summary FROM {{seeks}} WHERE player_id = ?{where} ORDER BY seq DESC LIMIT ?"
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (player_id, limit))
            return [_decode_row(r["summary"]) for r in c.fetchall()]

    def seek_pools_due(self, until: int, limit: int = 1000) -> list[str]:
        """The seek pools with an open seek whose fill time is `until` (us) or earlier, the
        longest due first (the timekeeper's tick fills them)."""
        sql = (
            "SELECT pool_id, MIN(fill_at) AS due FROM {seeks} WHERE fill_at <= ?"
            " GROUP BY pool_id ORDER BY due LIMIT ?"
        )
        with self._cursor(commit=False) as c:
            c.execute(self._sql(sql), (until, limit))
            return [str(r["pool_id"]) for r in c.fetchall()]

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row, in a stable order: to compare two builds of the read model."""
        out: dict[str, list[tuple[Any, ...]]] = {}
        tables = (
            ("games", self.tables["games"], "game_id"),
            ("seats", self.tables["seats"], "game_id, seat"),
            ("deadlines", self.tables["deadlines"], "game_id"),
            ("bot_turns", self.tables["bot_turns"], "game_id"),
            ("notices", self.tables["notices"], "id"),
            ("ratings", self.tables["ratings"], "game, participant"),
            ("history", self.tables["history"], "participant, game_id"),
            ("tournaments", self.tables["tournaments"], "tournament_id"),
            ("challenges", self.tables["challenges"], "challenge_id, player_id"),
            ("seeks", self.tables["seeks"], "seek_id"),
        )
        for key, name, order in tables:
            with self._cursor(commit=False) as c:
                c.execute(f"SELECT * FROM {name} ORDER BY {order}")
                out[key] = [tuple(dict(r).values()) for r in c.fetchall()]
        return out

    # ---- the log itself: a game's earlier events, to rebuild its fold ---------------------

    def _event_recorder(self) -> ApplicationRecorder:
        raise NotImplementedError

    _events: ApplicationRecorder | None = None
    _mapper: Mapper[UUID] = Mapper(transcoder=MsgspecTranscoder())

    def game_events(self, game_id: UUID, lte: int) -> list[Any]:
        if self._events is None:
            self._events = self._event_recorder()
        stored = self._events.select_events(game_id, lte=lte)
        return [self._mapper.to_domain_event(s) for s in stored]


def _decode_row(summary: Any) -> dict[str, Any]:
    row: dict[str, Any] = msgspec.json.decode(str(summary))
    return row


class PostgresGamesView(GamesView, PostgresTrackingRecorder):
    # A read model is rebuilt from the log, so its commits need not wait for the disk: a
    # server crash may lose the last few, rows and tracked position together, and the
    # runner applies those events again. The event log itself stays fully durable.
    write_preamble = ("SET LOCAL synchronous_commit = off",)

    def __init__(
        self, datastore: PostgresDatastore, *, tracking_table_name: str = TRACKING_TABLE, **kw: Any
    ) -> None:
        super().__init__(datastore, tracking_table_name=tracking_table_name, **kw)
        schema = '"' + self.datastore.schema.replace('"', '""') + '"'
        self.tables = {role: f"{schema}.{name}" for role, name in _NAMES.items()}
        self.sql_create_statements += [SQL(self._sql(s)).format() for s in _DDL]

    def _sql(self, text: str) -> str:
        return super()._sql(text).replace("?", "%s")

    def _tracking_table(self) -> str:
        return f'"{self.datastore.schema}"."{self.tracking_table_name}"'

    meta_lock = ("LOCK TABLE {meta} IN EXCLUSIVE MODE",)

    def create_table(self) -> None:
        self._drop_if_built_otherwise()
        super().create_table()

    def _event_recorder(self) -> ApplicationRecorder:
        table = f"{EventStoreApp.name.lower()}_events"
        return PostgresApplicationRecorder(self.datastore, events_table_name=table)


_TRACKING_WORD = re.compile(r"\btracking\b")


class SQLiteGamesView(GamesView, SQLiteTrackingRecorder):
    """The library's SQLite tracking table is always named `tracking`; ours is renamed so
    that later projections over the same file keep positions of their own."""

    tables = _NAMES

    def __init__(self, datastore: SQLiteDatastore, **kw: Any) -> None:
        super().__init__(datastore, **kw)
        self.insert_tracking_statement = _TRACKING_WORD.sub(
            TRACKING_TABLE, self.insert_tracking_statement
        )
        self.select_max_tracking_id_statement = _TRACKING_WORD.sub(
            TRACKING_TABLE, self.select_max_tracking_id_statement
        )

    def construct_create_table_statements(self) -> list[str]:
        library = super().construct_create_table_statements()
        statements = [_TRACKING_WORD.sub(TRACKING_TABLE, s) for s in library]
        return statements + [self._sql(s) for s in _DDL]

    def _tracking_table(self) -> str:
        return TRACKING_TABLE

    def create_table(self) -> None:
        self._drop_if_built_otherwise()
        super().create_table()

    def _event_recorder(self) -> ApplicationRecorder:
        return SQLiteApplicationRecorder(self.datastore)


def view_on(datastore: Any) -> GamesView:
    """The read model over an open store's datastore (the API reads through the store's pool)."""
    if isinstance(datastore, PostgresDatastore):
        return PostgresGamesView(datastore)
    return SQLiteGamesView(datastore)
