"""Duplicate play: every seat plays each round at the same time, on dice
from one shared stream.

A round is the turn every seat plays with the same box count behind it.
Each seat has its own hand (dice, holds, rolls used) and may act until it
has scored in the round; the round is over when every seat has scored, and
the next one begins by itself (the round number is read off the
scorecards, so nothing else has to be stored to resume one). The engine
still holds no randomness: ``apply`` is handed the dice for the roll, and
``roll_number`` says which roll of the round it is, so that the caller can
draw the round's shared dice (``games.rules.fairness.DuplicateDice``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import engine
from .engine import Action, DiceRoller, GameState, Hold, Roll, Scorecard
from .errors import GameError
from .rulesets import get_ruleset


@dataclass(frozen=True)
class Hand:
    """One seat's turn in the current round, before it scores."""

    dice: tuple[int, ...] = ()
    held: frozenset[int] = frozenset()
    rolls: int = 0


@dataclass(frozen=True)
class DuplicateState:
    ruleset_key: str
    cards: tuple[Scorecard, ...]
    hands: tuple[Hand, ...]

    @property
    def rounds(self) -> int:
        return len(get_ruleset(self.ruleset_key).categories)

    @property
    def finished(self) -> bool:
        return all(len(card.boxes) == self.rounds for card in self.cards)

    @property
    def round(self) -> int:
        """The round being played, from 1 (the last one once finished)."""
        return min(min(len(card.boxes) for card in self.cards) + 1, self.rounds)

    def has_scored(self, seat: int) -> bool:
        """Whether ``seat`` has played its turn of the current round."""
        return self.finished or len(self.cards[seat].boxes) >= self.round

    def view(self, seat: int) -> GameState | None:
        """``seat``'s turn as the turn-based engine sees it (it is the seat to
        move), or None once it has scored in this round."""
        if not 0 <= seat < len(self.cards) or self.has_scored(seat):
            return None
        hand = self.hands[seat]
        return GameState(
            ruleset_key=self.ruleset_key,
            cards=self.cards,
            current=seat,
            dice=hand.dice,
            held=hand.held,
            rolls=hand.rolls,
        )

    def roll_number(self, seat: int) -> int:
        """Which roll of the round (1-3) ``seat``'s next roll is."""
        return self.hands[seat].rolls + 1

    def scores(self) -> GameState:
        """The scorecards alone, for totals and winners."""
        return GameState(ruleset_key=self.ruleset_key, cards=self.cards)


def new_duplicate(ruleset_key: str, seats: int) -> DuplicateState:
    game = engine.new_game(ruleset_key, seats)
    return DuplicateState(ruleset_key, game.cards, tuple(Hand() for _ in range(seats)))


def apply(state: DuplicateState, seat: int, action: Action, rng: DiceRoller) -> DuplicateState:
    """``seat``'s action in its own turn of the current round."""
    if state.finished:
        raise GameError("game_over")
    if not 0 <= seat < len(state.cards):
        raise GameError("not_seated")
    view = state.view(seat)
    if view is None:
        raise GameError("round_wait")
    after = engine.apply(view, seat, action, rng)
    hands = list(state.hands)
    if isinstance(action, Roll | Hold):
        hands[seat] = Hand(after.dice, after.held, after.rolls)
        return replace(state, hands=tuple(hands))
    hands[seat] = Hand()
    return replace(state, cards=after.cards, hands=tuple(hands))
