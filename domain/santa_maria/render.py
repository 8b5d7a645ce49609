"""The board for the web viewer: a view (as the API returns it) in, an HTML fragment out.

Santa Maria hides only the stack orders: they read "hidden" until the game is over.
Colony boards are 6x6 tables whose cells say in words what lies on them (building code,
tile, die, coins), so nothing is told by colour alone. Pure; every text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.markup import (
    Board,
    chips,
    counts,
    esc,
    facts,
    hidden,
    section,
    table,
    track,
    value,
    words,
)
from domain.markup import seat_name as who

SIDE = 6
DIE = {1: "white die", 2: "blue die"}
CELL = {".": "empty", "#": "blocked", "=": "road"}


def _cell(p: Mapping[str, Any], i: int) -> str:
    def at(key: str, default: Any) -> Any:
        xs = p.get(key) or []
        return xs[i] if i < len(xs) else default

    code = str(at("cells", "."))
    bits = [f'<span class="code">{esc(CELL.get(code, code))}</span>']
    tile = at("tile_on", "")
    if tile:
        bits.append(f'<span class="tile">tile {esc("road" if tile == "RD" else tile)}</span>')
    die = at("die_on", 0)
    if die:
        bits.append(f'<span class="die die-{esc(die)}">{esc(DIE.get(die, "die"))}</span>')
    coins = at("coins_on", 0)
    if coins:
        bits.append(f'<span class="coins">{esc(coins)} coin(s)</span>')
    if at("printed", False):
        bits.append('<span class="printed">printed</span>')
    css = "blocked" if code == "#" else ("empty" if code == "." else "built")
    return f'<td class="cell {css}">{"<br>".join(bits)}</td>'


def _grid(p: Mapping[str, Any], me: Any) -> str:
    rows = []
    for r in range(SIDE):
        cells = "".join(_cell(p, r * SIDE + c) for c in range(SIDE))
        rows.append(f'<tr><th scope="row">row {r + 1}</th>{cells}</tr>')
    head = "".join(f'<th scope="col">col {c + 1}</th>' for c in range(SIDE))
    return (
        f'<table class="colony"><caption>Colony board {words(p.get("board") or "-")} of '
        f"{who(p.get('seat'), me)}</caption><thead><tr><td></td>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def render(view: Mapping[str, Any]) -> str:
    drawn = Board("santa-maria", view, ("viewer",))
    me, part, seats, shown = drawn.me, drawn.part, drawn.seats, drawn.shown

    parts = [
        part(
            "seats options phase year start_player active awaiting draft_order main_done queue "
            "pending",
            "Status",
            facts(
                [
                    ("Year", esc(view.get("year"))),
                    ("Phase", words(view.get("phase"))),
                    ("Start player", who(view.get("start_player"), me)),
                    ("Active", who(view.get("active"), me)),
                    ("Awaiting", seats(view.get("awaiting"))),
                    ("Draft order", seats(view.get("draft_order"))),
                    ("Main action done", value(view.get("main_done"))),
                    ("Effects queued", chips(view.get("queue", []))),
                    ("Pending decision", value(view.get("pending"))),
                    ("Seats", esc(view.get("seats"))),
                    ("Options", value(view.get("options"))),
                ]
            ),
        )
    ]

    docks = view.get("docks", [])
    parts.append(
        part(
            "docks ship_stack_count ship_stack",
            "Ships and docks",
            table(
                "Docks",
                ["Dock", "Ship"],
                [
                    [esc(i + 1), words(t) if t else '<span class="empty">empty</span>']
                    for i, t in enumerate(docks)
                ],
                "docks",
            )
            + facts(
                [
                    ("Ship stack", f"{esc(view.get('ship_stack_count'))} ships"),
                    (
                        "Ship stack order",
                        hidden()
                        if view.get("ship_stack") is None
                        else chips(view.get("ship_stack")),
                    ),
                ]
            ),
        )
    )

    parts.append(
        part(
            "white_pool blue_supply display_doubles display_triples double_stack_count "
            "triple_stack_count double_stack triple_stack out_of_game road_stack",
            "Dice and expansion tiles",
            facts(
                [
                    (
                        "White dice pool",
                        ", ".join(f"white die showing {esc(d)}" for d in view.get("white_pool", []))
                        or "none",
                    ),
                    ("Blue dice in supply", esc(view.get("blue_supply"))),
                    ("Double tiles on display", chips(view.get("display_doubles", []))),
                    ("Triple tiles on display", chips(view.get("display_triples", []))),
                    (
                        "Double stack",
                        f"{esc(view.get('double_stack_count'))} tiles; order: "
                        + (
                            hidden()
                            if view.get("double_stack") is None
                            else chips(view.get("double_stack"))
                        ),
                    ),
                    (
                        "Triple stack",
                        f"{esc(view.get('triple_stack_count'))} tiles; order: "
                        + (
                            hidden()
                            if view.get("triple_stack") is None
                            else chips(view.get("triple_stack"))
                        ),
                    ),
                    ("Out of the game", chips(view.get("out_of_game", []))),
                    ("Road tiles left", esc(view.get("road_stack"))),
                ]
            ),
        )
    )

    players = view.get("players", [])
    religion: dict[int, list[str]] = {}
    conquest: dict[int, list[str]] = {}
    for p in players:
        religion.setdefault(int(p.get("religion", 0)), []).append(f"seat {p.get('seat')}")
        conquest.setdefault(int(p.get("conquistador", 0)), []).append(f"seat {p.get('seat')}")
    length_r = max([10, *(k + 1 for k in religion)])
    length_c = max([10, *(k + 1 for k in conquest)])
    monks = view.get("monks", {})
    parts.append(
        part(
            "monks scholars bishops conquistador_history retire_spaces retire_order",
            "Religion and conquistador tracks",
            track("Religion track", length_r, religion)
            + track("Conquistador track", length_c, conquest)
            + facts(
                [
                    ("Scholars", chips(view.get("scholars", []))),
                    ("Bishops", chips(view.get("bishops", []))),
                    (
                        "Monks placed",
                        "; ".join(f"{words(k)}: {seats(v)}" for k, v in monks.items()) or "none",
                    ),
                    ("Conquistador scoring", value(view.get("conquistador_history"))),
                    (
                        "Retire spaces",
                        ", ".join(
                            f"{esc(k)}: {who(v, me) if v is not None and v >= 0 else 'free'}"
                            for k, v in view.get("retire_spaces", {}).items()
                        ),
                    ),
                    ("Retired in order", seats(view.get("retire_order"))),
                ]
            ),
        )
    )

    for p in players:
        seat = p.get("seat")
        blue = p.get("blue", [])
        used = p.get("blue_used", [])
        locked = p.get("blue_locked", [])
        blue_text = (
            ", ".join(
                f"blue die {i + 1} showing {esc(v)}"
                + (" (used)" if i < len(used) and used[i] else "")
                + (" (locked)" if i < len(locked) and locked[i] else "")
                for i, v in enumerate(blue)
            )
            or "none"
        )
        port = p.get("port", [])
        body = facts(
            [
                ("Points", esc(p.get("points"))),
                ("Coins", esc(p.get("coins"))),
                ("Resources", counts(p.get("res"))),
                (
                    "Religion",
                    f"space {esc(p.get('religion'))}; monks in reserve "
                    f"{esc(p.get('monks_reserve'))}; symbols entered "
                    f"{esc(p.get('symbols_entered'))}",
                ),
                (
                    "Conquistador",
                    f"space {esc(p.get('conquistador'))}"
                    + (" (acted this year)" if p.get("conq_acted") else ""),
                ),
                (
                    "White dice taken",
                    esc(p.get("white_taken"))
                    + " showing "
                    + (", ".join(esc(f) for f in p.get("white_faces", [])) or "none"),
                ),
                ("Blue dice", blue_text),
                (
                    "Ships in port",
                    "; ".join(
                        f"dock {i + 1}: {chips(ships, empty='empty')}"
                        for i, ships in enumerate(port)
                    )
                    or "none",
                ),
                ("Scholars", chips(p.get("scholars", []))),
                ("Bishops", chips(p.get("bishops", []))),
                ("Coins paid this year", esc(p.get("coins_paid"))),
                ("Retired", value(p.get("retired"))),
                ("Alchemy used", value(p.get("alchemy_used"))),
            ]
        )
        rest = {k: v for k, v in p.items() if k not in _SHOWN_PLAYER}
        if rest:
            body += facts((str(k).replace("_", " "), value(v)) for k, v in rest.items())
        body += _grid(p, me)
        title = f"Seat {seat}" + (" (you)" if seat == me else "")
        parts.append(section(f"players.{seat}", title, body, "seat"))
    shown.add("players")
    return drawn.html(parts)


_SHOWN_PLAYER = {
    "seat",
    "board",
    "cells",
    "printed",
    "tile_on",
    "die_on",
    "coins_on",
    "res",
    "coins",
    "points",
    "religion",
    "monks_reserve",
    "symbols_entered",
    "conquistador",
    "conq_acted",
    "white_taken",
    "white_faces",
    "blue",
    "blue_used",
    "blue_locked",
    "port",
    "scholars",
    "bishops",
    "coins_paid",
    "retired",
    "alchemy_used",
}
