"""What people read for each error code: the engine and services speak in
codes, and the edge (pages, sockets) translates them here."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

MESSAGES = {
    # rules engine
    "not_your_turn": _("It is not your turn."),
    "no_rolls_left": _("You have used all three rolls: choose a box to score."),
    "must_roll_first": _("Roll the dice before you score."),
    "category_filled": _("That box is already filled."),
    "unknown_category": _("There is no such box in this game."),
    "joker_required": _(
        "This five-alike must be scored in one of the boxes the joker rule allows."
    ),
    "game_over": _("The game is over."),
    "bad_hold": _("You can only hold dice after the first roll, by their positions 1 to 5."),
    "unknown_action": _("That action does not exist."),
    "round_wait": _("You have scored this round: the next begins when everyone has."),
    # a companion game, played with real dice
    "bad_faces": _("Enter five dice, each a face from 1 to 6."),
    "held_changed": _("A die you keep is not thrown again: it must show the same face."),
    "dice_are_entered": _(
        "This game is played with real dice: enter what you rolled. No bot can play in it."
    ),
    "dice_are_rolled": _("In this game the server rolls the dice: there is nothing to enter."),
    "companion_alone": _(
        "A game with real dice cannot have bots, a turn clock or duplicate rounds: the server "
        "would need to roll for them."
    ),
    # services
    "stale_version": _("The game moved on before your action arrived; here is the current table."),
    "no_such_game": _("There is no game at this link."),
    "not_seated": _("You are watching this game: only its players can act."),
    "no_guest": _("Your browser session was not found: reload the page and try again."),
    "not_host": _("Only the host can do that."),
    "not_started": _("The game has not started yet."),
    "not_finished": _("The game is not over yet."),
    "already_started": _("The game has already started."),
    "game_full": _("Every seat at this game is taken."),
    "bad_name": _("Please give a name of 1 to 24 characters."),
    "bad_name_characters": _("Names cannot contain control or text-direction characters."),
    "bad_name_invisible": _(
        "A name needs visible letters and cannot contain invisible characters."
    ),
    "bad_name_marks": _("That name stacks too many accents on one letter."),
    "name_taken": _(
        "Someone at this table already has that name, or one that looks the same: "
        "please choose another."
    ),
    "too_many_games": _("You have created many games in the last hour: please wait a while."),
    "site_busy": _(
        "Very many games are being created just now, many of them from your network: please "
        "try again in a while."
    ),
    "creating_too_fast": _(
        "Several games were just started from your network: try again in a few seconds."
    ),
    "too_many_joins": _("You have tried to join games very often: please wait a few minutes."),
    "bad_seat_count": _("A game has 1 to 6 seats."),
    "unknown_ruleset": _("There is no such rule set."),
    # bots and the advisor
    "unknown_bot": _("There is no such bot level."),
    "not_a_bot": _("That seat does not hold a bot."),
    "not_absent": _("That seat is not idle: a bot can only stand in for a player who is away."),
    "hints_off": _("Hints are off in this game."),
    # the turn clock and the chat
    "unknown_clock": _("There is no such turn clock."),
    "unknown_pace": _("There is no such bot pace."),
    "time_up": _(
        "Your time for this turn ran out: a bot is playing it for you. Your next turn is yours "
        "to play."
    ),
    "chat_closed": _("The host has closed the chat to spectators."),
    "bad_chat": _("A chat message is 1 to 200 visible characters, or one quick phrase."),
    "chat_busy": _("This table's chat is very busy: wait a few seconds before your next line."),
    # the daily challenge
    "daily_entered": _("This browser has already played today's challenge."),
    "daily_network_entered": _(
        "Today's challenge has already been played from your network: one entry per network a "
        "day. You can still play an ordinary game."
    ),
    "daily_name_taken": _(
        "Someone has already entered today's challenge under that name, or one that looks "
        "like it: choose another."
    ),
    "daily_over": _("This daily challenge is over: its day has ended."),
    # play now
    "bad_queue_seats": _("Play now seats 2 to 4 players."),
    "unknown_language": _("There is no such language."),
    "queue_network_full": _(
        "Several people on your network are already waiting under Play now: try again when "
        "one of them has a game."
    ),
    "too_many_queue_joins": _("You have pressed Play now very often: please wait a few minutes."),
    "not_queued": _("You are not waiting under Play now any more."),
    # transport
    "bad_json": _("That message was not valid JSON."),
    "bad_message": _("That message was not understood."),
    "too_large": _("That message was too large."),
    "rate_limited": _("Too many messages: slow down."),
    "too_many_sockets": _(
        "Too many open connections from your browser or network: close some tabs and try again."
    ),
    "server_busy": _("The server is full just now: trying again in a moment."),
    "spectators_busy": _(
        "The server is busy with the players' games: as a spectator, try again in a moment."
    ),
    "unavailable": _("The server could not save that just now: please try again."),
}


def error_message(code: str) -> str:
    message = MESSAGES.get(code)
    return str(message) if message is not None else gettext("Something went wrong.")
