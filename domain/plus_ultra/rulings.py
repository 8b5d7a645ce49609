"""How the engine reads the points the printed rules leave open or that editions state
differently, each with the reading it rejects. Comments, docstrings and error messages cite
each as `Rn`."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R1": (
        "Edition. The engine follows the edition with 3 war dice, 10 estates (6 in play), "
        "Magellan cards and 10 rose-window cards. Rejected: the later edition (2 dice, 6 "
        "estates, no Magellan cards, 4 rose windows per colour)."
    ),
    "R2": (
        'Houses. 5 per player; the printed "25 houses, 5 per colour" is read as a misprint. '
        "Rejected: 6 per player."
    ),
    "R3": (
        "Common-action allowance. One common action per player per turn (the general rule), "
        "and one per round with the option `common_actions_per_turn` 2. Rejected: one per "
        "round as the only rule."
    ),
    "R4": (
        "Order changes. Moves on the peer track happen at once, but the acting order is "
        'copied from it only at the start of a turn. Every "in peer order" inside a turn '
        "uses the acting order; the final tie-break uses the live track. Rejected: moves that "
        "change the current turn's order."
    ),
    "R5": (
        "Moving up. The King moves his holder to position 1, and the players who were ahead "
        "each move down one. Visit the Court passes the 1 or 2 players directly ahead, each of "
        "whom moves down one; nobody goes past position 1. Both work on the live track. "
        "Rejected: swapping only with the player whose position is taken."
    ),
    "R6": (
        "Peer income timing. Paid after the draft's reveal and before buying bulls, by acting "
        "position. Rejected: before the draft (no difference to the positions used)."
    ),
    "R7": (
        "Crown overflow. Above 6 the Crown stays at 6 and the excess goes 1 ducat at a time "
        "to the players in acting order, starting at the 1st and cycling. Rejected: all of it "
        "to the 1st player."
    ),
    "R8": (
        "Money. Every payment goes to the bank, and the bank is unlimited. For the King's "
        "levy, the ducats paid go to the bank and the Crown gains a flat 2. Rejected: "
        "payments to the Crown; a bank capped at 38."
    ),
    "R9": (
        "Crown ducat. Where a cost includes a Crown ducat, the Crown pays it while it holds "
        "ducats; only when the Crown is at 0 does the player pay it himself, and then he "
        "must. Rejected: the player chooses which pays."
    ),
    "R10": (
        "Market. 4 spaces, numbered from the right. The starting goods go in the printed "
        "order, so gold is in space 1; the fifth starting good begins the Surplus because the "
        "Market is full. Rejected: a larger Market."
    ),
    "R11": (
        'Merchant. He sells the good in Market space 1 (the "first" space) or the top of '
        "the Surplus, at the price max(0, 4 - m). Rejected: selling the most recent Market "
        "good; a negative price."
    ),
    "R12": (
        "Removed goods. Goods sold, raided, hoarded or cleared from the Church leave the "
        "game. Rejected: returning them to the stack."
    ),
    "R13": (
        'Admiral. The "not already in the Market" test is made before the tile is placed '
        "and before any good is pushed out. When the Market is full, the good pushed out goes "
        "on top of the Surplus. Rejected: testing after the push."
    ),
    "R14": (
        "Church. 4 spaces, each above a Market space. A Surplus donation may go to any empty "
        "space. At most one rose window per donation. Order: the donation's GP, then the rose "
        "window, then completion; completion turns every player's rose windows face up again. "
        "Rejected: only the donor's rose windows refresh."
    ),
    "R15": (
        "Refill. Refilled tiles are face up. A colony drawn during the refill moves at once "
        "to the first free colony space, and the same exploration space is filled again. An "
        "empty stack leaves spaces empty. If the tile turned up in row 1 at set-up is a "
        "colony, it moves at once. Rejected: face-down refills."
    ),
    "R16": (
        "Exploration target. The top-most face-down exploration tile; when there is none, "
        "the top of the stack goes into the top-most empty exploration space. The action is "
        "illegal when neither exists. Rejected: the action is lost once the face-down tiles "
        "from set-up are gone."
    ),
    "R17": (
        "Adjacency. A colony is adjacent to the exploration space in its own row only, and "
        "there are 7 colony spaces. Rejected: diagonal neighbours also count."
    ),
    "R18": (
        "Colony size. A colony holds as many houses as its printed maximum size (2 to 4), "
        "filled in order. Rejected: every colony holds 4 houses."
    ),
    "R19": (
        "What a tile does. Only face-up tiles ship, attack or can be taken. A colony ships "
        "whether or not it has houses: at the end of the turn each face-up goods tile beside "
        "a colony goes to the first free Market space, or on top of the Surplus when the "
        "Market is full. Rejected: only colonies with houses ship."
    ),
    "R20": (
        'Conquistador action 2. "Move a New World good to the Surplus, +2 ducats" belongs '
        "to the Conquistador, the only character otherwise missing a second action. Moving "
        "the good is optional and the 2 ducats are always gained. Rejected: a target is "
        "required."
    ),
    "R21": (
        'Passives. Only the Cardinal, Constable, King, Secretary and Viceroy have one. "1 '
        "ducat per bull bought\" is the Cardinal's, and it counts only bulls bought in the "
        "bull step at the start of the turn. Rejected: every character has a passive."
    ),
    "R22": (
        "Bulls. At most one bull per player per turn buys an extra action; bulls spent to "
        "pay a capture do not count against that limit. The extra character action comes "
        "after the round's character action, with the same card. A used bull goes back to "
        "the supply and may be bought again. Rejected: a single bull per turn whatever its "
        "use."
    ),
    "R23": (
        "Pirate without a target. Each Pirate action can be taken for its 2 ducats alone, "
        "but only when it has no legal target. Rejected: only when both actions lack a target."
    ),
    "R24": (
        "Raid victims. Every player with a house in the raided colony, the Pirate included. "
        "Rejected: other players only."
    ),
    "R25": (
        'Constable. "This round" in his passive means this turn. The swap may take only '
        "another player's tercio. Rejected: swapping out his own tercio."
    ),
    "R26": (
        "Passive timing. The Secretary and the Viceroy act at the draft's reveal; the King "
        "when his card is used, a pass included. Rejected: the Viceroy at the end of the turn."
    ),
    "R27": (
        "Levy. Players respond in acting order, and a player with no ducats loses the GP. "
        "The Crown's +2 and its overflow are applied first. Rejected: simultaneous responses."
    ),
    "R28": (
        "Negative GP. Allowed: a loan or a levy is never blocked by having 0 GP. Rejected: GP "
        "floored at 0."
    ),
    "R29": (
        "Magellan. The voyage is complete when the last card of the supply is taken, and the "
        "3 GP per card held are paid at once. Rejected: a printed route length."
    ),
    "R30": (
        "Estates. The buyer takes the top of a face-down stack. An estate's effect may be "
        "used in any of the owner's own rounds, the round of purchase included, and only if "
        "it applies in full. Rejected: the buyer chooses a face-down slot (the odds are the "
        "same); use at any time."
    ),
    "R31": (
        "Draft. Both passes use acting order. With 2 or 3 players the leftovers stay face "
        "down until the Crown's hoarding at the end of the turn. Rejected: a reversed second "
        "pass; revealing the leftovers at once (the printed rule keeps them face down)."
    ),
    "R32": "War level. Rolled once per turn, at its start. Rejected: once per round.",
    "R33": (
        "War placement. One tercio at a time in rotation, players ranked by the count they "
        "committed and then by acting order, as in the printed example. Rejected: each player "
        "places all of his before the next."
    ),
    "R34": (
        "Tercios. The starting tercios are active. Reactivation needs every owned tercio to "
        "be tired, so a tercio may be gained tired on purpose. Rejected: reactivating only "
        "the tired ones at any time."
    ),
    "R35": (
        "Bull penalty. -1 GP for every bull held at the end, however it was gained. "
        "Rejected: only bulls that were bought."
    ),
    "R36": (
        "Conversion. All owned tercios, all rose windows (either face) and the houses in "
        "stock count; pieces still in the box do not. Rejected: only active tercios and "
        "face-up rose windows."
    ),
    "R37": (
        "Sea trade. Ranking without gaps: every player tied at the top gets 5, the next value "
        "gets 3, the rest with presence get 1. The track has 15 spaces, and a player at 0 has "
        "no presence. Rejected: ranking with gaps, where a tie for first leaves no second "
        "place."
    ),
    "R38": (
        "Passing. A player may always use a character for no effect. Rejected: passing only "
        "when no action is legal."
    ),
    "R39": (
        "Legality. An action, or an option within it, is legal only if its costs can be paid "
        "in full and its targets exist. The only exceptions: the Pirate's actions without a "
        "target (R23), the Conquistador's action 2 (R20), the King's action 1, the Admiral's "
        "action 2, and steps past the end of the sea trade track. Rejected: paying for "
        "effects that do nothing."
    ),
    "R40": (
        "Two players. No changes beyond the printed supply counts: nobody is 3rd or 4th, so "
        "there is no peer ducat income. Rejected: an invented 2-player variant."
    ),
    "R41": (
        "Initial order. Random by default (option `initial_order`), because the printed "
        '"last to rule an empire" cannot be checked by the engine. Rejected: always seat '
        "order."
    ),
    "R42": (
        "Natives. At each end of turn, every face-up natives tile sends the last-built house "
        "of its row's colony back to its owner's stock, until the tile is captured. Rejected: "
        "a one-time effect."
    ),
    "R43": (
        "End-of-turn order. War, then natives, then shipping, then the Crown's hoarding, as "
        "printed in the turn steps. Rejected: shipping before natives."
    ),
    "R44": (
        "Blue colonies. On turns 2 and 5 the next blue colony goes into the first free colony "
        "space once the bulls are bought, so after that turn's refill. Both are size 3, so "
        "their order does not matter. Rejected: placed before the refill."
    ),
}
