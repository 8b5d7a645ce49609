"""How the engine reads the points the printed rules leave open. Comments, docstrings and
error messages cite each as `Rn`; `RS1`..`RS5` (retire spaces), `SC..` (scholars) and `BI..`
(bishops) are ids from data.py, not rulings."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R1": "Triple-tile cost. An expansion with a triple tile costs 2 wood and 1 grain.",
    "R2": (
        '"Passing" a symbol. Landing on a monk or gold symbol counts as passing it, and so '
        "does moving through it. Movement is forward only, so each symbol triggers at most "
        "once per player per game. Symbols never run out: every player gains from each one."
    ),
    "R3": (
        "Open points and ships. At the table, happiness tokens and shipped tiles lie face "
        "down, which only hides totals from memory, since every gain follows from public "
        "actions. The engine shows every player's points and port to everyone."
    ),
    "R4": (
        "Conquistador markers never reset. Positions carry across years; the year-end table "
        "rewards the standing at that moment."
    ),
    "R5": (
        "Conquistador ranking. By space, then by stack height: the later arrival is on top "
        "and therefore ahead. All players are ranked, including those who took no "
        "conquistador action this year. The last rank and the players who took no action "
        "score 0, and nobody moves up to take such a player's rank value. Markers on space 0 "
        "(stacked in seat order, lowest seat at the bottom) can only belong to players who "
        "took no action, so their order never changes a score."
    ),
    "R6": (
        '"Moved this year" means the player took at least one conquistador action this '
        "year from any source (a building, the retire space RS3 or dock 3), even if the "
        "marker was already at the end of the track."
    ),
    "R7": (
        "Start player in years 2 and 3. The first player to retire in a year starts the next "
        "year; turns then go clockwise. Seat order never changes."
    ),
    "R8": (
        "End-of-year clean-up. Dice leave the colonies (white dice to be rolled again, blue "
        "dice to their owners), coins on buildings go to the supply, each player's yearly "
        "counters reset, retired markers come back and the road stack is not replenished. "
        "Dock tiles are not refreshed; the tiles left on the display leave the game."
    ),
    "R9": (
        "Blue dice are rolled again at the start of years 2 and 3; at set-up and when "
        "unlocked they are rolled once. A die keeps its face until it is taken, and changing "
        "its value applies to that use only."
    ),
    "R10": (
        "Optional or automatic effects. Gains, base religion steps and base conquistador "
        "steps are automatic, since they never hurt. Trade, shipping, the grain or gold "
        "bonus, recruitment, the Captain's extra step and placing a road can be declined. "
        "The die still goes on the last unoccupied building of the line even when that "
        "building's options are declined."
    ),
    "R11": (
        "Free actions are allowed at any point of one's own turn: before the main action, "
        "while a decision is pending, and after the main action until `end_turn`, the retire "
        "turn included. `end_turn` is illegal while a decision is pending or before the main "
        "action."
    ),
    "R12": (
        "Buying cannot exceed the storage limit. Any resource may be sold at any time in "
        "one's own turn."
    ),
    "R13": (
        "Gold substitution is explicit. Commands name which cost items are paid with gold "
        "(`gold_for`, `trade.pay = gold`, `religion.gold`). Gold cannot be bought; it sells "
        "for 2 coins and counts against the storage limit."
    ),
    "R14": (
        "Overflow is resolved token by token at the moment of the gain: each token beyond "
        "the storage limit is sold at its sell price (+1 with the Merchant, SC04). No choice "
        "is offered, and the player cannot avoid an overflow by spending later."
    ),
    "R15": (
        "Placement. Tiles may be rotated and placed anywhere on empty cells, with no "
        "adjacency requirement. A tile never covers a building, road, blocked cell or other "
        "tile. Tile squares keep their codes, and roads on tiles are roads."
    ),
    "R16": (
        "Road tiles. There are 3 for the whole game, and each covers one empty cell. The "
        "retire space RS5 may be chosen when the road stack is empty or the colony is full; "
        "nothing happens then."
    ),
    "R17": (
        "Retire actions. RS1 to RS3 cannot be declined (they never hurt); RS1 is automatic. "
        "RS2 and RS3 still ask their usual optional parts: the religion decision and any "
        "recruitment, and the Captain's step with SC08. RS4 and RS5 may be declined. Any "
        "vacant retire space may be chosen."
    ),
    "R18": (
        "Income order. Port income is paid dock 1 to dock 4, then in arrival order within a "
        "dock. Every income is mandatory except the optional parts of the actions it "
        "triggers: the religion extra steps (which may be 0), recruitment, and the Captain's "
        "step (SC08)."
    ),
    "R19": (
        "End of the religion track. The steps that can be taken are taken, and each "
        "remaining step scores 1 point. The grain bonus stays available, so at the end a "
        "religion action is worth 1 or 2 points (up to 3 with the Preacher, SC07)."
    ),
    "R20": (
        "Recruitment. One recruitment opportunity comes per symbol entered, and it is "
        "optional. It needs a monk in reserve, a space without the player's monk, and the "
        "full payment at that moment; the player may sell first. Declining forfeits that "
        "symbol's recruitment, but not a blue-die unlock on it. Payments go to the other "
        "occupants even if they have retired."
    ),
    "R21": (
        "Several symbols in one move resolve in track order. At one symbol, the blue-die "
        "unlock comes before the recruitment."
    ),
    "R22": (
        "Die placement. The target line must hold an unoccupied building after any change of "
        "the die's value. The die goes on the last unoccupied building in activation order, "
        "and every listed building is still activated. No effect can change which buildings "
        "are unoccupied during an activation, so placing the die first is equivalent."
    ),
    "R23": (
        "Coin-activation price is per player and per year, and counts coin activations only; "
        "die activations do not raise it."
    ),
    "R24": (
        "White pool. White dice are told apart only by their face. If the pool is empty, no "
        "white die can be taken. The cap counts dice taken this year, not dice on the board."
    ),
    "R25": (
        "Display. It is not refilled within a year. When all ten tiles are gone, nobody can "
        "expand until the next year."
    ),
    "R26": (
        "Ship stack exhausted. A dock left empty stays empty. A shipping action with no tile "
        "at any dock does nothing."
    ),
    "R27": (
        "Leftovers. Coins and resources left at the end give no points, except through the "
        "Bishop of Treasure (BI05)."
    ),
    "R28": (
        "Scholar timing. A scholar's ability applies from the moment the monk is placed, "
        "including later in the same activation or retire turn."
    ),
    "R29": (
        "Blue dice unlocked while retiring (RS2 or dock 2) cannot be used this year; the "
        "player has no further turn anyway."
    ),
    "R30": (
        "Coins on buildings are spent. They go to the supply at the end of the year and are "
        "never returned to the player."
    ),
    "R31": (
        "Multi-effect buildings resolve every effect in the listed order. The coin of `C1+…` "
        "comes first, so it can help pay the optional part of the action that follows."
    ),
    "R32": (
        'Trade "/". One input kind and one output are chosen per activation; gold may '
        "replace the input."
    ),
    "R33": (
        "Port capacity is unlimited. The dock a tile was taken from decides its dock in the "
        "port for the rest of the game."
    ),
    "R34": (
        "Supplies of coins, points and resources are unlimited. Dice and tiles are limited "
        "as the data tables list."
    ),
    "R35": (
        "Draft order. Colony boards are chosen counter-clockwise, starting at the seat "
        "before the start player. Starting coins depend on turn position, not on the draft."
    ),
    "R36": "Tie-break. Most coins, then most resources, then a shared rank.",
    "R37": (
        "Decisions are always asked when the option exists structurally, even if it cannot "
        "be paid for at that moment, so that a player may sell or buy first. The structural "
        "exceptions: no ship decision when no dock holds a tile; no recruit decision without "
        "a reserve monk or a free space for the player; no conquistador decision without the "
        "Captain (SC08); no road decision when the road stack is empty or the colony has no "
        "empty cell."
    ),
    "R38": (
        "Expansion and coin activation on the same turn are impossible (one main action). "
        "Buildings placed this turn can be activated from the next turn on."
    ),
}
