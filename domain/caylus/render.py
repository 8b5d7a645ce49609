"""The board for the web viewer: a view (as the API returns it) in, an HTML fragment out.
Caylus hides nothing, so every viewer's board is the same but for "(you)". Pure; every
text is escaped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.markup import Board, chip, counts, esc, facts, table, value, words
from domain.markup import seat_name as who

CUBES = {"F": "food", "W": "wood", "S": "stone", "C": "cloth", "G": "gold"}
ROWS = {"a": "prestige", "b": "deniers", "c": "resources", "d": "buildings"}
CASTLE = ["dungeon", "walls", "towers"]


def render(view: Mapping[str, Any]) -> str:
    drawn = Board("caylus", view)
    me, part, seats = drawn.me, drawn.part, drawn.seats

    def opt(s: Any) -> str:
        return who(s, me) if s is not None else '<span class="empty">free</span>'

    parts = [
        part(
            "turn phase phase_name awaiting decision turn_order passing_scale viewer over options "
            "progress",
            "Status",
            facts(
                [
                    ("Turn", esc(view.get("turn"))),
                    ("Phase", f"{esc(view.get('phase'))}: {words(view.get('phase_name'))}"),
                    ("Awaiting", seats(view.get("awaiting"))),
                    ("Decision", words(view.get("decision") or "-")),
                    ("Turn order", seats(view.get("turn_order"))),
                    ("Passing scale", seats(view.get("passing_scale"))),
                    ("Viewer", who(me) if me is not None else "spectator"),
                    ("Over", value(view.get("over"))),
                    ("Options", value(view.get("options"))),
                    ("Progress", value(view.get("progress"))),
                ]
            ),
        )
    ]

    bailiff, provost = view.get("bailiff"), view.get("provost")
    rows = []
    for sp in view.get("road", []):
        n = sp.get("space")
        markers = []
        if n == bailiff:
            markers.append("bailiff")
        if n == provost:
            markers.append("provost")
        pending = sp.get("pending_transformation")
        rows.append(
            [
                esc(n),
                chip(sp["tile"], "tile") if sp.get("tile") else '<span class="empty">empty</span>',
                opt(sp.get("owner")) if sp.get("tile") else "",
                who(sp["worker"], me) if sp.get("worker") is not None else "",
                " ".join(chip(m, m) for m in markers)
                + (f" lawyer of {who(pending, me)}" if pending is not None else ""),
            ]
        )
    parts.append(
        part(
            "road bailiff provost",
            "The road",
            facts([("Bailiff", f"space {esc(bailiff)}"), ("Provost", f"space {esc(provost)}")])
            + table(
                "Road spaces", ["Space", "Building", "Owner", "Worker", "Markers"], rows, "road"
            ),
        )
    )

    specials = facts(
        [
            ("Gate", opt(view.get("gate"))),
            ("Trading post", opt(view.get("trading_post"))),
            ("Merchants' guild", opt(view.get("merchants_guild"))),
            ("Joust field", opt(view.get("joust_field"))),
            ("Stables", seats(view.get("stables"))),
            ("Inn, left", opt(view.get("inn_left"))),
            ("Inn, right", opt(view.get("inn_right"))),
        ]
    )
    parts.append(
        part(
            "gate trading_post merchants_guild joust_field stables inn_left inn_right",
            "Special buildings",
            specials,
        )
    )

    castle = view.get("castle", [])
    scored = view.get("sections_scored", [])
    castle_rows = [
        [
            words(CASTLE[i] if i < len(CASTLE) else i),
            seats(houses),
            "scored" if i < len(scored) and scored[i] else "open",
        ]
        for i, houses in enumerate(castle)
    ]
    parts.append(
        part(
            "castle sections_scored castle_workers",
            "The castle",
            facts([("Workers at the castle", seats(view.get("castle_workers")))])
            + table(
                "Houses in the castle", ["Section", "Houses of", "Scoring"], castle_rows, "castle"
            ),
        )
    )

    players = view.get("players", [])
    favour_rows = [
        [
            who(p.get("seat"), me),
            *(esc(p.get("favour_markers", {}).get(r, 0)) for r in ROWS),
            ", ".join(words(ROWS.get(r, r)) for r in p.get("rows_used_this_phase", [])) or "-",
            esc(p.get("pending_favours")),
        ]
        for p in players
    ]
    parts.append(
        part(
            "favour_cap",
            "The favour table",
            facts([("Highest column reachable", esc(view.get("favour_cap")))])
            + table(
                "Favour markers by row (column reached)",
                ["Seat", *(ROWS[r] for r in ROWS), "Rows used this phase", "Favours to take"],
                favour_rows,
                "favours",
            ),
        )
    )

    res_rows = [
        [
            who(p.get("seat"), me),
            esc(p.get("deniers")),
            counts({CUBES.get(k, k): v for k, v in (p.get("cubes") or {}).items()}),
            esc(p.get("prestige")),
            esc(p.get("workers_available")),
            ", ".join(
                f"{words(CASTLE[i])}: {esc(n)}"
                for i, n in enumerate(p.get("houses_in_castle", []))
                if i < len(CASTLE)
            ),
        ]
        for p in players
    ]
    parts.append(
        part(
            "players",
            "Resources",
            table(
                "Each seat's holdings",
                ["Seat", "Deniers", "Cubes", "Prestige", "Workers available", "Houses in castle"],
                res_rows,
                "resources",
            ),
        )
    )
    parts.append(
        part(
            "stock",
            "Building stock",
            " ".join(chip(t, "tile") for t in view.get("stock", [])) or "empty",
        )
    )
    return drawn.html(parts)
