"""The board for the web viewer: a view (as the API returns it) in, an HTML fragment out.

Shows only what the view holds: another seat's estates, characters before the reveal and
war commitments are absent from a spectator's view, so they read "hidden" here. Pure; every
text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.markup import (
    Board,
    chip,
    chips,
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


def _maybe(items: Any) -> str:
    return hidden() if items is None else chips(items)


def render(view: Mapping[str, Any]) -> str:
    drawn = Board("plus-ultra", view)
    me, part, seats, shown = drawn.me, drawn.part, drawn.seats, drawn.shown

    parts = [
        part(
            "turn phase round awaiting acting_order peer_track viewer picks_made "
            "character_in_round common_taken pending options progress",
            "Status",
            facts(
                [
                    ("Turn", esc(view.get("turn"))),
                    ("Phase", words(view.get("phase"))),
                    ("Round", esc(view.get("round"))),
                    ("Awaiting", seats(view.get("awaiting"))),
                    ("Acting order", seats(view.get("acting_order"))),
                    ("Peer track (first to last)", seats(view.get("peer_track"))),
                    ("Viewer", who(me) if me is not None else "spectator"),
                    ("Characters picked", esc(view.get("picks_made"))),
                    ("Character acting", words(view.get("character_in_round") or "-")),
                    ("Common actions taken", chips(view.get("common_taken", []))),
                    ("Pending", value(view.get("pending"))),
                    ("Options", value(view.get("options"))),
                    ("Progress", value(view.get("progress"))),
                ]
            ),
        )
    ]

    exploration = view.get("exploration", [])
    explo = [
        [
            f"row {i + 1}",
            '<span class="empty">empty</span>'
            if t is None
            else (hidden("face down") if t == "face_down" else chip(t, "tile")),
        ]
        for i, t in enumerate(exploration)
    ]
    colonies = [
        [
            esc(c.get("space")),
            chip(c.get("tile"), "tile"),
            esc(c.get("size")),
            seats(c.get("houses")),
        ]
        for c in view.get("colonies", [])
    ]
    stack = view.get("stack")
    parts.append(
        part(
            "exploration colonies blue_colonies_left stack_count stack",
            "The New World",
            table("Exploration rows", ["Row", "Tile"], explo, "exploration")
            + table("Colonies", ["Space", "Tile", "Size", "Houses of"], colonies, "colonies")
            + facts(
                [
                    ("Blue colonies left", chips(view.get("blue_colonies_left", []))),
                    ("New World stack", f"{esc(view.get('stack_count'))} tiles"),
                    ("Stack order", _maybe(stack)),
                ]
            ),
        )
    )

    parts.append(
        part(
            "market surplus out_of_game",
            "Market and surplus",
            facts(
                [
                    ("Market", chips(view.get("market", []), empty="empty")),
                    ("Surplus", chips(view.get("surplus", []), empty="empty")),
                    ("Out of the game", chips(view.get("out_of_game", []))),
                ]
            ),
        )
    )

    church = view.get("church", [])
    parts.append(
        part(
            "church bull_supply rose_window_supply magellan_supply magellan_complete",
            "Church and supplies",
            table(
                "Church spaces",
                ["Space", "Tile"],
                [
                    [esc(i + 1), chip(t, "tile") if t else '<span class="empty">empty</span>']
                    for i, t in enumerate(church)
                ],
                "church",
            )
            + facts(
                [
                    ("Bulls in supply", esc(view.get("bull_supply"))),
                    ("Rose windows in supply", esc(view.get("rose_window_supply"))),
                    ("Magellan supply", esc(view.get("magellan_supply"))),
                    ("Magellan complete", value(view.get("magellan_complete"))),
                ]
            ),
        )
    )

    war = view.get("war", [])
    crown = view.get("crown", 0)
    crown_marks = {int(crown): ["crown"]} if isinstance(crown, int) else {}
    parts.append(
        part(
            "war war_level dice crown set_aside leftovers",
            "War and crown",
            facts(
                [
                    (
                        "War dice",
                        ", ".join(f"die showing {esc(d)}" for d in view.get("dice", [])) or "none",
                    ),
                    ("War level", esc(view.get("war_level"))),
                    ("Tercios on war spaces", seats(war)),
                    ("Crown track", f"space {esc(crown)}"),
                    (
                        "Character set aside",
                        words(view["set_aside"]) if view.get("set_aside") else hidden("not shown"),
                    ),
                    ("Leftover characters", _maybe(view.get("leftovers"))),
                ]
            )
            + track(
                "Crown track", max(int(crown) + 1, 8) if isinstance(crown, int) else 8, crown_marks
            )
            + track(
                "War spaces",
                max(len(war), 1),
                {i + 1: [f"seat {s}"] for i, s in enumerate(war)},
                start=1,
            ),
        )
    )

    parts.append(
        part(
            "estate_stack_count estates_discarded estate_stack estates_unused offered",
            "Estates and characters offered",
            facts(
                [
                    ("Estate stack", f"{esc(view.get('estate_stack_count'))} estates"),
                    ("Estates discarded", chips(view.get("estates_discarded", []))),
                    ("Estate stack order", _maybe(view.get("estate_stack"))),
                    ("Estates not used", _maybe(view.get("estates_unused"))),
                    (
                        "Characters offered to you",
                        _maybe(view.get("offered"))
                        if view.get("offered") is not None
                        else '<span class="empty">-</span>',
                    ),
                ]
            ),
        )
    )

    for p in view.get("players", []):
        seat = p.get("seat")
        commitment = p.get("commitment")
        body = facts(
            [
                ("Peer track position", esc(p.get("peer_position"))),
                ("Ducats", esc(p.get("ducats"))),
                ("Glory points (in game)", esc(p.get("gp"))),
                ("Sea trade", esc(p.get("sea_trade"))),
                (
                    "Tercios",
                    f"{esc(p.get('tercios_active'))} active, "
                    f"{esc(p.get('tercios_tired'))} tired, "
                    f"{esc(p.get('tercios_at_war'))} at war, "
                    f"{esc(p.get('tercios_box'))} in the box",
                ),
                (
                    "Houses",
                    f"{esc(p.get('houses_stock'))} in stock, "
                    f"{esc(p.get('houses_in_colonies'))} in colonies, "
                    f"{esc(p.get('houses_box'))} in the box",
                ),
                (
                    "Rose windows",
                    f"{esc(p.get('rose_windows_up'))} face up, "
                    f"{esc(p.get('rose_windows_down'))} face down",
                ),
                ("Bulls", esc(p.get("bulls")) + (" (one used)" if p.get("bull_used") else "")),
                ("Magellan", esc(p.get("magellan"))),
                ("Captured", chips(p.get("captured", []))),
                ("Estates", f"{esc(p.get('estate_count'))}: " + _maybe(p.get("estates"))),
                ("Characters", _maybe(p.get("characters"))),
                ("Characters used", chips(p.get("used", []))),
                (
                    "Committed to war",
                    value(p.get("has_committed"))
                    + (f" ({esc(commitment)} tercios)" if commitment is not None else ""),
                ),
                ("Common actions taken", esc(p.get("common_actions_taken"))),
            ]
        )
        title = f"Seat {seat}" + (" (you)" if seat == me else "")
        parts.append(section(f"players.{seat}", title, body, "seat"))
    shown.add("players")
    if view.get("result"):
        parts.append(part("result", "Result", value(view.get("result"))))
    shown.add("result")
    return drawn.html(parts)
