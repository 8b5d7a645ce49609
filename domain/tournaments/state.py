"""A tournament's state: the fold of its events (dicts with a `type`, as stored)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FORMATS = ("swiss", "round-robin", "knockout", "arena")
Status = Literal["open", "running", "finished", "cancelled"]
# Why an entrant was withdrawn: they asked, the organiser did, or the director did after two
# forfeits in a row (see `pairing.forfeited_twice`).
WithdrawnReason = Literal["requested", "organiser", "forfeited_twice"]
# Why a scheduled tournament was cancelled: fewer entrants than a table at its start time.
CancelledReason = Literal["too_few_players"]


@dataclass
class Table:
    table: int
    seats: list[str]  # entrant ids in seat order
    game: str
    ranks: list[int] | None = None  # once its game finished
    scores: list[int] | None = None
    forfeited: list[int] = field(default_factory=list)  # seats that forfeited
    finished: int | None = None  # the order its result was recorded in, from 0 (an arena's)


@dataclass
class Round:
    number: int
    tables: list[Table]
    byes: list[str]

    @property
    def complete(self) -> bool:
        return all(t.ranks is not None for t in self.tables)


@dataclass
class Tournament:
    id: str
    config: dict[str, Any]
    entrants: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {name, bot}
    withdrawn: set[str] = field(default_factory=set)
    # Why each withdrawn entrant was (absent for withdrawals recorded without a reason).
    withdrawn_reasons: dict[str, WithdrawnReason] = field(default_factory=dict)
    registrations: int = 0  # registered events so far (withdrawals do not lower it)
    status: Status = "open"
    rounds: list[Round] = field(default_factory=list)
    standings: list[dict[str, Any]] | None = None  # the final ones, once finished
    cancelled_reason: CancelledReason | None = None  # why it was (its status `cancelled`)
    ends_at: str | None = None  # an arena's end (its `started` event says it)
    finishes: int = 0  # tables whose results are recorded
    uncounted: set[str] = field(default_factory=set)  # an arena's games running at its end

    @property
    def active(self) -> list[str]:
        """Entrants still playing, in registration order."""
        return [e for e in self.entrants if e not in self.withdrawn]

    @property
    def table_size(self) -> int:
        return int(self.config["table_size"])

    def table_of(self, game_id: str) -> tuple[Round, Table] | None:
        for r in self.rounds:
            for t in r.tables:
                if t.game == game_id:
                    return r, t
        return None


def fold(tournament_id: str, events: list[dict[str, Any]]) -> Tournament:
    state: Tournament | None = None
    for event in events:
        state = evolve(state, tournament_id, event)
    assert state is not None, "a tournament starts with its `created` event"
    return state


def evolve(state: Tournament | None, tournament_id: str, e: dict[str, Any]) -> Tournament:
    kind = e["type"]
    if kind == "created":
        return Tournament(id=tournament_id, config=dict(e["config"]))
    assert state is not None
    if kind == "registered":
        state.entrants[e["entrant"]] = {"name": e["name"], "bot": e.get("bot")}
        state.registrations += 1
    elif kind == "withdrawn":
        state.withdrawn.add(e["entrant"])
        if e.get("reason") is not None:
            state.withdrawn_reasons[e["entrant"]] = e["reason"]
        if state.status == "open":
            del state.entrants[e["entrant"]]
            state.withdrawn.discard(e["entrant"])
            state.withdrawn_reasons.pop(e["entrant"], None)
    elif kind == "started":
        state.status = "running"
        state.ends_at = e.get("ends_at")
    elif kind == "tables_added":  # an arena's tables, formed while its round runs
        added = [Table(t["table"], list(t["seats"]), t["game"]) for t in e["tables"]]
        state.rounds[e["round"] - 1].tables.extend(added)
    elif kind == "round_started":
        tables = [Table(t["table"], list(t["seats"]), t["game"]) for t in e["tables"]]
        state.rounds.append(Round(e["round"], tables, list(e["byes"])))
    elif kind == "table_finished":
        table = state.rounds[e["round"] - 1].tables[e["table"]]
        table.ranks, table.scores = list(e["ranks"]), list(e["scores"])
        table.forfeited = list(e.get("forfeited", []))
        table.finished = state.finishes
        state.finishes += 1
    elif kind == "finished":
        state.status = "finished"
        state.standings = e["standings"]
        state.uncounted = set(e.get("uncounted", ()))
    elif kind == "cancelled":
        state.status = "cancelled"
        state.cancelled_reason = e["reason"]
    return state
