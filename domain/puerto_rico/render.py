"""The board for the web viewer: a view (as the API returns it) in, an HTML fragment out.

Shows only what the view holds: a spectator's view has no secret VP, forest identities or
stack order, so neither has its board. Pure; every text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.markup import (
    Board,
    chip,
    chips,
    counts,
    esc,
    facts,
    hidden,
    section,
    table,
    value,
    words,
)
from domain.markup import seat_name as who


def render(view: Mapping[str, Any]) -> str:
    drawn = Board("puerto-rico", view)
    me, part, seats, shown = drawn.me, drawn.part, drawn.seats, drawn.shown

    status = facts(
        [
            ("Round", esc(view.get("round"))),
            ("Phase", words(view.get("phase") or "-")),
            ("Step", words(view.get("step") or "-")),
            ("Role in play", words(view.get("role") or "-")),
            ("Governor", who(view.get("governor"), me)),
            ("Choosing roles", who(view.get("chooser"), me)),
            ("Awaiting", seats(view.get("awaiting"))),
            ("Game end triggered", value(view.get("end_triggered"))),
            ("Seats", esc(view.get("seats"))),
            ("Viewer", who(me) if me is not None else "spectator"),
            ("Over", value(view.get("over"))),
            ("Options", value(view.get("options"))),
            ("Progress", value(view.get("progress"))),
        ]
    )
    parts = [
        part(
            "round phase step role governor chooser awaiting end_triggered seats viewer over "
            "options progress",
            "Status",
            status,
        )
    ]

    roles = view.get("roles", {})
    picked = set(view.get("picked", []))
    parts.append(
        part(
            "roles picked",
            "Roles",
            table(
                "Roles with the doubloons lying on them",
                ["Role", "Doubloons", "Taken this round"],
                [
                    [chip(r, "role"), esc(d), "taken" if r in picked else "free"]
                    for r, d in roles.items()
                ],
                "roles",
            ),
        )
    )

    ships = view.get("ships", [])
    ship_rows = [
        [
            f"ship {i + 1}",
            esc(s.get("capacity")),
            words(s.get("good") or "empty"),
            f"{esc(s.get('load'))} / {esc(s.get('capacity'))}",
        ]
        for i, s in enumerate(ships)
    ]
    parts.append(
        part(
            "ships trading_house",
            "Ships and trading house",
            table("Cargo ships", ["Ship", "Capacity", "Good", "Load"], ship_rows, "ships")
            + facts(
                [("Trading house (4 spaces)", chips(view.get("trading_house", []), empty="empty"))]
            ),
        )
    )

    stack = view.get("stack")
    supply = facts(
        [
            ("Goods supply", counts(view.get("supply"))),
            ("Colonists in supply", esc(view.get("colonists"))),
            ("Colonist ship", esc(view.get("colonist_ship"))),
            ("VP chips left", esc(view.get("vp_supply"))),
            ("Quarries left", esc(view.get("quarries"))),
            ("Face-up plantations", chips(view.get("row", []))),
            ("Plantation stack", f"{esc(view.get('stack_size'))} tiles"),
            ("Stack order", chips(stack) if stack is not None else hidden()),
            ("Discarded plantations", chips(view.get("discard", []))),
            (
                "Hacienda tile drawn",
                chip(view["hacienda_tile"]) if view.get("hacienda_tile") else hidden("none shown"),
            ),
        ]
    )
    parts.append(
        part(
            "supply colonists colonist_ship vp_supply quarries row stack_size stack discard "
            "hacienda_tile",
            "Supplies",
            supply,
        )
    )

    left = view.get("buildings_left", {})
    parts.append(
        part(
            "buildings_left draft_slots drafted",
            "Buildings for sale",
            counts(left, "sold out")
            + facts(
                [
                    ("Draft slots", value(view.get("draft_slots"))),
                    ("Drafted", chips(view.get("drafted", []))),
                ]
            ),
        )
    )

    for p in view.get("players", []):
        seat = p.get("seat")
        tiles = p.get("tiles", {})
        occupied = p.get("occupied", {})
        island = [
            [chip(t, t), esc(n), f"{esc(occupied.get(t, 0))} of {esc(n)}"]
            for t, n in tiles.items()
            if n
        ]
        forests = p.get("forest_tiles")
        city = [
            [chip(b, "building"), f"{esc(c)} colonist(s)"]
            for b, c in p.get("buildings", {}).items()
        ]
        vp = p.get("vp")
        body = facts(
            [
                ("Doubloons", esc(p.get("doubloons"))),
                ("Victory points", esc(vp) if vp is not None else hidden()),
                ("Goods", counts(p.get("goods"))),
                ("Colonists in San Juan", esc(p.get("san_juan"))),
                (
                    "Forests",
                    f"{esc(p.get('forests'))}" + (f" ({chips(forests)})" if forests else ""),
                ),
            ]
        )
        body += table(f"Island of {who(seat)}", ["Tile", "Count", "Colonists"], island, "island")
        body += table(f"City of {who(seat)}", ["Building", "Occupied by"], city, "city")
        title = f"Seat {seat}" + (" (you)" if seat == me else "")
        parts.append(section(f"players.{seat}", title, body, "seat"))
    shown.add("players")

    scores = view.get("scores")
    if scores:
        rows = [[who(i, me), *(esc(v) for v in s.values())] for i, s in enumerate(scores)]
        parts.append(
            part(
                "scores",
                "Final scores",
                table("Score by source", ["Seat", *scores[0].keys()], rows),
            )
        )
    shown.add("scores")
    return drawn.html(parts)
