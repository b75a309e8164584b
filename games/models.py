"""Persisted games. Fields and constraints only: the rules live in ``games.rules``
and every change goes through ``games.play.services``."""

from __future__ import annotations

import secrets

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.rules import DEFAULT_RULESET, RULESETS

BOT_LEVELS = [
    ("beginner", _("Beginner")),
    ("solid", _("Solid")),
    ("perfect", _("Perfect")),
]
RULESET_CHOICES = [(key, key) for key in RULESETS]
MAX_SEATS = 6
NAME_MAX_LENGTH = 24
# A turn clock is chosen at creation: seconds a turn, 0 for none.
TURN_CLOCKS = [
    (0, _("No clock")),
    (30, _("30 seconds a turn")),
    (60, _("1 minute a turn")),
    (120, _("2 minutes a turn")),
]
CHAT_MAX_LENGTH = 200
# How long bots pause between steps (games.live.botplay): the host picks it
# at the table, and a rematch keeps it.
BOT_PACES = [
    ("normal", _("Normal")),
    ("fast", _("Fast")),
]


def new_invite_token() -> str:
    # 24 url-safe characters carry 144 random bits.
    return secrets.token_urlsafe(18)


class Game(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")

    token = models.CharField(
        _("invite token"), max_length=32, unique=True, default=new_invite_token, editable=False
    )
    ruleset = models.CharField(
        _("rule set"), max_length=16, choices=RULESET_CHOICES, default=DEFAULT_RULESET
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.LOBBY
    )
    seat_count = models.PositiveSmallIntegerField(_("seats"), default=2)
    version = models.PositiveIntegerField(_("version"), default=0)
    current_seat = models.PositiveSmallIntegerField(_("current seat"), default=0)
    dice = models.JSONField(_("dice"), default=list, blank=True)
    held = models.JSONField(_("held dice"), default=list, blank=True)
    rolls_used = models.PositiveSmallIntegerField(_("rolls used"), default=0)
    # Provably fair dice (games.rules.fairness): the secret seed every die is
    # derived from, kept private until the game ends, and its SHA-256 published
    # from the start. Blank on games created before dice were derived.
    server_seed = models.CharField(_("server seed"), max_length=64, blank=True, editable=False)
    seed_commitment = models.CharField(
        _("seed commitment"), max_length=64, blank=True, editable=False
    )
    hints = models.BooleanField(
        _("hints"),
        default=False,
        help_text=_("Players may ask the advisor for the value of each choice."),
    )
    acted_at = models.DateTimeField(_("last action"), null=True, blank=True)
    turn_seconds = models.PositiveSmallIntegerField(_("turn clock"), choices=TURN_CLOCKS, default=0)
    # When the seat to move runs out of time (None: no clock running, or a
    # bot is to move). Whichever process first finds it passed lets the
    # stand-in bot play; the version makes any later attempt a no-op.
    turn_deadline = models.DateTimeField(_("turn deadline"), null=True, blank=True)
    spectator_chat = models.BooleanField(
        _("spectators may chat"),
        default=True,
        help_text=_("The host can close the table's chat to spectators."),
    )
    bot_pace = models.CharField(_("bot pace"), max_length=8, choices=BOT_PACES, default="normal")
    # Duplicate play (games.rules.duplicate): every seat plays each round at
    # once on the same dice; each seat's hand is kept on its Player row.
    duplicate = models.BooleanField(
        _("duplicate"),
        default=False,
        help_text=_("Every seat plays each round at the same time, on the same dice."),
    )
    # A companion game: the players throw real dice and enter the faces. The
    # server rolls none (no seed, no bots), so its dice prove nothing about
    # fairness, and stats and boards leave it out.
    dice_entered = models.BooleanField(
        _("dice entered"),
        default=False,
        help_text=_("Played with real dice: the players entered every face they rolled."),
    )
    # The perfect player plays the same dice alongside; its score is worked
    # out from the seed once the game is over (None until then, or when off).
    perfect_reference = models.BooleanField(_("perfect player reference"), default=False)
    perfect_score = models.PositiveSmallIntegerField(
        _("perfect player's score"), null=True, blank=True
    )
    # An entry to a daily challenge plays the day's seed, which stays secret
    # until the day is over, not just until this game is.
    daily = models.ForeignKey(
        "DailyChallenge",
        verbose_name=_("daily challenge"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="games",
    )
    rematch = models.OneToOneField(
        "self",
        verbose_name=_("rematch"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch_of",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created_at"]
        # clean_stale finds lobbies and abandoned games by status and last change.
        indexes = [models.Index(fields=["status", "acted_at"], name="game_status_acted_at")]
        constraints = [
            models.CheckConstraint(
                condition=Q(seat_count__gte=1, seat_count__lte=MAX_SEATS), name="seat_count_range"
            ),
            models.CheckConstraint(condition=Q(rolls_used__lte=3), name="rolls_used_at_most_3"),
        ]

    def __str__(self) -> str:
        return f"{self.ruleset} #{self.pk} ({self.get_status_display()})"


class Player(models.Model):
    """A seat at a game, owned by one guest's browser session."""

    game = models.ForeignKey(
        Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="players"
    )
    order = models.PositiveSmallIntegerField(_("seat"))
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    guest_id = models.CharField(_("guest"), max_length=64, blank=True, db_index=True)
    # A bot seat has no guest. On a person's seat a level here means a bot
    # is standing in while they are away; they can take the seat back.
    bot = models.CharField(_("bot"), max_length=10, choices=BOT_LEVELS, blank=True)
    # The same English word names the move "joined"; other languages need two.
    joined_at = models.DateTimeField(pgettext_lazy("when", "joined"), auto_now_add=True)
    # The review's points lost to optimal play over the whole game, worked
    # out in the write that ends the game (a daily entry's once its day is
    # over, by the scheduled cleanup), then kept: pages only read it.
    lost_to_optimal = models.FloatField(_("points lost to optimal play"), null=True, blank=True)
    # A duplicate game's turn of this seat in the current round (empty, or
    # no rolls, once it has scored in it); a turn-based game keeps its one
    # turn on the Game row.
    dice = models.JSONField(_("dice"), default=list, blank=True)
    held = models.JSONField(_("held dice"), default=list, blank=True)
    rolls_used = models.PositiveSmallIntegerField(_("rolls used"), default=0)
    # Pass and play: one browser holds every person's seat of the game, and
    # the device goes round the table. Only such seats share a guest.
    shared = models.BooleanField(_("passed around one device"), default=False)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["game", "order"]
        constraints = [
            models.UniqueConstraint(fields=["game", "order"], name="one_player_per_seat"),
            models.UniqueConstraint(
                fields=["game", "guest_id"],
                condition=~Q(guest_id="") & Q(shared=False),
                name="one_seat_per_guest",
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(name)s (seat %(seat)s)") % {"name": self.name, "seat": self.order + 1}


class ScoreEntry(models.Model):
    """One filled box. Totals are derived from these rows, never stored."""

    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="scores"
    )
    category = models.CharField(_("category"), max_length=24)
    points = models.PositiveSmallIntegerField(_("points"))
    extra_bonus = models.PositiveSmallIntegerField(_("extra bonus"), default=0)
    created_at = models.DateTimeField(pgettext_lazy("when", "scored"), auto_now_add=True)

    class Meta:
        verbose_name = _("score")
        verbose_name_plural = _("scores")
        ordering = ["player", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["player", "category"], name="one_score_per_box"),
        ]

    def __str__(self) -> str:
        return f"{self.category}: {self.points}"


class Move(models.Model):
    """Append-only log of every accepted action, enough to replay any game."""

    class Kind(models.TextChoices):
        JOIN = "join", pgettext_lazy("move", "joined")
        START = "start", pgettext_lazy("move", "started the game")
        ROLL = "roll", pgettext_lazy("move", "rolled")
        HOLD = "hold", pgettext_lazy("move", "held dice")
        SCORE = "score", pgettext_lazy("move", "scored")

    game = models.ForeignKey(
        Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="moves"
    )
    player = models.ForeignKey(
        Player,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="moves",
    )
    version = models.PositiveIntegerField(_("version"))
    kind = models.CharField(_("action"), max_length=8, choices=Kind.choices)
    held = models.JSONField(_("held dice"), default=list, blank=True)
    dice = models.JSONField(_("dice"), default=list, blank=True)
    category = models.CharField(_("category"), max_length=24, blank=True)
    points = models.PositiveSmallIntegerField(_("points"), null=True, blank=True)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        ordering = ["game", "version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="one_move_per_version"),
        ]

    def __str__(self) -> str:
        return f"v{self.version} {self.kind}"


class ChatMessage(models.Model):
    """One line of a table's chat: free text, or a quick phrase or reaction
    stored as its code, so that each reader sees it in their own language.

    The name shown is always the seat's, looked up on the server; a
    spectator's line has no seat.
    """

    class Phrase(models.TextChoices):
        GOOD_GAME = "good_game", _("Good game!")
        NICE_ROLL = "nice_roll", _("Nice roll!")
        YOUR_TURN = "your_turn", _("Your turn!")
        GOOD_LUCK = "good_luck", _("Good luck!")
        THANKS = "thanks", _("Thanks!")
        ONE_MOMENT = "one_moment", _("One moment, please.")

    class Reaction(models.TextChoices):
        SMILE = "smile", _("Smiling face")
        WOW = "wow", _("Surprised face")
        SAD = "sad", _("Sad face")
        HEART = "heart", _("Heart")
        STAR = "star", _("Star")

    game = models.ForeignKey(
        Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="chat"
    )
    player = models.ForeignKey(
        Player,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="chat",
    )
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH, blank=True)
    text = models.CharField(_("text"), max_length=CHAT_MAX_LENGTH, blank=True)
    code = models.CharField(_("phrase or reaction"), max_length=16, blank=True)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["game", "pk"]
        # clean_stale deletes old lines by their age.
        indexes = [models.Index(fields=["created_at"], name="chat_created_at")]
        constraints = [
            models.CheckConstraint(
                condition=(Q(text="") & ~Q(code="")) | (~Q(text="") & Q(code="")),
                name="chat_text_or_code",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name or '-'}: {self.text or self.code}"


class DailyChallenge(models.Model):
    """One day's duplicate solitaire: the same dice for everyone who plays it.

    Its seed is made ahead (the next day's commitment is shown during the
    day before) and revealed once the day (UTC) is over.
    """

    day = models.DateField(_("day"), unique=True)
    ruleset = models.CharField(
        _("rule set"), max_length=16, choices=RULESET_CHOICES, default=DEFAULT_RULESET
    )
    server_seed = models.CharField(_("server seed"), max_length=64, editable=False)
    seed_commitment = models.CharField(_("seed commitment"), max_length=64, editable=False)
    # Worked out from the seed once the day is over, then kept.
    perfect_score = models.PositiveSmallIntegerField(
        _("perfect player's score"), null=True, blank=True
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("daily challenge")
        verbose_name_plural = _("daily challenges")
        ordering = ["-day"]

    def __str__(self) -> str:
        return f"{self.day.isoformat()} ({self.ruleset})"


class DailyEntry(models.Model):
    """One browser's game of one day's challenge: one a day per guest."""

    challenge = models.ForeignKey(
        DailyChallenge,
        verbose_name=_("daily challenge"),
        on_delete=models.CASCADE,
        related_name="entries",
    )
    guest_id = models.CharField(_("guest"), max_length=64)
    # A keyed hash of the entrant's address group and the day: it tells two
    # entries from one network apart on that day only, and keeps no address
    # (an unkeyed hash of an IPv4 address is undone by trying all of them).
    # Empty on entries made before it was kept.
    network = models.CharField(_("network"), max_length=64, blank=True, editable=False)
    # Hashes of the name as a reader sees it (``games.play.names.skeletons``, which
    # can be longer than the name): a name matching either key of an entry of
    # the day passes for that entry's.
    name_key = models.CharField(_("name key"), max_length=64, blank=True, editable=False)
    name_key_folded = models.CharField(
        _("name key, case folded first"), max_length=64, blank=True, editable=False
    )
    game = models.OneToOneField(
        Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="daily_entry"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("daily entry")
        verbose_name_plural = _("daily entries")
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "guest_id"], name="one_daily_entry_per_guest"
            ),
            models.UniqueConstraint(
                fields=["challenge", "network"],
                condition=~Q(network=""),
                name="one_daily_entry_per_network",
            ),
            models.UniqueConstraint(
                fields=["challenge", "name_key"],
                condition=~Q(name_key=""),
                name="one_daily_name_per_look",
            ),
            models.UniqueConstraint(
                fields=["challenge", "name_key_folded"],
                condition=~Q(name_key_folded=""),
                name="one_daily_name_per_folded_look",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.challenge.day.isoformat()}: {self.game_id}"


class QueueTicket(models.Model):
    """One guest waiting under "Play now" to be paired with strangers.

    Rows, not process memory: every server process pairs from the same
    queue, and a restart loses nobody's place. A ticket leaves ``waiting``
    only by an update conditional on it still waiting, so whatever process
    crashes when, nobody is seated at two games from one ticket.
    """

    class State(models.TextChoices):
        WAITING = "waiting", _("Waiting")
        PAIRED = "paired", _("Paired")
        LEFT = "left", _("Left")
        BOT = "bot", _("Playing a bot")

    guest_id = models.CharField(_("guest"), max_length=64)
    # A keyed hash of the address group (``games.play.queue.network_of``):
    # it counts a network's tickets and keeps no address.
    network = models.CharField(_("network"), max_length=64, editable=False)
    ruleset = models.CharField(
        _("rule set"), max_length=16, choices=RULESET_CHOICES, default=DEFAULT_RULESET
    )
    # Blank: any language; else paired only with the same language or any.
    language = models.CharField(_("language"), max_length=8, blank=True)
    seats = models.PositiveSmallIntegerField(_("seats"), default=2)
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    state = models.CharField(_("state"), max_length=8, choices=State.choices, default=State.WAITING)
    # The person chose to keep waiting once the bot was offered.
    kept_waiting = models.BooleanField(_("kept waiting"), default=False)
    game = models.ForeignKey(
        Game,
        verbose_name=_("game"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tickets",
    )
    created_at = models.DateTimeField(_("created"))
    # When the waiting page last asked: a closed tab stops asking, and a
    # ticket not seen for a while is paired with nobody.
    seen_at = models.DateTimeField(_("last seen"))

    class Meta:
        verbose_name = _("queue ticket")
        verbose_name_plural = _("queue tickets")
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(fields=["state", "ruleset", "seats", "created_at"], name="queue_waiting"),
            models.Index(fields=["seen_at"], name="queue_seen_at"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["guest_id"],
                condition=Q(state="waiting"),
                name="one_waiting_ticket_per_guest",
            ),
            models.CheckConstraint(
                condition=Q(seats__gte=2, seats__lte=4), name="queue_seats_2_to_4"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset}, {self.state})"
