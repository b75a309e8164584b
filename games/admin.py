"""Staff's read-only window on games: who played, every box, every move."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from games import rules
from games.models import (
    ChatMessage,
    DailyChallenge,
    DailyEntry,
    Game,
    Move,
    Player,
    QueueTicket,
    ScoreEntry,
)
from games.play.days import is_over, today
from games.present.labels import RULESET_NAMES, category_name
from games.store.selectors import game_snapshot


def dice_secret(game: Game) -> bool:
    """Whether ``game`` is a daily entry whose day is not over: its dice are
    the day's, for everyone, so staff who saw them could play them."""
    return game.daily is not None and not is_over(game.daily.day)


def _not_secret(queryset: QuerySet[Any], game: str) -> QuerySet[Any]:
    """``queryset`` without rows of daily games still being played on their day."""
    return queryset.exclude(**{f"{game}__daily__day__gte": today()})


HIDDEN_UNTIL_OVER = _("hidden until the day is over")


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class PlayerInline(ReadOnlyMixin, admin.TabularInline):
    model = Player
    fields = ["order", "name", "joined_at"]
    readonly_fields = ["order", "name", "joined_at"]
    extra = 0
    show_change_link = True


def _held(dice: list[int], held: list[int]) -> str:
    """Held dice as a player reads them: their faces, then their places
    counted from 1 (rows store positions from 0: "[0, 2]" read as nothing)."""
    if not held or not dice:
        return "-"
    return _("%(faces)s (dice %(places)s)") % {
        "faces": ", ".join(str(dice[i]) for i in held),
        "places": ", ".join(str(i + 1) for i in held),
    }


class MoveInline(ReadOnlyMixin, admin.TabularInline):
    model = Move
    fields = ("version", "player", "kind", "held_dice", "dice", "category", "points", "created_at")
    readonly_fields = fields
    extra = 0
    ordering = ["version"]
    # A whole game's log is hundreds of rows: folded until asked for.
    classes = ["collapse"]

    @admin.display(description=_("held dice"))
    def held_dice(self, move: Move) -> str:
        return _held(move.dice, move.held)


class ChatInline(ReadOnlyMixin, admin.TabularInline):
    model = ChatMessage
    fields = ["created_at", "player", "name", "text", "code"]
    readonly_fields = ["created_at", "player", "name", "text", "code"]
    extra = 0
    ordering = ["pk"]


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Every line said at every table, to look into a complaint."""

    list_display = ["created_at", "game", "name", "text", "code"]
    list_filter = [("created_at", admin.DateFieldListFilter)]
    search_fields = ["text", "name", "game__token"]
    readonly_fields = ["game", "player", "name", "text", "code", "created_at"]
    list_select_related = ["game"]


@admin.register(QueueTicket)
class QueueTicketAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Who waits under Play now, and where each ticket ended: to see a
    queue that pairs nobody, or a network holding places."""

    list_display = ["created_at", "name", "ruleset", "seats", "language", "state", "game"]
    list_filter = ["state", "ruleset", "seats"]
    search_fields = ["name", "game__token"]
    readonly_fields = [
        "created_at",
        "seen_at",
        "name",
        "ruleset",
        "seats",
        "language",
        "state",
        "kept_waiting",
        "game",
        "network",
    ]
    list_select_related = ["game"]
    ordering = ["-created_at"]


def _cards(game: Game) -> list[rules.Scorecard]:
    """Each seat's scorecard, from the game's prefetched seats and boxes."""
    return [
        rules.Scorecard(
            {s.category: s.points for s in p.scores.all()},
            sum(s.extra_bonus for s in p.scores.all()),
        )
        for p in sorted(game.players.all(), key=lambda p: p.order)
    ]


def _totals(game: Game) -> str:
    """Each seat's total, in seat order."""
    ruleset = rules.get_ruleset(game.ruleset)
    return " / ".join(str(rules.totals(ruleset, card).total) for card in _cards(game))


@admin.register(Game)
class GameAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "__str__",
        "ruleset_name",
        "status",
        "player_names",
        "round",
        "totals",
        "created_at",
    ]
    list_filter = ["status", "ruleset", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["token", "players__name"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "token",
        "ruleset_name",
        "status",
        "version",
        "seat_count",
        "seat_to_move",
        "dice",
        "held_dice",
        "rolls_used",
        "turn_seconds",
        "turn_deadline",
        "spectator_chat",
        "bot_pace",
        "rematch",
        "created_at",
        "started_at",
        "finished_at",
        "scorecards",
        "review_link",
    ]
    # The stored seat (from 0) and holds (positions) read as a second, wrong
    # "seat to move" and as "[0, 2]": shown once each, as players count them.
    exclude = ["current_seat", "held"]
    inlines = [PlayerInline, MoveInline, ChatInline]
    # What tells a daily game's dice: its dice, holds, boxes and review.
    SECRET_FIELDS = frozenset({"dice", "held", "held_dice", "scorecards", "review_link"})

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        # Every column of the list reads the seats and boxes prefetched here:
        # one query each for games, seats and boxes, however many rows.
        return (
            super()
            .get_queryset(request)
            .select_related("daily")
            .prefetch_related("players__scores")
        )

    def get_fields(self, request: HttpRequest, obj: Game | None = None) -> list[Any]:
        fields = list(super().get_fields(request, obj))
        if obj is None or not dice_secret(obj):
            return fields
        return [f for f in fields if f not in self.SECRET_FIELDS]

    def get_readonly_fields(self, request: HttpRequest, obj: Game | None = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and dice_secret(obj):
            fields.append("secret_dice")
        return fields

    def get_inlines(self, request: HttpRequest, obj: Game | None) -> list[type]:
        inlines = list(super().get_inlines(request, obj))
        if obj is not None and dice_secret(obj):
            inlines.remove(MoveInline)
        return inlines

    @admin.display(description=_("dice, moves and boxes"))
    def secret_dice(self, game: Game) -> str:
        return str(HIDDEN_UNTIL_OVER)

    @admin.display(description=_("rule set"), ordering="ruleset")
    def ruleset_name(self, game: Game) -> str:
        return str(RULESET_NAMES.get(game.ruleset, game.ruleset))

    @admin.display(description=_("seat to move"))
    def seat_to_move(self, game: Game) -> str:
        # Seats are numbered from 1 for people; a game not in play has none.
        if game.status != Game.Status.PLAYING:
            return "-"
        return str(game.current_seat + 1)

    @admin.display(description=_("held dice"))
    def held_dice(self, game: Game) -> str:
        if game.status != Game.Status.PLAYING:
            return "-"
        return _held(game.dice, game.held)

    @admin.display(description=_("players"))
    def player_names(self, game: Game) -> str:
        return ", ".join(p.name for p in game.players.all())

    @admin.display(description=_("round"))
    def round(self, game: Game) -> str:
        if not game.started_at:
            return "-"
        rounds = len(rules.get_ruleset(game.ruleset).categories)
        filled = sum(len(card.boxes) for card in _cards(game))
        return str(min(filled // game.seat_count + 1, rounds))

    @admin.display(description=_("totals"))
    def totals(self, game: Game) -> str:
        return _totals(game)

    @admin.display(description=_("review"))
    def review_link(self, game: Game) -> str:
        if game.status != Game.Status.FINISHED:
            return "-"
        return format_html(
            '<a href="{}">{}</a>',
            reverse("review", args=[game.token]),
            _("Decisions against optimal play"),
        )

    @admin.display(description=_("scorecards"))
    def scorecards(self, game: Game) -> str:
        snap = game_snapshot(game)
        header = format_html_join("", "<th>{}</th>", ((s["name"],) for s in snap["seats"]))
        rows: list[tuple[object, ...]] = [
            (category_name(game.ruleset, key), *(s["boxes"].get(key, "") for s in snap["seats"]))
            for key in snap["categories"]
        ]
        if snap["upper_bonus_threshold"] is not None:
            rows.append((_("upper bonus"), *(s["upper_bonus"] for s in snap["seats"])))
        rows.append((_("extra bonus"), *(s["extra_bonus"] for s in snap["seats"])))
        rows.append((_("total"), *(s["total"] for s in snap["seats"])))
        cell = "".join("<td>{}</td>" for _ in snap["seats"])
        body = format_html_join("", "<tr><th>{}</th>" + cell + "</tr>", rows)
        return format_html_join("", "<table><tr><th></th>{}</tr>{}</table>", [(header, body)])


@admin.register(Player)
class PlayerAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["name", "game", "order", "joined_at"]
    search_fields = ["name", "game__token"]
    readonly_fields = ["game", "order", "name", "joined_at", "held_dice"]
    exclude = ["guest_id", "held"]

    def get_fields(self, request: HttpRequest, obj: Player | None = None) -> list[Any]:
        fields = list(super().get_fields(request, obj))
        if obj is None or not dice_secret(obj.game):
            return fields
        return [f for f in fields if f not in ("dice", "held_dice")]

    @admin.display(description=_("held dice"))
    def held_dice(self, player: Player) -> str:
        return _held(player.dice, player.held)


@admin.register(ScoreEntry)
class ScoreEntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["player", "category", "points", "extra_bonus", "created_at"]
    list_filter = ["category"]
    search_fields = ["player__name", "player__game__token"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ScoreEntry]:
        return _not_secret(super().get_queryset(request), "player__game")


@admin.register(Move)
class MoveAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "game",
        "version",
        "player",
        "kind",
        "held_dice",
        "dice",
        "category",
        "points",
        "created_at",
    ]
    list_filter = ["kind"]
    readonly_fields = ["game", "version", "player", "kind", "held_dice", "dice", "category"]
    exclude = ["held"]

    @admin.display(description=_("held dice"))
    def held_dice(self, move: Move) -> str:
        return _held(move.dice, move.held)

    search_fields = ["game__token", "player__name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Move]:
        return _not_secret(super().get_queryset(request), "game")


class DailyEntryInline(ReadOnlyMixin, admin.TabularInline):
    model = DailyEntry
    fields = ("created_at", "game_link", "total")
    readonly_fields = fields
    extra = 0
    ordering = ["created_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[DailyEntry]:
        return super().get_queryset(request).prefetch_related("game__players__scores")

    @admin.display(description=_("game"))
    def game_link(self, entry: DailyEntry) -> str:
        game = entry.game
        names = ", ".join(p.name for p in game.players.all())
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:games_game_change", args=[game.pk]), names
        )

    @admin.display(description=_("total"))
    def total(self, entry: DailyEntry) -> str:
        game = entry.game
        if game.status != Game.Status.FINISHED:
            return "-"
        return _totals(game)


@admin.register(DailyChallenge)
class DailyChallengeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Each day's challenge: its commitment, who played it, and its seed once
    the day is over (never before: it would tell the day's dice)."""

    list_display = ["day", "ruleset_name", "entry_count", "perfect_score", "seed_commitment"]
    date_hierarchy = "day"
    fields = (
        "day",
        "ruleset_name",
        "seed_commitment",
        "revealed_seed",
        "perfect_score",
        "created_at",
    )
    readonly_fields = fields
    inlines = [DailyEntryInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[DailyChallenge]:
        return super().get_queryset(request).annotate(entry_count=Count("entries"))

    @admin.display(description=_("rule set"), ordering="ruleset")
    def ruleset_name(self, challenge: DailyChallenge) -> str:
        return str(RULESET_NAMES.get(challenge.ruleset, challenge.ruleset))

    @admin.display(description=_("entries"), ordering="entry_count")
    def entry_count(self, challenge: DailyChallenge) -> int:
        return int(getattr(challenge, "entry_count", 0))

    @admin.display(description=_("server seed"))
    def revealed_seed(self, challenge: DailyChallenge) -> str:
        if not is_over(challenge.day):
            return str(_("kept secret until the day is over"))
        return challenge.server_seed
