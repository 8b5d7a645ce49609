"""How the engine reads the points the printed rules leave open or that printings state
differently. Comments, docstrings and error messages cite each as `Rn`."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R1": (
        "Several sections scored in one turn. Every section that qualifies is scored in the "
        "order dungeon, walls, towers, each completely before the next, and the favour cap "
        "rises in between. It is all one phase (phase 7), so the rule that a player's favours "
        "in one phase go to different rows spans both scorings. This happens only when the "
        "batches of one phase 6 complete two sections: the bailiff moves at most 2 spaces and "
        "the scoring triggers are 6 spaces apart."
    ),
    "R2": (
        "Supply. Deniers and cubes in the stock are unlimited; the counts in the box are not "
        "limits."
    ),
    "R3": (
        "Houses. Houses are unlimited (as the designer has said); the engine counts no houses "
        "beyond those on tiles and in the castle."
    ),
    "R4": (
        "Gold in the favour exchange. In the cube row's column 4 (give 1 cube, take 2), the "
        'cube given may be gold (the board shows the "any cube" icon); the two cubes taken '
        "may not."
    ),
    "R5": (
        "Gold in castle batches. A batch may contain gold (the castle icon shows food plus two "
        '"any" cubes); its three cubes must still be of different kinds.'
    ),
    "R6": (
        "Gold on the road. Marketplaces accept gold; peddlers never sell gold; the Alchemist "
        "takes only non-gold cubes (as their tiles show)."
    ),
    "R7": (
        "Lawyer prestige. Building the Lawyer is worth `lawyer_prestige` PP, 4 by default "
        "(the first-edition tile; later printings print 3). The residence's own 2 PP are "
        "unaffected."
    ),
    "R8": (
        "Lawyer delay. The transformation waits only until the target building's own "
        "activation is over, not until the next turn. The lawyer is paid at once; the PP and "
        "the removal of the old tile come with the transformation. A space with a "
        "transformation pending cannot be targeted again."
    ),
    "R9": (
        "Lawyer targets. Only the player's own wood or stone tiles and neutral tiles; never "
        "the Lawyer tile itself, whoever owns it."
    ),
    "R10": (
        "Gold mine. It is a road building on space 16, resolved in phase 5 under the provost "
        "rule (some printings list it in phase 3)."
    ),
    "R11": (
        "A section with no house. When a section is scored, a player with no house in it "
        "loses 2 PP for the dungeon, 3 for the walls and 4 for the towers (as the board and "
        "the publisher's rules say; some printings print 3 for the towers). In the dungeon "
        "it is 2 PP, not 2 favours."
    ),
    "R12": (
        "Starting deniers are 5, 6, 6, 7 and 7 in turn order; the base game has 9 stone tiles "
        "(some printings say 8)."
    ),
    "R13": (
        "Castle without room. When the castle has no room left, a player who holds a valid "
        "batch neither pays nor loses PP, and a player who holds none loses 2 PP. While there "
        "is room, handing in nothing costs 2 PP whatever the reason."
    ),
    "R14": (
        "Favour row d, column 5 (a prestige building over one's own residence) costs the full "
        "price, not nothing."
    ),
    "R15": (
        "Different rows per phase. A player's favours must go to different rows within one "
        "phase of the current turn, counted per player; the joust (phase 3), builds (phase "
        "5), best builder (phase 6) and section scoring (phase 7) are separate phases. A "
        "favour that finds no unused row is lost."
    ),
    "R16": (
        "Rows a and b (prestige and deniers) always pay the marker's column; a lower column "
        "is never better."
    ),
    "R17": (
        "Merchants' guild. Moving the provost is optional (0 allowed) and keeps to the limits "
        "1..28."
    ),
    "R18": (
        "Provost limits. The provost stays on spaces 1..28, never onto the bridge or the "
        "special buildings. The bailiff never passes 25, since the game ends by space 24."
    ),
    "R19": (
        "Buildings that cannot be used. A worker may be placed, or moved by the gate, on a "
        "building that cannot be used (beyond the provost, or without the means to pay)."
    ),
    "R20": (
        "Castle overflow may skip more than one full section: dungeon full goes to the walls, "
        "walls full to the towers; once the towers are full no more batches are taken."
    ),
    "R21": (
        "No empty site. With no empty site on the road, no wood or stone building can be "
        "built (theoretical: a lawyer can free tiles)."
    ),
    "R22": (
        "Phase 4 order. Players decide on the provost in the passing order of this turn's "
        "phase 2, not in turn order."
    ),
    "R23": (
        "Stables. The new turn order takes effect at once, so that turn's phase-7 scoring "
        "order already uses it."
    ),
    "R24": (
        "Inn cost. The holder of the inn's right circle pays 1 denier for every placement, "
        "castle and special buildings included, and in 2-player games too; the owners of the "
        "buildings still gain their PP."
    ),
    "R25": (
        "Inn left circle. The holder of the right circle may place on the left circle; in "
        "phase 3 that worker moves to the right circle and the old one returns to the player, "
        "who so keeps the inn."
    ),
    "R26": (
        "Gate to the castle or the stables. The worker takes the lowest free space or circle "
        "at that moment, that is after every phase-2 placement there."
    ),
    "R27": "Turn 1 has its income phase.",
    "R28": (
        "Automatic steps. Production with no choice, the trading post, the stables, the inn "
        "move, the bailiff, scoring penalties and final bonuses happen by themselves and are "
        "recorded as events."
    ),
    "R29": (
        "Favours at the end. The favours from the towers scoring are fully resolved (their "
        "deniers, cubes and builds count) before the final bonuses."
    ),
}
