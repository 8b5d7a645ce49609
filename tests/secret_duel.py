"""Secret Duel: a tiny game written only for the tests of the core (not hosted in production).

It has what the core must get right for every real game: a secret shuffled deck, secret
hands, simultaneous secret commitments revealed together, sequential turns and a result.

Each round every seat secretly commits a card from its hand (all at once); when the last
commitment arrives the cards are revealed and the highest card's seat scores the sum of all
committed cards. Then, in seat order, each seat draws the top card of the deck or passes.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

from domain.contract import (
    Result,
    RuleError,
    decide_then_evolve,
    deep_clone,
    illegal,
    not_your_turn,
    rank,
)


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    rounds: int = 3
    hand_size: int = 3


class Commit(
    msgspec.Struct, tag="commit", tag_field="type", frozen=True, forbid_unknown_fields=True
):
    card: int


class Draw(msgspec.Struct, tag="draw", tag_field="type", frozen=True, forbid_unknown_fields=True):
    pass


class Pass(msgspec.Struct, tag="pass", tag_field="type", frozen=True, forbid_unknown_fields=True):
    pass


Command = Commit | Draw | Pass


class DeckShuffled(msgspec.Struct, tag="deck_shuffled", tag_field="type"):
    deck: list[int] | None  # None when redacted


class HandDealt(msgspec.Struct, tag="hand_dealt", tag_field="type"):
    seat: int
    cards: list[int] | None


class Committed(msgspec.Struct, tag="committed", tag_field="type"):
    seat: int
    card: int | None


class Revealed(msgspec.Struct, tag="revealed", tag_field="type"):
    cards: list[int]
    winner: int
    points: int


class Drew(msgspec.Struct, tag="drew", tag_field="type"):
    seat: int
    card: int | None


class Passed(msgspec.Struct, tag="passed", tag_field="type"):
    seat: int


class Ended(msgspec.Struct, tag="ended", tag_field="type"):
    scores: list[int]


Event = DeckShuffled | HandDealt | Committed | Revealed | Drew | Passed | Ended


class State(msgspec.Struct, kw_only=True):
    seats: int
    rounds: int
    hand_size: int
    round: int = 1
    deck: list[int] = []
    hands: list[list[int]] = []
    committed: list[int | None] = []
    scores: list[int] = []
    phase: str = "commit"  # commit | draw | over
    turn: int = 0  # the seat to draw or pass in the draw phase
    played: list[int] = []  # the cards revealed so far, out of the game


class View(msgspec.Struct, kw_only=True):
    options: Options
    round: int
    phase: str
    turn: int
    deck_size: int
    hand: list[int] | None
    hand_sizes: list[int]
    committed: list[bool]
    my_commitment: int | None
    scores: list[int]
    played: list[int]
    deck: list[int] | None = None  # only once the game is over
    hands: list[list[int]] | None = None


class SecretDuel:
    name = "secret-duel"
    title = "Secret Duel (test game)"
    min_players = 2
    max_players = 4
    options_type = Options
    command_type = Command
    event_type = Event
    bots: dict[str, Any] = {}
    can_sample_hidden = False  # no `sample_hidden`: random bots only, no `mcts`
    evaluation = None
    rollout_bot = None

    def validate_options(self, options: Options, seats: int) -> None:
        if not 1 <= options.rounds <= 10:
            raise RuleError("invalid_options.rounds", "rounds must be 1..10")
        if not 1 <= options.hand_size <= 5:
            raise RuleError("invalid_options.hand_size", "hand must be 1..5")

    def initial(self, options: Options, seats: int) -> State:
        return State(
            seats=seats,
            rounds=options.rounds,
            hand_size=options.hand_size,
            hands=[[] for _ in range(seats)],
            committed=[None] * seats,
            scores=[0] * seats,
        )

    def setup(self, options: Options, seats: int, rng: random.Random) -> list[Any]:
        deck = _cards(options, seats)
        rng.shuffle(deck)
        events: list[Any] = [DeckShuffled(deck=list(deck))]
        for seat in range(seats):
            events.append(HandDealt(seat=seat, cards=deck[: options.hand_size]))
            del deck[: options.hand_size]
        return events

    def clone(self, state: State) -> State:
        return deep_clone(state)

    def decide_evolve(
        self, state: State, seat: int, command: Any, rng: random.Random
    ) -> tuple[list[Any], State]:
        return decide_then_evolve(self, state, seat, command, rng)

    def awaiting(self, state: State) -> list[int]:
        if state.phase == "commit":
            return [s for s in range(state.seats) if state.committed[s] is None]
        if state.phase == "draw":
            return [state.turn]
        return []

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        if seat not in self.awaiting(state):
            return []
        if state.phase == "commit":
            return [Commit(card) for card in sorted(set(state.hands[seat]))]
        return ([Draw()] if state.deck else []) + [Pass()]

    def decide(self, state: State, seat: int, command: Any, rng: random.Random) -> list[Any]:
        if state.phase == "over":
            raise illegal("game_over", "the game is over")
        if seat not in self.awaiting(state):
            raise not_your_turn(seat)
        if isinstance(command, Commit):
            if state.phase != "commit":
                raise illegal("wrong_phase", "cards are committed only in the commit phase")
            if command.card not in state.hands[seat]:
                raise illegal("not_in_hand", "you do not hold that card")
            events: list[Any] = [Committed(seat=seat, card=command.card)]
            cards = [command.card if s == seat else c for s, c in enumerate(state.committed)]
            if all(c is not None for c in cards):
                shown = [c for c in cards if c is not None]
                best = max(shown)
                events.append(Revealed(cards=shown, winner=shown.index(best), points=sum(shown)))
            return events
        if state.phase != "draw":
            raise illegal("wrong_phase", "draw or pass only in the draw phase")
        if isinstance(command, Draw):
            if not state.deck:
                raise illegal("deck_empty", "the deck is empty")
            events = [Drew(seat=seat, card=state.deck[0])]
        else:
            events = [Passed(seat=seat)]
        last_turn = seat == state.seats - 1
        if last_turn and state.round == state.rounds:
            after = list(state.scores)
            events.append(Ended(scores=after))
        return events

    def evolve(self, state: State, event: Any) -> State:
        match event:
            case DeckShuffled(deck=deck):
                state.deck = list(deck or [])
            case HandDealt(seat=seat, cards=cards):
                state.hands[seat] = list(cards or [])
                del state.deck[: len(state.hands[seat])]
            case Committed(seat=seat, card=card):
                state.committed[seat] = card
                if card is not None:
                    state.hands[seat].remove(card)
            case Revealed(cards=cards, winner=winner, points=points):
                state.scores[winner] += points
                state.played.extend(cards)
                state.committed = [None] * state.seats
                state.phase, state.turn = "draw", 0
            case Drew(seat=seat, card=card):
                state.hands[seat].append(state.deck.pop(0) if card is not None else 0)
                self._next_turn(state)
            case Passed():
                self._next_turn(state)
            case Ended():
                state.phase = "over"
        return state

    @staticmethod
    def _next_turn(state: State) -> None:
        if state.turn < state.seats - 1:
            state.turn += 1
        elif state.round < state.rounds:
            state.round += 1
            state.phase = "commit" if all(state.hands) else "over"
        else:
            state.phase = "over"

    def view(self, state: State, seat: int | None) -> View:
        over = state.phase == "over"
        return View(
            options=Options(rounds=state.rounds, hand_size=state.hand_size),
            round=state.round,
            phase=state.phase,
            turn=state.turn,
            deck_size=len(state.deck),
            hand=list(state.hands[seat]) if seat is not None else None,
            hand_sizes=[len(h) for h in state.hands],
            committed=[c is not None for c in state.committed],
            my_commitment=state.committed[seat] if seat is not None else None,
            scores=list(state.scores),
            played=list(state.played),
            deck=list(state.deck) if over else None,
            hands=[list(h) for h in state.hands] if over else None,
        )

    def state_from_view(self, view: View, seat: int, rng: random.Random) -> State:
        """The seat's hand and commitment as the view shows them; the cards it sees nowhere
        (neither in its hand nor played) dealt at random to the other hands and commitments,
        the rest the deck."""
        seats = len(view.hand_sizes)
        state = self.initial(view.options, seats)
        state.round, state.phase, state.turn = view.round, view.phase, view.turn
        state.scores, state.played = list(view.scores), list(view.played)
        if view.hands is not None and view.deck is not None:  # over: everything is shown
            state.hands, state.deck = [list(h) for h in view.hands], list(view.deck)
            return state
        mine = view.hand or []
        seen = {*mine, *state.played, view.my_commitment}
        unseen = [card for card in _cards(view.options, seats) if card not in seen]
        rng.shuffle(unseen)
        for other in range(seats):
            if other == seat:
                state.hands[other] = list(mine)
                state.committed[other] = view.my_commitment
            else:
                state.hands[other] = [unseen.pop() for _ in range(view.hand_sizes[other])]
                state.committed[other] = unseen.pop() if view.committed[other] else None
        assert len(unseen) == view.deck_size, f"{len(unseen)} unseen, {view.deck_size} in deck"
        state.deck = unseen
        return state

    def redact(self, event: Any, seat: int | None) -> Any:
        match event:
            case DeckShuffled():
                return DeckShuffled(deck=None)
            case HandDealt(seat=owner) | Committed(seat=owner) | Drew(seat=owner) if owner != seat:
                return msgspec.structs.replace(event, **{_SECRET[type(event)]: None})
        return event

    def result(self, state: State) -> Result | None:
        if state.phase != "over":
            return None
        keys = [(score, -len(hand)) for score, hand in zip(state.scores, state.hands, strict=True)]
        return Result(scores=list(state.scores), ranks=rank(keys), tiebreak=[[-k[1]] for k in keys])

    def describe(self, event: Any, seat: int | None) -> str:
        shown = msgspec.to_builtins(self.redact(event, seat))
        kind = shown.pop("type")
        return f"{kind.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in shown.items())

    def render(self, view: Any) -> str:
        from domain.markup import board

        return board("secret-duel", view, [], set())


_SECRET = {HandDealt: "cards", Committed: "card", Drew: "card"}


def _cards(options: Options, seats: int) -> list[int]:
    """The whole deck, in order."""
    return list(range(1, seats * (options.hand_size + options.rounds) + 6))


GAME = SecretDuel()
