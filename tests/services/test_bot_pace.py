"""A game's bot pace: how long its bots pause before each step. The host
sets it at the table, a rematch keeps it, and the step scheduled for a bot
waits the pause of its game's pace."""

from collections.abc import Callable
from typing import Any

import pytest

from games.live import botplay
from games.models import Game
from games.play import services
from games.rules import GameError
from games.runtime import runtime
from games.store.selectors import game_snapshot
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_person_alone_against_bots_starts_at_the_fast_pace_and_other_tables_at_normal():
    alone = services.game_create(guest_id="ana", name="Ana", seat_count=4, bot_level="solid")
    people = services.game_create(guest_id="ana", name="Ana", seat_count=3)
    watched = services.game_create(
        guest_id="ana", name="Ana", seat_count=3, bot_level="solid", watch=True
    )
    solitaire = services.game_create(guest_id="ana", name="Ana", seat_count=1, bot_level="solid")
    assert alone.bot_pace == "fast"
    assert (people.bot_pace, watched.bot_pace, solitaire.bot_pace) == ("normal",) * 3


def test_only_the_host_sets_the_bot_pace_on_the_version_shown_and_everyone_sees_it():
    game = factories.started_game(2)
    for guest in ("bo", "zed", ""):
        with pytest.raises(GameError, match="not_host"):
            services.game_bot_pace(
                token=game.token, guest_id=guest, version=game.version, pace="fast"
            )
    with pytest.raises(GameError, match="stale_version"):
        services.game_bot_pace(
            token=game.token, guest_id="ana", version=game.version - 1, pace="fast"
        )
    with pytest.raises(GameError, match="unknown_pace"):
        services.game_bot_pace(
            token=game.token, guest_id="ana", version=game.version, pace="ludicrous"
        )
    changed = services.game_bot_pace(
        token=game.token, guest_id="ana", version=game.version, pace="fast"
    )
    assert changed.version == game.version + 1
    assert game_snapshot(Game.objects.get(pk=game.pk))["bot_pace"] == "fast"


def test_the_bot_pace_cannot_change_once_the_game_is_over():
    game = factories.play_turns(factories.started_game(1))
    with pytest.raises(GameError, match="game_over"):
        services.game_bot_pace(token=game.token, guest_id="ana", version=game.version, pace="fast")


@pytest.mark.parametrize(("bot_level", "chosen"), [("", "fast"), ("beginner", "normal")])
def test_a_rematch_keeps_the_pace_the_host_chose(bot_level, chosen):
    game = factories.started_game(2, bot_level=bot_level)
    game = services.game_bot_pace(
        token=game.token, guest_id="ana", version=game.version, pace=chosen
    )
    game = factories.play_turns(game)
    new = services.game_rematch(token=game.token, guest_id="ana")
    assert new.bot_pace == chosen


def test_at_the_fast_pace_a_bot_pauses_a_share_of_the_normal_pause(settings):
    settings.YACHT_BOT_PAUSE = (0.6, 1.2)
    settings.YACHT_BOT_FAST_SHARE = 0.25

    def bounds(low: float, high: float) -> tuple[float, float]:
        return low, high

    assert botplay.pause("normal", bounds) == (0.6, 1.2)  # type: ignore[arg-type]
    assert botplay.pause("fast", bounds) == (0.15, 0.3)  # type: ignore[arg-type]
    assert 0.15 <= botplay.pause("fast") <= 0.3


class _Scheduled:
    """The bot steps ``botplay.schedule`` would start, by the delay each waits."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.delays: list[float] = []
        monkeypatch.setattr(runtime.loop, "call_soon", self.call_soon)
        monkeypatch.setattr(runtime.loop, "spawn", self.spawn)
        monkeypatch.setattr(botplay, "_step", self.step)

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> bool:
        callback(*args)
        return True

    def step(self, token: str, version: int, bots_only: bool, delay: float) -> None:
        self.delays.append(delay)

    def spawn(self, work: object, *, what: str) -> Any:
        class Task:
            def add_done_callback(self, callback: Callable[[object], None]) -> None:
                callback(self)

        return Task()


@pytest.mark.parametrize(("pace", "delay"), [("normal", 0.8), ("fast", 0.2)])
def test_the_step_scheduled_for_a_bot_waits_the_pause_of_its_games_pace(
    monkeypatch, settings, pace, delay
):
    settings.YACHT_BOT_PAUSE = (0.8, 0.8)
    settings.YACHT_BOT_FAST_SHARE = 0.25
    scheduled = _Scheduled(monkeypatch)
    game = factories.started_game(3, bot_level="solid")
    game = services.game_bot_pace(token=game.token, guest_id="ana", version=game.version, pace=pace)
    # Ana plays her turn: the first bot is to move.
    game = factories.play_turn(game)
    botplay.schedule(game_snapshot(game))
    assert scheduled.delays == [pytest.approx(delay)]
