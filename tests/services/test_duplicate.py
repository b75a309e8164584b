"""Duplicate games through the services: simultaneous rounds on shared dice,
stored so that a restart resumes them, and what each viewer may see."""

from __future__ import annotations

import pytest

from games.models import Game, Player
from games.play import services
from games.rules import Roll, Score, fairness
from games.store.selectors import (
    Snapshot,
    game_players,
    game_seat_moves,
    game_snapshot,
    last_action,
    recent,
    seen_by,
)

pytestmark = pytest.mark.django_db

GUESTS = ("ana", "bo", "cy")


def duplicate_game(seats: int = 3, *, perfect_reference: bool = False) -> Game:
    game = services.game_create(
        guest_id="ana",
        name="Ana",
        seat_count=seats,
        duplicate=True,
        perfect_reference=perfect_reference,
    )
    for guest in GUESTS[1:seats]:
        services.game_join(token=game.token, guest_id=guest, name=guest.title())
    return services.game_start(token=game.token, guest_id="ana")


def act(game: Game, guest: str, action: Roll | Score) -> Game:
    game.refresh_from_db()
    return services.game_act(token=game.token, guest_id=guest, version=game.version, action=action)


def seed_of(game: Game) -> bytes:
    return bytes.fromhex(game.server_seed)


def test_every_seat_rolls_the_rounds_shared_dice_in_any_order() -> None:
    game = duplicate_game()
    seed = seed_of(game)
    first = [fairness.duplicate_die(seed, 1, 1, p) for p in range(5)]
    for guest in ("cy", "ana", "bo"):
        game = act(game, guest, Roll())
    assert [p.dice for p in game_players(game)] == [first] * 3
    game = act(game, "bo", Roll(frozenset({0})))
    bo = Player.objects.get(game=game, guest_id="bo")
    assert bo.dice == [first[0], *(fairness.duplicate_die(seed, 1, 2, p) for p in range(1, 5))]
    assert bo.rolls_used == 2


def test_a_seat_that_has_scored_waits_for_the_round_and_the_round_ends_when_all_have() -> None:
    game = duplicate_game()
    for guest in GUESTS:
        game = act(game, guest, Roll())
    game = act(game, "ana", Score("choice"))
    with pytest.raises(services.GameError) as refused:
        act(game, "ana", Roll())
    assert refused.value.code == "round_wait"
    game = act(game, "bo", Score("choice"))
    snap = game_snapshot(game)
    assert snap["duplicate"] is not None and snap["duplicate"]["round"] == 1
    game = act(game, "cy", Score("yacht"))
    snap = game_snapshot(game)
    assert snap["duplicate"] is not None and snap["duplicate"]["round"] == 2
    assert snap["duplicate"]["results_round"] == 1
    assert [r["category"] for r in snap["duplicate"]["results"]] == ["choice", "choice", "yacht"]
    # The next round's dice are the round's own, for everyone.
    game = act(game, "ana", Roll())
    seed = seed_of(game)
    assert game_players(game)[0].dice == [fairness.duplicate_die(seed, 2, 1, p) for p in range(5)]


def test_a_round_in_progress_resumes_from_the_database_alone() -> None:
    game = duplicate_game(2)
    game = act(game, "ana", Roll())
    game = act(game, "ana", Roll(frozenset({1, 2})))
    game = act(game, "bo", Roll())
    game = act(game, "bo", Score("choice"))
    before = game_snapshot(game)
    # A restarted process knows nothing but the rows.
    recent().clear()
    game = Game.objects.get(pk=game.pk)
    after = game_snapshot(game)
    assert after == before
    game = act(game, "ana", Roll(frozenset({0})))
    ana = Player.objects.get(game=game, guest_id="ana")
    assert ana.rolls_used == 3
    game = act(game, "ana", Score("yacht"))
    snap = game_snapshot(game)
    assert snap["duplicate"] is not None and snap["duplicate"]["round"] == 2


def test_mid_round_a_seat_sees_only_its_own_dice_and_a_spectator_none() -> None:
    game = duplicate_game(2)
    game = act(game, "ana", Roll())
    game = act(game, "ana", Score("choice"))
    game = act(game, "bo", Roll())
    snap = game_snapshot(game)
    ana_sees, bo_sees, watcher_sees = seen_by(snap, 0), seen_by(snap, 1), seen_by(snap, None)
    bo_dice = game_players(game)[1].dice
    assert bo_sees["dice"] == bo_dice and bo_sees["current_seat"] == 1
    assert ana_sees["dice"] == [] and ana_sees["current_seat"] is None
    for view in (ana_sees, watcher_sees):
        assert view["duplicate"] is not None
        assert view["duplicate"]["hands"][1]["dice"] == []
        assert view["duplicate"]["hands"][1]["preview"] == {}
    # Ana's box of this round is hers alone until Bo has played it too.
    assert bo_sees["seats"][0]["boxes"] == {} and bo_sees["seats"][0]["total"] == 0
    assert watcher_sees["seats"][0]["boxes"] == {}
    assert watcher_sees["dice"] == []
    ana_points = ana_sees["seats"][0]["boxes"]["choice"]
    assert ana_sees["seats"][0]["total"] == ana_points
    # What announced Bo's roll carries its dice to Bo alone.
    pushed: Snapshot = {
        **snap,
        "last": last_action("roll", 1, game.moves.order_by("-version").first()),
    }
    own = seen_by(pushed, 1)["last"]
    assert own is not None and own["dice"] == bo_dice
    for viewer in (0, None):
        shown = seen_by(pushed, viewer)["last"]
        assert shown is not None and shown["dice"] == []


def test_the_log_of_a_duplicate_game_checks_against_its_seed() -> None:
    game = duplicate_game(2)
    for first, second in (("ones", "twos"), ("threes", "fours")):
        for guest in ("bo", "ana"):
            game = act(game, guest, Roll())
            game = act(game, guest, Roll(frozenset({4})))
        for guest in ("ana", "bo"):
            game = act(game, guest, Score(first))
        game = act(game, "ana", Roll())
        game = act(game, "ana", Score(second))
        game = act(game, "bo", Roll())
        game = act(game, "bo", Score(second))
    checked = fairness.check_duplicate_log(seed_of(game), game_seat_moves(game))
    assert len(checked) == 12
    assert all(mismatch is None for _roll, mismatch in checked)
    placed = {(r.round, r.roll) for r, _ in checked}
    assert placed == {(1, 1), (1, 2), (2, 1), (3, 1), (3, 2), (4, 1)}


def test_bots_play_their_turn_of_each_round_beside_the_people() -> None:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=3, duplicate=True)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_add_bot(token=game.token, guest_id="ana", level="solid")
    game = services.game_start(token=game.token, guest_id="ana")
    for guest in ("ana", "bo"):
        game = act(game, guest, Roll())
        game = act(game, guest, Score("choice"))
    snap = game_snapshot(game)
    assert snap["duplicate"] is not None and snap["duplicate"]["round"] == 1
    while True:
        game.refresh_from_db()
        try:
            services.game_bot_step(token=game.token, version=game.version)
        except services.GameError as error:
            assert error.code == "round_wait"
            break
    snap = game_snapshot(game)
    assert snap["duplicate"] is not None and snap["duplicate"]["round"] == 2


def test_another_seats_move_does_not_make_my_action_stale_but_a_double_click_is() -> None:
    game = duplicate_game(2)
    seen = game.version
    game = act(game, "bo", Roll())
    # Ana acts on the table she saw before Bo's roll: nothing of hers changed.
    game = services.game_act(token=game.token, guest_id="ana", version=seen, action=Roll())
    mine = game.version
    with pytest.raises(services.GameError) as refused:
        services.game_act(token=game.token, guest_id="ana", version=seen, action=Roll())
    assert refused.value.code == "stale_version"
    with pytest.raises(services.GameError) as refused:
        services.game_act(token=game.token, guest_id="ana", version=mine + 5, action=Roll())
    assert refused.value.code == "stale_version"
    services.game_act(token=game.token, guest_id="ana", version=mine, action=Score("choice"))


def test_the_how_it_works_line_shows_in_the_first_round_only() -> None:
    from games.present.rendering import table_message

    note = "Everyone plays the same dice at the same time."
    game = duplicate_game(2)
    assert note in table_message(game_snapshot(game), 0, "en")["html"]
    for guest in ("ana", "bo"):
        game = act(game, guest, Roll())
        game = act(game, guest, Score("choice"))
    # Round 2: the line would only push the scorecard down a phone's screen.
    html = table_message(game_snapshot(game), 0, "en")["html"]
    assert "Round 2" in html
    assert note not in html
