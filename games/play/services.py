"""Every change to a game goes through here.

Each verb runs in one transaction that locks the game row, checks who is
asking and the version they acted on, lets the rules engine decide, writes
the rows, bumps the version and registers the push with ``on_commit``, so
nobody hears of a change that could still roll back.
"""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Callable, Collection, Sequence

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import rules
from games.models import (
    BOT_LEVELS,
    BOT_PACES,
    MAX_SEATS,
    NAME_MAX_LENGTH,
    TURN_CLOCKS,
    ChatMessage,
    DailyChallenge,
    Game,
    Move,
    Player,
)
from games.play import moves
from games.play.chat import read_chat
from games.play.days import is_over
from games.play.names import bot_name, clean_name, require_distinct
from games.rules import GameError, fairness
from games.runtime import runtime
from games.store import writes
from games.store.known import committed_seats, lock_game, locked_game_seats, remembered_game
from games.store.selectors import (
    Last,
    chat_line,
    clock_ran_out,
    game_by_token,
    game_players,
    game_state,
    last_action,
    rules_table,
    seat_among,
    snapshot,
)


def _locked(token: str) -> Game:
    game = lock_game(token)
    if game is None:
        raise GameError("no_such_game")
    return game


def _fair_seed() -> dict[str, str]:
    """A new game's secret seed and the commitment to it that is shown from the start."""
    seed = fairness.new_seed()
    return {"server_seed": seed.hex(), "seed_commitment": fairness.commitment(seed)}


def _dice_source(dice_entered: bool) -> dict[str, str | bool]:
    """Where a new game's dice come from: the fair seed, or (a companion
    game) the players, with no seed to commit to since no die comes from it."""
    if dice_entered:
        return {"dice_entered": True}
    return {**_fair_seed()}


def _require_companion(bots: object, turn_seconds: int, duplicate: bool) -> None:
    """A companion game's settings: nothing in it may need the server's
    dice (a bot, the stand-in bot of a turn clock, duplicate rounds)."""
    if bots or turn_seconds or duplicate:
        raise GameError("companion_alone")


def _commit(
    game: Game,
    players: Sequence[Player],
    state: rules.GameState | None,
    *,
    fields: Sequence[str],
    last: Last,
    new_turn: bool = False,
) -> None:
    """Move the version on, set the turn clock, write ``game``'s ``fields``
    under its row lock and publish the new snapshot once committed."""
    since = game.version
    game.version += 1
    game.acted_at = timezone.now()
    moves.wind_clock(game, players, new_turn=new_turn, state=state, now=game.acted_at)
    writes.write_locked(
        writes.Rows(game=game, fields=writes.saved_fields(fields), since=since),
        functools.partial(_publisher, game, players, state, last),
    )


def _publisher(
    game: Game, players: Sequence[Player], state: rules.GameState | None, last: Last
) -> Callable[[], None]:
    """What publishes a written change once it is committed. The snapshot is
    taken now, after the write: a duplicate game's reads the rounds scored."""
    snap = snapshot(game, players, state, last)

    def publish() -> None:
        if state is not None:
            # The next move of this game here starts from this row, these seats and cards.
            committed_seats().remember(game, players, state.cards)
        runtime.commits.committed(snap)

    return publish


def game_publisher(plan: moves.Plan) -> Callable[[], None]:
    """``_publisher`` of a written move: for the sockets' loop, which writes
    a move itself (``games.live.loopmoves``)."""
    return _publisher(plan.rows.game, plan.players, plan.state, plan.last)


def game_create(
    *,
    guest_id: str,
    name: str,
    seat_count: int = 2,
    ruleset: str = rules.DEFAULT_RULESET,
    hints: bool = False,
    bot_level: str = "",
    watch: bool = False,
    turn_seconds: int = 0,
    duplicate: bool = False,
    perfect_reference: bool = False,
    dice_entered: bool = False,
) -> Game:
    """A new game in its lobby, the creator in seat 1 as host.

    A ``dice_entered`` game (a companion to real dice) has the players
    enter the faces they threw; it has hints on, and no bots, clock or
    duplicate rounds (``companion_alone``): each of them needs server dice.

    A ``duplicate`` game is played in simultaneous rounds on shared dice;
    with ``perfect_reference`` the perfect player plays those dice too, and
    its score is shown at the end.

    With ``bot_level``, every other seat is filled with a bot of that level;
    with ``watch`` too, bots take every seat and the game starts at once, for
    its creator and anyone with the link to watch.
    """
    _require_guest(guest_id)
    name = clean_name(name)
    _require_settings(ruleset, seat_count, bot_level, watch, turn_seconds)
    if dice_entered:
        _require_companion(bot_level or watch, turn_seconds, duplicate)
    with transaction.atomic():
        game = Game.objects.create(
            ruleset=ruleset,
            seat_count=seat_count,
            hints=hints or dice_entered,
            turn_seconds=turn_seconds,
            duplicate=duplicate,
            perfect_reference=duplicate and perfect_reference,
            bot_pace=_first_pace(seat_count=seat_count, bot_level=bot_level, watch=watch),
            version=1,
            acted_at=timezone.now(),
            **_dice_source(dice_entered),
        )
        players = _seated(game, guest_id="" if watch else guest_id, name=name, bots=bot_level)
        if watch:
            _start_at_once(game, players)
    return game


def game_create_shared(
    *,
    guest_id: str,
    names: Sequence[str],
    bots: int = 0,
    bot_level: str = "",
    ruleset: str = rules.DEFAULT_RULESET,
    hints: bool = False,
    turn_seconds: int = 0,
    dice_entered: bool = False,
) -> Game:
    """Pass and play: a game whose people all play on the device of the
    browser that made it, every person's seat bound to its one guest, then
    ``bots`` bots of ``bot_level``. Every seat is taken, so it starts at once.
    With ``dice_entered``, a companion game (see ``game_create``).

    The device acts only for the seat to move (``rules.seat_acting``), so a
    person can never play another's turn from it.
    """
    _require_guest(guest_id)
    people = [clean_name(name) for name in names]
    seat_count = len(people) + bots
    if len(people) < 2 or bots < 0 or seat_count > MAX_SEATS:
        raise GameError("bad_seat_count")
    _require_settings(ruleset, seat_count, bot_level if bots else "", False, turn_seconds)
    if dice_entered:
        _require_companion(bots, turn_seconds, False)
    for order, name in enumerate(people):
        require_distinct(name, people[:order])
    with transaction.atomic():
        game = Game.objects.create(
            ruleset=ruleset,
            seat_count=seat_count,
            hints=hints or dice_entered,
            turn_seconds=turn_seconds,
            version=1,
            acted_at=timezone.now(),
            **_dice_source(dice_entered),
        )
        players = [
            Player.objects.create(game=game, order=order, name=name, guest_id=guest_id, shared=True)
            for order, name in enumerate(people)
        ]
        for order in range(len(people), seat_count):
            name = bot_name(order, [p.name for p in players])
            players.append(Player.objects.create(game=game, order=order, name=name, bot=bot_level))
        _start_at_once(game, players)
    return game


def game_create_paired(
    *, seats: Sequence[tuple[str, str]], ruleset: str, turn_seconds: int
) -> Game:
    """Play now: strangers from the queue, each (guest, name) of ``seats`` in
    a seat bound to its own browser, in a game started at once. The turn
    clock keeps it moving: a person who leaves has the stand-in bot play
    each of their turns as it runs out. Two people who gave look-alike names
    are told apart by their seat's number."""
    for guest_id, _name in seats:
        _require_guest(guest_id)
    _require_settings(ruleset, len(seats), "", False, turn_seconds)
    names: list[str] = []
    for order, (_guest, name) in enumerate(seats):
        names.append(_unlike(clean_name(name), names, order))
    with transaction.atomic():
        game = Game.objects.create(
            ruleset=ruleset,
            seat_count=len(seats),
            turn_seconds=turn_seconds,
            version=1,
            acted_at=timezone.now(),
            **_fair_seed(),
        )
        players = [
            Player.objects.create(game=game, order=order, name=name, guest_id=guest_id)
            for order, ((guest_id, _name), name) in enumerate(zip(seats, names, strict=True))
        ]
        _start_at_once(game, players)
    return game


def _unlike(name: str, taken: Sequence[str], order: int) -> str:
    """``name``, or with its seat's number if it looks like one taken."""
    try:
        require_distinct(name, taken)
    except GameError:
        suffix = f" {order + 1}"
        return name[: NAME_MAX_LENGTH - len(suffix)] + suffix
    return name


def _first_pace(*, seat_count: int, bot_level: str, watch: bool) -> str:
    """How fast a new game's bots play. A person alone against bots gets the
    fast pace: the bots' pauses are there so people can follow one another,
    and with nobody else at the table they only make that one person wait
    (the host can slow them down at the table). Everyone else starts at the
    normal pace."""
    return "fast" if bot_level and not watch and seat_count > 1 else "normal"


def _start_at_once(game: Game, players: list[Player]) -> None:
    """A game whose seats are all taken as it is made starts at once: one
    made to be watched (bots hold every seat), or a pass-and-play one;
    nobody is waited for in a lobby."""
    game.status = Game.Status.PLAYING
    game.started_at = timezone.now()
    Move.objects.create(game=game, version=1, kind=Move.Kind.START)
    _commit(
        game,
        players,
        rules.new_game(game.ruleset, game.seat_count),
        fields=["status", "started_at"],
        last=last_action("start"),
        new_turn=True,
    )


def game_create_daily(*, challenge: DailyChallenge, guest_id: str, name: str) -> Game:
    """A day's challenge entry: a duplicate solitaire on the day's seed and
    rule set, started at once. Inside the caller's transaction, which also
    writes the entry (``daily.daily_enter`` checks who may enter)."""
    now = timezone.now()
    game = Game.objects.create(
        ruleset=challenge.ruleset,
        seat_count=1,
        duplicate=True,
        daily=challenge,
        status=Game.Status.PLAYING,
        started_at=now,
        acted_at=now,
        version=2,
        server_seed=challenge.server_seed,
        seed_commitment=challenge.seed_commitment,
    )
    player = Player.objects.create(game=game, order=0, name=name, guest_id=guest_id)
    Move.objects.create(game=game, player=player, version=1, kind=Move.Kind.JOIN)
    Move.objects.create(game=game, player=player, version=2, kind=Move.Kind.START)
    state = rules.new_game(game.ruleset, 1)
    transaction.on_commit(_publisher(game, [player], state, last_action("start", 0)))
    return game


def _require_settings(
    ruleset: str, seat_count: int, bot_level: str, watch: bool, turn_seconds: int
) -> None:
    """A new game's settings, each one the game knows, or the refusal."""
    if ruleset not in rules.RULESETS:
        raise GameError("unknown_ruleset")
    if not 1 <= seat_count <= MAX_SEATS:
        raise GameError("bad_seat_count")
    if (bot_level or watch) and bot_level not in _BOT_LEVELS:
        raise GameError("unknown_bot")
    if turn_seconds not in _TURN_CLOCKS:
        raise GameError("unknown_clock")


def _seated(game: Game, *, guest_id: str, name: str, bots: str) -> list[Player]:
    """A new game's first seats: its creator's (none for a game to watch),
    then with ``bots`` a bot of that level in every other seat."""
    players = []
    if guest_id:
        host = Player.objects.create(game=game, order=0, name=name, guest_id=guest_id)
        Move.objects.create(game=game, player=host, version=1, kind=Move.Kind.JOIN)
        players.append(host)
    if bots:
        for order in range(len(players), game.seat_count):
            taken = [p.name for p in players]
            players.append(
                Player.objects.create(game=game, order=order, name=bot_name(order, taken), bot=bots)
            )
    return players


_BOT_LEVELS = {key for key, _label in BOT_LEVELS}
_TURN_CLOCKS = {seconds for seconds, _label in TURN_CLOCKS}
_BOT_PACES = {pace for pace, _label in BOT_PACES}


def _time_up(game: Game, players: Sequence[Player]) -> list[Player]:
    """On a locked game whose turn clock has run out: the stand-in bot takes
    the seat to move; in a duplicate game, every seat whose person has not
    played the round. It plays that turn to its end, and nothing its person
    sends meanwhile is taken (``time_up``); then it leaves the seat, whose
    person plays their next turn as ever (``moves.decide``). The seats,
    none when the clock had not run out."""
    if not clock_ran_out(game.status, game.turn_deadline):
        return []
    state = game_state(game, players)
    seats = moves.still_to_play(players, state) if game.duplicate else [players[game.current_seat]]
    if not seats:
        return []
    for seat in seats:
        seat.bot = STAND_IN_LEVEL
        seat.save(update_fields=["bot"])
    who = seats[0].order if len(seats) == 1 else None
    _commit(game, players, state, fields=[], last=last_action("clock", who))
    return seats


def game_clock_expire(*, token: str, version: int | None = None) -> bool:
    """If the turn clock of the game (at ``version``, when given) has run
    out, a bot plays for the seat to move. True if this call did it.

    Any process may call it for the same deadline, any number of times: the
    first locks the row, acts and bumps the version; the others find the
    version moved on (or no deadline left) and change nothing.
    """
    with transaction.atomic():
        game = _locked(token)
        if version is not None and version != game.version:
            return False
        return bool(_time_up(game, game_players(game)))


def game_add_bot(*, token: str, guest_id: str, level: str) -> Player:
    """The host fills the next free seat with a bot, before the start."""
    if level not in _BOT_LEVELS:
        raise GameError("unknown_bot")
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        _check(game, players, guest_id, "add_bot")
        name = bot_name(len(players), [p.name for p in players])
        bot = Player.objects.create(game=game, order=len(players), name=name, bot=level)
        _commit(game, [*players, bot], None, fields=[], last=last_action("join", bot.order))
    return bot


def game_remove_bot(*, token: str, guest_id: str, seat: int) -> None:
    """The host takes a bot off its seat before the start; later seats move up."""
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        _check(game, players, guest_id, "remove_bot")
        target = next((p for p in players if p.order == seat), None)
        if target is None or target.guest_id or not target.bot:
            raise GameError("not_a_bot")
        target.delete()
        remaining = [p for p in players if p.order != seat]
        for order, player in enumerate(remaining):
            if player.order != order:
                player.order = order
                player.save(update_fields=["order"])
        _commit(game, remaining, None, fields=[], last=last_action("leave"))


def _require_guest(guest_id: str) -> None:
    # Bots' seats have no guest id: an empty one must never match them.
    if not guest_id:
        raise GameError("no_guest")


def _check(
    game: Game,
    players: Sequence[Player],
    guest_id: str,
    action: rules.ActionName,
    *,
    version: int | None = None,
    state: rules.GameState | None = None,
) -> Player | None:
    """The seat of the guest asking, once the rules allow it to take
    ``action`` (made against ``version``) now; else the rules' refusal."""
    me = seat_among(players, guest_id, game.current_seat)
    rules.require(
        rules_table(game, players, state), me.order if me else None, action, version=version
    )
    return me


def _state(game: Game, players: Sequence[Player]) -> rules.GameState | None:
    return game_state(game, players) if game.status != Game.Status.LOBBY else None


def game_join(*, token: str, guest_id: str, name: str) -> Player:
    """Take the next free seat. Joining again from the same guest returns its seat."""
    _require_guest(guest_id)
    name = clean_name(name)
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        mine = seat_among(players, guest_id)
        if mine:
            return mine
        if game.status != Game.Status.LOBBY:
            raise GameError("already_started")
        if len(players) >= game.seat_count:
            raise GameError("game_full")
        require_distinct(name, [p.name for p in players])
        player = Player.objects.create(game=game, order=len(players), name=name, guest_id=guest_id)
        Move.objects.create(game=game, player=player, version=game.version + 1, kind=Move.Kind.JOIN)
        _commit(game, [*players, player], None, fields=[], last=last_action("join", player.order))
    return player


def game_start(*, token: str, guest_id: str, version: int | None = None) -> Game:
    """The host (seat 1) starts the game with whoever has joined."""
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        _check(game, players, guest_id, "start", version=version)
        host = players[0]
        game.status = Game.Status.PLAYING
        game.started_at = timezone.now()
        # Seats nobody took are closed: the game is played by those present.
        game.seat_count = len(players)
        Move.objects.create(game=game, player=host, version=game.version + 1, kind=Move.Kind.START)
        state = rules.new_game(game.ruleset, len(players))
        _commit(
            game,
            players,
            state,
            fields=["status", "started_at", "seat_count"],
            last=last_action("start", host.order),
            new_turn=True,
        )
    return game


def game_act(
    *,
    token: str,
    guest_id: str,
    version: int,
    action: rules.Action,
    rng: rules.engine.DiceRoller | None = None,
) -> Game:
    """Apply one player's action, made against ``version`` of the game.

    Dice come from the game's seed unless ``rng`` is given (tests script them).
    An action that reaches the game after its turn clock ran out is refused
    (``time_up``, or ``stale_version`` for anyone else) and the stand-in bot
    takes the turn instead, in the same transaction: of the two, exactly one
    is ever applied. Once the bot has the turn, every move of that seat is
    refused with ``time_up`` until the bot has scored it.

    A move made against the version this process committed last is decided
    on the row it remembers and written guarded by that version (the store's
    ``write_guarded``); every other move, and one that write finds moved on,
    is decided and written under the row lock. Both are ``moves.decide``.
    """
    plan = game_plan_remembered(
        token=token, guest_id=guest_id, version=version, action=action, rng=rng
    )
    if plan is not None and writes.write_guarded(plan.rows) is writes.Written.DONE:
        # At once, unless a caller's transaction holds the write uncommitted.
        transaction.on_commit(game_publisher(plan))
        return plan.rows.game
    with transaction.atomic():
        game = _locked(token)
        players, state = locked_game_seats(game)
        timed_out = _time_up(game, players)
        if not timed_out:
            plan = moves.decide(
                _known(game, players, state),
                guest_id=guest_id,
                version=version,
                action=action,
                now=timezone.now(),
                rng=rng,
            )
            _write_move(plan)
    if timed_out:
        mine = any(seat.guest_id == guest_id for seat in timed_out)
        raise GameError("time_up" if mine else "stale_version")
    assert plan is not None
    return plan.rows.game


def game_plan_remembered(
    *,
    token: str,
    guest_id: str,
    version: int,
    action: rules.Action,
    rng: rules.engine.DiceRoller | None = None,
) -> moves.Plan | None:
    """The move decided on ``version`` as this process committed (or read
    under the lock) it, for ``write_guarded``; it reads nothing from the
    database. None when the remembered row does not settle the move: a
    version not held here, a move that writes more than the move log and the
    game (a duplicate game's hands, a seat a bot keeps, the review kept as
    the game ends), a turn clock that ran out, the daily challenge's check
    of its day, or one the rules refuse here (the locked path names the
    refusal against the stored row, which another process may have moved
    on)."""
    known = remembered_game(token, version)
    if known is None:
        return None
    game, players, state = known
    seat = seat_among(players, guest_id, game.current_seat)
    if (
        seat is None
        or seat.bot
        or game.duplicate
        or game.daily_id is not None
        or clock_ran_out(game.status, game.turn_deadline)
    ):
        return None
    try:
        plan = moves.decide(
            moves.Known(game, players, state, rules_table(game, players, state)),
            guest_id=guest_id,
            version=version,
            action=action,
            now=timezone.now(),
            rng=rng,
        )
    except GameError:
        return None
    return plan if plan.rows.guardable else None


def _known(game: Game, players: list[Player], state: rules.GameState | None) -> moves.Known:
    """A locked game as ``moves.decide`` sees it."""
    table = rules_table(game, players, state)
    if state is None:
        # In the lobby, where the rules (``table``) refuse every move.
        state = rules.new_game(game.ruleset, max(len(players), 1))
    day_over = False
    if game.daily_id is not None and game.daily is not None:
        day_over = is_over(game.daily.day)
    return moves.Known(game, players, state, table, day_over)


def _write_move(plan: moves.Plan) -> None:
    """Write a decided move under its game's row lock; publish it once committed."""
    writes.write_locked(plan.rows, functools.partial(game_publisher, plan))


def game_bot_step(*, token: str, version: int) -> Game:
    """One step of the bot whose turn it is, if the game is still at ``version``."""
    from games.solver.bots import prepare

    # A strategy table missing from disk takes seconds to build: build it
    # before the game's row is locked, never while the lock holds every
    # other action (and every other bot step) of the game waiting.
    ahead = (
        Player.objects.filter(game__token=token, order=F("game__current_seat"))
        .values_list("bot", "game__ruleset")
        .first()
    )
    if ahead is not None and ahead[0]:
        prepare(ahead[0], ahead[1])
    with transaction.atomic():
        game = _locked(token)
        if game.status != Game.Status.PLAYING:
            raise GameError("game_over" if game.status == Game.Status.FINISHED else "not_started")
        if version != game.version:
            raise GameError("stale_version")
        players, state = locked_game_seats(game)
        whims = runtime.part(BotWhims)
        plan = moves.decide_bot(_known(game, players, state), whims=whims, now=timezone.now())
        _write_move(plan)
    return plan.rows.game


class BotWhims(random.Random):
    """What the beginner's human mistakes are chosen with; dice never are."""


def game_hand_to_bot(*, token: str, guest_id: str, seat: int) -> Game:
    """Another player lets a bot play for a seat whose player has been idle
    through the grace period; its player can take it back."""
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        state = _state(game, players)
        _check(game, players, guest_id, "hand_to_bot", state=state)
        target = players[game.current_seat]
        if seat != target.order:
            raise GameError("not_absent")
        target.bot = STAND_IN_LEVEL
        target.save(update_fields=["bot"])
        _commit(game, players, state, fields=[], last=last_action("stand_in", target.order))
    return game


STAND_IN_LEVEL = "solid"


def game_take_back(*, token: str, guest_id: str) -> Game:
    """A player whose seat a bot was keeping takes it back."""
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        me = _check(game, players, guest_id, "take_back")
        assert me is not None
        me.bot = ""
        me.save(update_fields=["bot"])
        state = _state(game, players)
        _commit(game, players, state, fields=[], last=last_action("take_back", me.order))
    return game


def game_rematch(
    *,
    token: str,
    guest_id: str,
    counted: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext,
) -> Game:
    """A new game with the same seats, started at once; everyone is sent to it.

    ``counted`` is entered around the new game's making, and only then: the
    players who ask once it is made join it uncounted. The socket counts
    the game there against its creator's shares (``quotas.game_creation``),
    which may refuse it with a GameError.
    """
    with transaction.atomic(), contextlib.ExitStack() as counting:
        game = _locked(token)
        players = game_players(game)
        _check(game, players, guest_id, "rematch")
        if game.rematch is not None:
            return game.rematch
        counting.enter_context(counted())
        new = _next_game(game, players)
        game.rematch = new
        state = game_state(game, players)
        _commit(game, players, state, fields=["rematch"], last=last_action("rematch"))
    return new


def _next_game(game: Game, players: Sequence[Player]) -> Game:
    """``game``'s rematch, started: every setting carries over, and the first
    to roll moves one seat on, so nobody opens every game of an evening."""
    # Started now, which is also when its first player was last heard
    # from: from then on the others may hand an absent first player's
    # seat to a bot, as in any other game.
    now = timezone.now()
    new = Game.objects.create(
        ruleset=game.ruleset,
        seat_count=len(players),
        hints=game.hints,
        status=Game.Status.PLAYING,
        started_at=now,
        acted_at=now,
        version=1,
        turn_seconds=game.turn_seconds,
        spectator_chat=game.spectator_chat,
        duplicate=game.duplicate,
        perfect_reference=game.perfect_reference,
        bot_pace=game.bot_pace,
        **_dice_source(game.dice_entered),
    )
    count = len(players)
    created = Player.objects.bulk_create(
        Player(
            game=new,
            order=(p.order - 1) % count,
            name=p.name,
            guest_id=p.guest_id,
            bot=p.bot,
            shared=p.shared,
        )
        for p in players
    )
    seats = sorted(created, key=lambda p: p.order)
    first = rules.new_game(new.ruleset, len(seats))
    moves.wind_clock(new, seats, new_turn=True, state=first, now=now)
    new.save(update_fields=["turn_deadline"])
    Move.objects.create(game=new, version=1, kind=Move.Kind.START)
    return new


def _roll(*, hold: Collection[int] | None = None) -> rules.Action:
    return rules.Roll(None if hold is None else frozenset(hold))


def _enter(*, dice: Sequence[int], hold: Collection[int] | None = None) -> rules.Action:
    return rules.Enter(tuple(dice), None if hold is None else frozenset(hold))


def _hold(*, dice: Collection[int]) -> rules.Action:
    return rules.Hold(frozenset(dice))


def _score(*, category: str) -> rules.Action:
    return rules.Score(category)


def game_roll(
    *, token: str, guest_id: str, version: int, hold: Collection[int] | None = None
) -> Game:
    """Roll the dice not at the positions in ``hold``; None: not those held now."""
    return game_act(token=token, guest_id=guest_id, version=version, action=_roll(hold=hold))


def game_enter(
    *,
    token: str,
    guest_id: str,
    version: int,
    dice: Sequence[int],
    hold: Collection[int] | None = None,
) -> Game:
    """In a companion game, the faces the player threw with real dice, as
    a roll: ``hold`` are the positions kept from the last throw (None:
    those held now), which must show the same faces."""
    return game_act(
        token=token, guest_id=guest_id, version=version, action=_enter(dice=dice, hold=hold)
    )


def game_hold(*, token: str, guest_id: str, version: int, dice: Collection[int]) -> Game:
    """Between rolls, keep the dice at the positions in ``dice`` for the next roll.

    Like every action it is checked against the version it was made on and
    makes a new one, so everyone sees the holds as they are made and the
    roll that follows names the version after them (the page sends each
    action once the previous one is confirmed).
    """
    return game_act(token=token, guest_id=guest_id, version=version, action=_hold(dice=dice))


def game_score(*, token: str, guest_id: str, version: int, category: str) -> Game:
    """Score the current dice in the box ``category``."""
    return game_act(
        token=token, guest_id=guest_id, version=version, action=_score(category=category)
    )


# The verbs of a player's move on the table, each one ``game_act``, with the
# rules' action each makes of its fields (the socket's loop decides a move
# itself: ``games.live.loopmoves``).
MOVES: dict[Callable[..., Game], Callable[..., rules.Action]] = {
    game_roll: _roll,
    game_enter: _enter,
    game_hold: _hold,
    game_score: _score,
}


def _unpaced() -> bool:
    return True


def game_chat(
    *,
    token: str,
    guest_id: str,
    text: str | None = None,
    phrase: str | None = None,
    paced: Callable[[], bool] = _unpaced,
) -> None:
    """Say something at the table: free text, or a quick phrase or reaction
    by its code. The name shown is the speaker's seat's, looked up here.

    ``paced`` counts a line that may be said against the table's pace of
    chat; False refuses it (``chat_busy``). The socket paces every game's
    chat there (``quotas.chat_allowed``).

    Chat is not a change of the game: it takes no lock and leaves the
    version alone (a line said during a move can never make that move
    stale), and its push is a message of its own, sent once committed.
    """
    game = game_by_token(token)
    if game is None:
        raise GameError("no_such_game")
    players = game_players(game)
    me = seat_among(players, guest_id, game.current_seat)
    rules.require(rules_table(game, players, None), me.order if me else None, "chat")
    body, code = read_chat(text, phrase)
    if not paced():
        raise GameError("chat_busy")
    with transaction.atomic():
        line = ChatMessage.objects.create(
            game=game, player=me, name=me.name if me else "", text=body, code=code
        )
        transaction.on_commit(
            functools.partial(runtime.commits.chatted, chat_line(line, game.token))
        )


def game_spectator_chat(*, token: str, guest_id: str, on: int) -> Game:
    """The host opens (1) or closes (0) the table's chat to spectators."""
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        me = _check(game, players, guest_id, "spectator_chat")
        game.spectator_chat = bool(on)
        _commit(
            game,
            players,
            _state(game, players),
            fields=["spectator_chat"],
            last=last_action("chat", me.order if me else None),
        )
    return game


def game_bot_pace(*, token: str, guest_id: str, version: int, pace: str) -> Game:
    """The host sets how long the bots pause between their steps.

    Like any change it makes a new version, so a bot step scheduled at the
    old pace finds itself stale and the next one is scheduled at the new.
    """
    if pace not in _BOT_PACES:
        raise GameError("unknown_pace")
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        me = _check(game, players, guest_id, "bot_pace", version=version)
        game.bot_pace = pace
        _commit(
            game,
            players,
            _state(game, players),
            fields=["bot_pace"],
            last=last_action("bot_pace", me.order if me else None),
        )
    return game
