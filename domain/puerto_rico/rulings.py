"""How the engine reads the points the printed rules leave open or that printings state
differently, most with the reading it rejects and the option where there is one. Comments,
docstrings and error messages cite each as `Rn`."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R1": (
        "Bank. Doubloons are unlimited; the rules never say what happens when the 86 coins "
        "run out. Goods, colonists, tiles and buildings are limited. Rejected: a finite bank "
        "(no rule covers a shortage)."
    ),
    "R2": (
        "VP as points. VP chips are whole points; the 1 and 5 denominations and change are "
        "ignored. The 5-player pool is the option `vp_pool_5p`: 122 (the original box, the "
        "default) or 126 (later boxes). The 3-player 75 and 4-player 100 are the same in all "
        "printings."
    ),
    "R3": (
        "No positions. Places on the island and in the city are not modelled. A large "
        "building needs two free city spaces, since buildings may be rearranged at will to "
        "make two free spaces adjacent. Tiles and buildings are never removed. Rejected: "
        "modelling the printed grid."
    ),
    "R4": (
        'Draft slots. Two slots each at costs 2, 5 and 8 (one printing\'s "2, 4 and 8" is a '
        "misprint); one slot each at 1, 3, 4, 6, 7 and 9; five at 10. In the 2-player game "
        "drafted small buildings come in one copy."
    ),
    "R5": (
        "Hacienda and forest house. Early expansion rules forbid both in one game; later "
        "texts describe how they combine. Default `allowed`; the option "
        "`forest_house_with_hacienda` `exclusive` keeps them apart. Only with the expansion."
    ),
    "R6": (
        "Order in simultaneous steps. Placing colonists in the mayor phase and storing goods "
        "after the captain phase, which a table may do at once, are asked one player at a "
        "time in order from the chooser (the rulebook's own fallback when order matters). "
        "Rejected: simultaneous hidden choices."
    ),
    "R7": (
        "Optional or automatic. The rules let a player ignore any violet power. The engine "
        "keeps as choices only the powers where declining can change something besides the "
        "owner's own gain: hacienda, hospice, university, construction hut, forest house, "
        "black market, office, trading post, wharf, small wharf, guest house, warehouses and "
        "storehouse (what to keep), and the mayor's colonist privilege. Gains of doubloons, "
        "goods and VP (markets, factory, specialty factory, aqueduct, harbor, lighthouse, "
        "church, union hall, and the trader's, captain's, prospector's and craftsman's "
        "privileges) are automatic. Rejected: asking every time (noise)."
    ),
    "R8": (
        "Production cannot be declined or reduced. Rejected: a command to decline production "
        'under the "actions are optional" rule.'
    ),
    "R9": (
        "Craftsman privilege. Taken after every player has produced, and only of a kind the "
        "craftsman actually received this phase that is still in the supply. Rejected: any "
        "kind he is able to produce, as some printings word it; it differs only when he "
        "received none of a kind, that is when its supply is empty anyway."
    ),
    "R10": (
        "Hospice. No colonist comes with the hacienda tile nor with the library's bonus tile; "
        "for a forest the colonist goes to San Juan."
    ),
    "R11": (
        "Forest source. A forest is the top tile of the face-down plantation stack, removed "
        "from play; its kind stays hidden. Rejected: turning over a face-up plantation."
    ),
    "R12": (
        "Empty stack mid-phase. Whenever a draw (refill, hacienda, forest) finds the "
        "plantation stack empty, the discard is first reshuffled into a new stack; if the "
        "discard is empty too, the draw is impossible: hacienda and forest are not offered "
        "and the row stays short. Rejected: the hacienda unusable whenever the stack is "
        "empty (inconsistent with the refill)."
    ),
    "R13": (
        "Colonist shortage. The end is triggered exactly when, at the end of a mayor phase, "
        "the supply holds fewer than max(number of players, empty building circles) "
        "colonists; what remains of the supply still goes onto the ship (the hospice and the "
        "university may take colonists from the ship later in the round). Running out at any "
        "other moment (mayor privilege, hospice, university) triggers nothing by itself. "
        "Rejected: leaving the remainder in the supply (the same in practice, since the "
        "hospice and university draw from the supply first)."
    ),
    "R14": (
        "VP run out outside the captain phase (the church, in the builder phase) also "
        "triggers the end, and so does running out through the union hall at the start of "
        "the captain phase. The original text names only the captain phase, which had the "
        "only VP source then; later errata say the same for every phase. Rejected: the "
        "captain phase only."
    ),
    "R15": (
        'Union hall timing. The text says "before his first shipment". The engine scores it '
        "for every owner at the start of the captain phase, after the guest window there; the "
        "result is the same (other players' shipments cannot change his goods) and an owner "
        "who never ships still scores. Rejected: at the owner's first shipment only."
    ),
    "R16": (
        "Harbor with wharf or small wharf. +1 VP per shipment action: every cargo-ship load, "
        "every wharf use and every small-wharf use. Likewise a first shipment by wharf or "
        "small wharf earns the captain's privilege, and the lighthouse pays per action. "
        "Rejected: +1 per kind shipped through the small wharf; a small-wharf use is one "
        "shipment action, like a wharf use, and no text ties the bonus to kinds."
    ),
    "R17": (
        "Aqueduct attribution. With a small and a large building of one kind, production is "
        "credited to the large building first (in the player's favour; the text is silent). "
        "Rejected: the small one first."
    ),
    "R18": (
        "Black market colonist. It may come from anywhere on the owner's board except the "
        "black market itself; the net cost, and the occupancy the church and the university "
        "count, are worked out after it is removed, so returning the only colonist of a "
        "counted quarry or of the library raises the net cost. Rejected: forbidding a "
        "colonist whose removal would change the discount."
    ),
    "R19": (
        "Lighthouse captain coin. Paid at the start of the captain phase, and only with an "
        "occupied lighthouse (as errata say); some printings' example pays it with the first "
        "shipment, and the totals are the same. Not doubled by the library: it is a "
        "building's power, not the role's privilege."
    ),
    "R20": (
        "Library and craftsman. The doubled privilege gives two goods of the same kind or of "
        "two kinds by default (`any`), which the rulebook's own largest specialty-factory "
        "example needs (7 barrels of one kind = 6 doubloons). The option "
        "`library_craftsman_goods` `different` asks for two different kinds, as some "
        "printings word it. Only with the expansion."
    ),
    "R21": (
        "Library in 2-player games. A once-per-round limit circulates in community rule sets, "
        "but no published text states it. Default `false`; the option "
        "`library_2p_once_per_round` makes the library double only one privilege per round. "
        "Only with the expansion and 2 players."
    ),
    "R22": (
        "Storage must be as full as possible. The player chooses which goods to keep within "
        "capacity but may not throw away goods he could still keep (no rule lets him discard "
        "goods). Rejected: free voluntary discard."
    ),
    "R23": "Ties after the tie-break are shared; the rules give no further criterion.",
    "R24": (
        "Secret VP. Running totals are hidden in views; the amounts awarded in events are "
        "not, because they follow from public actions and from the public count of VP chips "
        "left. Rejected: hiding the amounts and the supply count (the count decides the end "
        "and is visible at the table)."
    ),
    "R25": (
        "End of loading. Loading ends after as many passes in a row as there are players, so "
        "a wharf owner may pass and still use the wharf on a later turn while others keep "
        "loading. Rejected: a player who passes is done for the phase (the wharf may be used "
        '"when he chooses").'
    ),
    "R26": (
        "Empty-ship tie. If several empty ships would each take the same largest number of "
        "the player's barrels, he picks any of them."
    ),
    "R27": (
        "Wharf or small wharf instead of a possible cargo load is allowed (the wharf is used "
        '"instead of loading on a cargo ship"; the small wharf "is similar"). Rejected: '
        "only when no cargo load is possible."
    ),
    "R28": (
        "Captain example flaw. In the rulebook's 4-player captain example the second player "
        "keeps one sugar that could not be loaded, although the text says he has no goods "
        "left. The engine keeps that barrel."
    ),
    "R29": (
        'Guild hall example. One printing\'s example says "indigo plant" where another says '
        '"small indigo plant"; the stated +6 only adds up with the small one.'
    ),
    "R30": (
        "Settler with library and construction hut. The settler may take a quarry as the "
        "privilege and another as the library's bonus, since the bonus take is governed by "
        "the construction hut. Rejected: at most one quarry per settler phase (the text "
        "limits one per turn)."
    ),
    "R31": (
        "Statue. It counts for the city hall, takes 2 city spaces and gives the church +2 "
        "VP; a university colonist for it goes to San Juan."
    ),
    "R32": (
        "Residence and forests. Forests count as filled island spaces. Rejected: only "
        "plantations and quarries, as printed before the expansion."
    ),
    "R33": (
        "Guest house circles count for the rule that circles must be filled and for the "
        "colonist ship's refill, like any other building circles. Rejected: filling it is "
        'optional ("may place up to two").'
    ),
    "R34": (
        "Mayor privilege. The rules give it before the distribution; the engine records it "
        "with the mayor's placement, after the automatic distribution. The outcome is the "
        "same."
    ),
    "R35": (
        "Quarries may be taken only by the settler (as the privilege, instead of his face-up "
        "take) and by construction-hut owners (instead of theirs), one per turn, never when "
        "the quarry supply is empty."
    ),
    "R36": (
        "Guest moves. A guest-house owner moves guests at his own decision points and in "
        "guest windows (at the start of every craftsman and captain phase, and once before "
        "the final scoring unless the last phase was a mayor phase), never in the mayor "
        "phase and never back into the guest house. "
        "Rejected: at literally any instant (the same in effect, since guests change only "
        "the owner's own board, and unworkable for an event log)."
    ),
    "R37": (
        "Trading post and office together are allowed; the rulebook only recommends against "
        "drafting both."
    ),
}
