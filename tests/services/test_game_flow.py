import random
import threading

import pytest
from django.db import connection

from games import rules
from games.models import Game, Move, Player, ScoreEntry
from games.play import services
from games.rules import GameError, Roll, Score
from games.store.selectors import game_players, game_state
from tests import factories

pytestmark = pytest.mark.django_db


GUESTS = tuple(f"g{n}" for n in range(6))


def started_game(seats: int = 2, ruleset: str = "yacht") -> Game:
    return factories.started_game(seats, ruleset=ruleset, guests=GUESTS, host_name="Ana")


def act(game: Game, guest: str, action: rules.Action, rng: random.Random) -> Game:
    game.refresh_from_db()
    return services.game_act(
        token=game.token, guest_id=guest, version=game.version, action=action, rng=rng
    )


def row_counts() -> tuple[int, int, int, int]:
    return (
        Game.objects.count(),
        Player.objects.count(),
        ScoreEntry.objects.count(),
        Move.objects.count(),
    )


@pytest.mark.parametrize("ruleset", sorted(rules.RULESETS))
def test_a_two_seat_game_is_played_to_the_end_and_every_move_is_logged(rng, ruleset):
    game = started_game(2, ruleset)
    boxes = len(rules.get_ruleset(ruleset).categories)
    turns = 0
    while game.status == Game.Status.PLAYING:
        guest = f"g{game.current_seat}"
        game = act(game, guest, Roll(), rng)
        game = act(game, guest, Roll(frozenset({0, 1})), rng)
        state = game_state(game, game_players(game))
        best = max(state.preview().items(), key=lambda kv: kv[1])[0]
        game = act(game, guest, Score(best), rng)
        turns += 1
    assert turns == 2 * boxes
    assert game.status == Game.Status.FINISHED and game.finished_at is not None
    assert ScoreEntry.objects.filter(player__game=game).count() == 2 * boxes
    versions = list(game.moves.values_list("version", flat=True))
    assert versions == list(range(1, game.version + 1))
    state = game_state(game, game_players(game))
    for player in game_players(game):
        card = state.cards[player.order]
        stored = sum(player.scores.values_list("points", flat=True))
        bonus = sum(player.scores.values_list("extra_bonus", flat=True))
        upper = rules.totals(state.ruleset, card).upper_bonus
        assert rules.totals(state.ruleset, card).total == stored + bonus + upper


def test_the_move_log_replays_to_the_stored_scorecards(rng):
    game = started_game(1)
    for _ in range(12):
        game = act(game, "g0", Roll(), rng)
        state = game_state(game, game_players(game))
        game = act(game, "g0", Score(state.allowed_boxes()[0]), rng)
    state = rules.new_game("yacht", 1)
    for move in game.moves.filter(kind__in=["roll", "score"]).order_by("version"):
        if move.kind == "roll":
            rolled = [d for i, d in enumerate(move.dice) if i not in move.held]
            replay = rules.ScriptedDice(rolled)
            state = rules.apply(state, 0, Roll(frozenset(move.held)), replay)
            assert list(state.dice) == move.dice
        else:
            state = rules.apply(state, 0, Score(move.category), rng)
    assert state.finished
    assert dict(state.cards[0].boxes) == dict(
        ScoreEntry.objects.filter(player__game=game).values_list("category", "points")
    )


@pytest.mark.parametrize(
    ("guest", "version_offset", "action", "code"),
    [
        ("g1", 0, Roll(), "not_your_turn"),
        ("stranger", 0, Roll(), "not_seated"),
        ("", 0, Roll(), "not_seated"),
        ("g0", -1, Roll(), "stale_version"),
        ("g0", 1, Roll(), "stale_version"),
        ("g0", 0, Score("choice"), "must_roll_first"),
        ("g0", 0, Roll(frozenset({0})), "bad_hold"),
    ],
)
def test_an_illegal_action_is_rejected_with_its_code_and_writes_nothing(
    rng, guest, version_offset, action, code
):
    game = started_game(2)
    before = (row_counts(), game.version)
    with pytest.raises(GameError) as caught:
        services.game_act(
            token=game.token,
            guest_id=guest,
            version=game.version + version_offset,
            action=action,
            rng=rng,
        )
    assert caught.value.code == code
    game.refresh_from_db()
    assert (row_counts(), game.version) == before


def test_scoring_a_filled_box_or_rolling_a_fourth_time_is_rejected(rng):
    game = started_game(1)
    for _ in range(3):
        game = act(game, "g0", Roll(), rng)
    with pytest.raises(GameError, match="no_rolls_left"):
        act(game, "g0", Roll(), rng)
    game = act(game, "g0", Score("choice"), rng)
    game = act(game, "g0", Roll(), rng)
    with pytest.raises(GameError, match="category_filled"):
        act(game, "g0", Score("choice"), rng)
    with pytest.raises(GameError, match="unknown_category"):
        act(game, "g0", Score("chance"), rng)


def test_acting_before_the_start_or_after_the_end_is_rejected(rng):
    game = services.game_create(guest_id="g0", name="Ana", seat_count=2)
    with pytest.raises(GameError, match="not_started"):
        act(game, "g0", Roll(), rng)
    game = services.game_start(token=game.token, guest_id="g0")
    for _ in range(12):
        game = act(game, "g0", Roll(), rng)
        state = game_state(game, game_players(game))
        game = act(game, "g0", Score(state.allowed_boxes()[0]), rng)
    assert game.status == Game.Status.FINISHED
    with pytest.raises(GameError, match="game_over"):
        act(game, "g0", Roll(), rng)


def test_joining_is_limited_to_free_seats_before_the_start_and_one_seat_per_guest():
    game = services.game_create(guest_id="g0", name="Ana", seat_count=2)
    again = services.game_join(token=game.token, guest_id="g0", name="Ana again")
    assert again.order == 0 and again.name == "Ana"
    services.game_join(token=game.token, guest_id="g1", name="Bo")
    with pytest.raises(GameError, match="game_full"):
        services.game_join(token=game.token, guest_id="g2", name="Cy")
    with pytest.raises(GameError, match="not_host"):
        services.game_start(token=game.token, guest_id="g1")
    services.game_start(token=game.token, guest_id="g0")
    with pytest.raises(GameError, match="already_started"):
        services.game_join(token=game.token, guest_id="g3", name="Di")


def test_names_are_trimmed_and_bounded():
    game = services.game_create(guest_id="g0", name="  Ana \n  María ", seat_count=1)
    assert game.players.get().name == "Ana María"
    for bad in ["", "   ", "x" * 25]:
        with pytest.raises(GameError, match="bad_name"):
            services.game_create(guest_id="g0", name=bad)


def test_starting_with_fewer_players_than_seats_closes_the_empty_seats(rng):
    game = services.game_create(guest_id="g0", name="Ana", seat_count=4)
    game = services.game_start(token=game.token, guest_id="g0")
    assert game.seat_count == 1
    game = act(game, "g0", Roll(), rng)
    game = act(game, "g0", Score("choice"), rng)
    assert game.current_seat == 0


def test_a_rematch_seats_the_same_players_in_a_new_started_game(rng):
    game = started_game(3)
    with pytest.raises(GameError, match="not_finished"):
        services.game_rematch(token=game.token, guest_id="g0")
    while game.status == Game.Status.PLAYING:
        guest = f"g{game.current_seat}"
        game = act(game, guest, Roll(), rng)
        state = game_state(game, game_players(game))
        game = act(game, guest, Score(state.allowed_boxes()[0]), rng)
    new = services.game_rematch(token=game.token, guest_id="g1")
    assert services.game_rematch(token=game.token, guest_id="g0") == new
    assert new.status == Game.Status.PLAYING
    # The same people, the first roll one seat on: who was second opens.
    before = [(p.name, p.guest_id) for p in game_players(game)]
    assert [(p.name, p.guest_id) for p in game_players(new)] == before[1:] + before[:1]
    assert (new.ruleset, new.hints) == (game.ruleset, game.hints)


def test_a_rematch_keeps_hints_on(rng):
    game = factories.started_game(1, guests=GUESTS, hints=True)
    while game.status == Game.Status.PLAYING:
        game = act(game, "g0", Roll(), rng)
        state = game_state(game, game_players(game))
        game = act(game, "g0", Score(state.allowed_boxes()[0]), rng)
    new = services.game_rematch(token=game.token, guest_id="g0")
    assert new.hints is True


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_actions_on_the_same_version_apply_exactly_once():
    game = started_game(1)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def attempt() -> None:
        try:
            barrier.wait()
            services.game_act(
                token=game.token,
                guest_id="g0",
                version=game.version,
                action=Roll(),
                rng=random.Random(),
            )
            outcomes.append("applied")
        except GameError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    for _ in range(10):
        game.refresh_from_db()
        if game.rolls_used == 3:
            game = act(
                game,
                "g0",
                Score(game_state(game, game_players(game)).allowed_boxes()[0]),
                random.Random(),
            )
            game.refresh_from_db()
        outcomes.clear()
        threads = [threading.Thread(target=attempt) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["applied", "stale_version"]
    assert Move.objects.filter(game=game, kind="roll").count() == 10


def test_a_hold_is_an_action_with_its_own_version_and_logged_move():
    game = factories.lobby_game()
    services.game_start(token=game.token, guest_id="ana")
    game = services.game_roll(token=game.token, guest_id="ana", version=3)
    dice = list(game.dice)
    game = services.game_hold(token=game.token, guest_id="ana", version=4, dice=[1, 4])
    assert (game.version, game.held, list(game.dice)) == (5, [1, 4], dice)
    hold = game.moves.latest("version")
    assert (hold.kind, hold.held, hold.dice) == (Move.Kind.HOLD, [1, 4], dice)
    with pytest.raises(GameError) as stale:
        services.game_hold(token=game.token, guest_id="ana", version=4, dice=[1])
    assert stale.value.code == "stale_version"
    game = services.game_roll(token=game.token, guest_id="ana", version=5)
    assert game.held == [1, 4] and [game.dice[1], game.dice[4]] == [dice[1], dice[4]]
    game = services.game_roll(token=game.token, guest_id="ana", version=6)
    with pytest.raises(GameError) as late:
        services.game_hold(token=game.token, guest_id="ana", version=7, dice=[])
    assert late.value.code == "no_rolls_left"
