"""Turning a public snapshot into what one viewer sees.

The game page and every websocket push go through ``table_html`` and the
same template, so a refresh and a live update can never disagree. What
differs per viewer is only the language and which controls are live.

The table's template is a Jinja template (``games/jinja2/``): it is rendered
once per view of every move, and Jinja's compiled templates cost a fraction
of the Django engine's (``bench.render`` measures both). What repeats in it
comes ready-made from here: the dice, rendered once per process, and the
scorecard's rows, built whole.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.template import engines
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.formats import number_format
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import ngettext, pgettext, pgettext_lazy

from games.models import BOT_LEVELS, BOT_PACES
from games.present.charts import round_top
from games.present.labels import category_name, ruleset_name
from games.present.reactions import PHRASES, REACTION_SVG, REACTIONS
from games.present.rules_pages import LANGUAGES as RULES_LANGUAGES
from games.present.rules_pages import best_box, box_how
from games.rules import UPPER_KEYS, allowed_actions, coachable, get_ruleset, seat_acting
from games.store.advice import Advice, Coaching
from games.store.selectors import (
    ChatLine,
    DuplicateSnapshot,
    Last,
    SeatSnapshot,
    Snapshot,
    seen_by,
    snapshot_table,
)
from yachtsite.jinja2 import catalog, in_language, words

if TYPE_CHECKING:
    # Only for annotations: the solver loads numpy, which a table push does not need.
    from games.solver.review import SeatReview


# The language of the view ``table_message`` is rendering, while it does:
# Django's active language is looked up through a context-aware local, a
# few microseconds each time, and a view's sentences asked for it about
# seven times (7% of a view's render, measured with bench.render's table).
# It is a cache, not a switch: ``table_message`` sets it to the language it
# has just made Django's active one, and nothing inside the render overrides
# Django's to another, so ``_`` says what it would say without it
# (tests/pages/test_table_words.py holds a push to its page's words).
_rendering: ContextVar[tuple[str | None] | None] = ContextVar("rendering", default=None)


def _language() -> str | None:
    """The active language: the rendering view's, else Django's."""
    rendering = _rendering.get()
    return rendering[0] if rendering is not None else translation.get_language()


def _(message: str) -> str:
    """``gettext`` in the active language, from the words already looked up:
    the table is rendered per view of every move and asks for the same ones."""
    return catalog(_language())(message)


# Which cells of a 3x3 grid show a pip, for each face.
PIPS = {
    1: (4,),
    2: (0, 8),
    3: (0, 4, 8),
    4: (0, 2, 6, 8),
    5: (0, 2, 4, 6, 8),
    6: (0, 2, 3, 5, 6, 8),
}
# A face's nine pip cells never change, and every viewer's table draws five
# dice on every push: a template loop over them cost more than the whole rest
# of the dice section, so each face's markup is built once.
PIP_MARKUP: dict[int, SafeString] = {
    value: mark_safe(
        "".join(
            '<span class="pip on"></span>' if cell in on else '<span class="pip"></span>'
            for cell in range(9)
        )
    )
    for value, on in PIPS.items()
}


@lru_cache(maxsize=1024)
def _die(index: int, value: int, held: bool, can_hold: bool, language: str | None) -> SafeString:
    """One die's button, in one language.

    Every push draws five dice, and a die's button is the same wherever it is
    shown: 6 faces x 5 places, held or not, holdable or not, is a few hundred
    buttons per language. So each is rendered once, not once per die per view.
    Both labels travel with the die: the page swaps them as a click holds or
    releases it, before the push confirms it.
    """
    with translation.override(language):
        names = {"n": index + 1, "value": value}
        context = {
            "index": index,
            "value": value,
            "held": held,
            "can_hold": can_hold,
            "label_free": _("Die %(n)s: %(value)s") % names,
            "label_held": _("Die %(n)s: %(value)s, held") % names,
            "held_word": pgettext("under a held die", "Held"),
            "pips": PIP_MARKUP[value],
        }
    template = engines["jinja2"].get_template("games/partials/die.html")
    return mark_safe(template.render(context))


# Seat colours (yacht.css, .seat-c0 to .seat-c5): never the only sign of a
# seat, whose name or initials always travel with it.
SEAT_COLOURS = 6


@lru_cache(maxsize=512)
def avatar(order: int, name: str) -> SafeString:
    """A seat's picture, drawn here from its place and name (no image to fetch):
    its initials on its colour, over the faint pips of its seat number."""
    initials = "".join(word[0] for word in name.split()[:2]).upper() or "?"
    pips = format_html_join(
        "",
        '<circle cx="{}" cy="{}" r="3"/>',
        ((8 + 12 * (cell % 3), 8 + 12 * (cell // 3)) for cell in PIPS[order % 6 + 1]),
    )
    return format_html(
        '<svg class="avatar" viewBox="0 0 40 40" aria-hidden="true" focusable="false">'
        '<rect width="40" height="40" rx="11"/><g class="avatar-pips">{}</g>'
        '<text x="20" y="26" text-anchor="middle">{}</text></svg>',
        pips,
        initials,
    )


@lru_cache(maxsize=64)
def _box_names(ruleset: str, language: str | None) -> dict[str, tuple[SafeString, str]]:
    """A rule set's box names in one language, each with the words a screen
    reader hears after a box's points ("score in …"), both escaped for HTML
    and read-only: the same on every push of every game of that rule set,
    so translated once per process."""
    with translation.override(language):
        names = {key: category_name(ruleset, key) for key in get_ruleset(ruleset).category_keys}
        return {
            key: (
                _box_name(ruleset, key, name, language),
                escape(_("— score in %(box)s") % {"box": name}),
            )
            for key, name in names.items()
        }


def _box_name(ruleset: str, key: str, name: str, language: str | None) -> SafeString:
    """A row's box name as a button that opens the box's rule: the rules
    page's own paragraph for it, in the reader's language, in a native
    popover (a tap on a phone, a click or Enter on a desk; the page adds
    hover)."""
    lang = language if language in RULES_LANGUAGES else "en"
    rule = render_to_string(
        f"rules/{lang}/boxes/{box_how(ruleset, key)}.html",
        {"part": "text", "box": {"best": best_box(ruleset, key)}},
    )
    return format_html(
        '<button type="button" class="box-name-button"'
        ' popovertarget="box-help-{key}" popovertargetaction="show">{name}</button>'
        '<div class="box-help" id="box-help-{key}" popover><strong>{name}</strong>{rule}</div>',
        key=key,
        name=name,
        rule=mark_safe(rule.strip()),
    )


def _rows(
    snap: Snapshot, seats: list[dict[str, Any]], may_score: bool, language: str | None
) -> SafeString:
    """The scorecard's rows (and the upper bonus's, after the last upper
    box), built whole, with a cell per seat of ``seats`` (the table's, as
    ``table_context`` describes them).

    This is the hot loop of every push (boxes x seats, per viewer): as
    template tags it cost about half of a whole table's render, and each
    value a template prints is escaped again, so the rows are built here,
    joined, and the template places them at once (one row at a time, the
    template's escape copied each row and ``mark_safe`` checked each for a
    lazy string).
    """
    current = snap["current_seat"]
    preview = snap["preview"]
    names = _box_names(snap["ruleset"], language)
    preview_title = escape(_("What the current dice would score here")) if preview else ""
    # Raw points, not advice: nothing scored reads quiet, the most points stand out.
    top = max(preview.values(), default=0)
    rows = []
    for key in snap["categories"]:
        name, score_in = names[key]
        cells: list[str] = []
        for seat in seats:
            value = seat["boxes"].get(key)
            if value is not None:
                # Digits only: nothing to escape.
                cells.append(
                    f'<td class="filled seat-c{seat["colour"]}"'
                    f' data-cell="{seat["order"]}-{key}">{value}</td>'
                )
            elif seat["order"] != current or key not in preview:
                cells.append("<td></td>")
            elif may_score:
                cells.append(_score_button(key, preview[key], top, score_in))
            else:
                cells.append(_preview_cell(preview[key], top, preview_title))
        kind = "upper" if key in UPPER_KEYS else "lower"
        row = f'<tr class="{kind}">\n<th scope="row">{name}</th>\n{"".join(cells)}\n</tr>'
        if key == "sixes" and snap["upper_bonus_threshold"]:
            row += "\n" + _upper_bonus_row(seats, snap["upper_bonus_threshold"])
        rows.append(row)
    # Every value in the rows is digits, an identifier or escaped above.
    return SafeString("\n".join(rows))


def _tone(points: int, top: int) -> str:
    """How an open box's points read: the most of the roll stand out, a zero
    reads quiet."""
    return " best" if points == top and top else " zero" if not points else ""


# In the two cells below, a box key is a rule set's identifier and points are
# digits: only the words needed escaping, and ``_rows`` had them escaped once.


def _score_button(key: str, points: int, top: int, score_in: str) -> str:
    """An open box of the seat to move, for the viewer who may score it: its
    points, as the button that scores them."""
    return (
        f'<td class="open"><button type="button" class="box{_tone(points, top)}"'
        f' data-action="score" data-category="{key}"'
        f' data-args=\'{{"category": "{key}"}}\'>{points}'
        f'<span class="visually-hidden"> {score_in}</span></button></td>'
    )


def _preview_cell(points: int, top: int, title: str) -> str:
    """An open box of the seat to move, for any other viewer: what the dice
    would score there."""
    return (
        f'<td class="open"><span class="preview{_tone(points, top)}"'
        f' title="{title}">{points}</span></td>'
    )


def _upper_bonus_row(seats: list[dict[str, Any]], threshold: int) -> str:
    """The upper bonus: each seat's, or its progress toward it (all digits)."""
    cells = []
    for seat in seats:
        if seat["upper_bonus"]:
            inside = f"+{seat['upper_bonus']}"
        else:
            inside = (
                f'<span class="progress">{seat["upper_progress"]}</span>'
                f'<progress class="bonus-bar" max="{threshold}" value="{seat["upper"]}"'
                ' aria-hidden="true"></progress>'
            )
        cells.append(f'<td class="bonus seat-c{seat["colour"]}">{inside}</td>')
    title = escape(_("Upper bonus"))
    return f'<tr class="subtotal">\n<th scope="row">{title}</th>\n{"".join(cells)}\n</tr>'


def _bot_label(seat: SeatSnapshot) -> str:
    """What the tag beside a seat's name says, if a bot plays it."""
    if not seat["bot"]:
        return ""
    if seat["person"]:
        return _("bot standing in")
    for level, label in BOT_LEVELS:
        if level == seat["bot"]:
            return _("bot · %(level)s") % {"level": label}
    return ""


def announcement(snap: Snapshot, me: int | None) -> str:
    """One sentence for screen readers about what just happened."""
    last = snap["last"]
    if last is None:
        return result_sentence(snap) if snap["status"] == "finished" else ""
    names = {s["order"]: s["name"] for s in snap["seats"]}
    kind = last["kind"]
    who = names.get(last["seat"], "") if last["seat"] is not None else ""
    said = move_sentence(snap, me) if kind in DICE_KINDS else _table_news(snap, last, who)
    parts = [said] if said else []
    dup = snap["duplicate"]
    if snap["status"] == "finished":
        parts.append(result_sentence(snap))
    elif dup is not None:
        if kind in ("start", "score") and not any(h["scored"] for h in dup["hands"]):
            parts.append(_("Round %(round)s: everyone rolls.") % {"round": dup["round"]})
    elif snap["status"] == "playing" and kind in ("start", "score"):
        assert snap["current_seat"] is not None
        if snap["current_seat"] == me and not _shared(snap, me):
            parts.append(_("It is your turn."))
        else:
            parts.append(_("It is %(name)s's turn.") % {"name": names[snap["current_seat"]]})
    return " ".join(part for part in parts if part)


def move_sentence(snap: Snapshot, me: int | None) -> str:
    """A roll, a hold or a box, said once: a hold is told with the roll that
    follows it (its toggles would each be a sentence), and the one who moved
    hears in the second person only what their press did not show them."""
    last = snap["last"]
    assert last is not None
    mine = me is not None and last["seat"] == me
    who = next((s["name"] for s in snap["seats"] if s["order"] == last["seat"]), "")
    if last["kind"] == "hold":
        return ""
    if last["kind"] == "roll" and not last["dice"]:
        # Another seat's roll in a duplicate round: its dice are not shown.
        return _("%(name)s rolled.") % {"name": who}
    if last["kind"] == "score" and last["points"] is None:
        return _("%(name)s has played this round.") % {"name": who}
    if last["kind"] == "roll":
        return _roll_sentence(snap, last, who, mine)
    assert last["points"] is not None
    box = category_name(snap["ruleset"], last["category"])
    if mine:
        return ngettext(
            "You scored %(points)s point in %(box)s.",
            "You scored %(points)s points in %(box)s.",
            last["points"],
        ) % {"points": last["points"], "box": box}
    return ngettext(
        "%(name)s scored %(points)s point in %(box)s.",
        "%(name)s scored %(points)s points in %(box)s.",
        last["points"],
    ) % {"name": who, "points": last["points"], "box": box}


def _roll_sentence(snap: Snapshot, last: Last, who: str, mine: bool) -> str:
    """A throw said with its dice: rolled by the server, or, at a table of
    real dice, entered by the player (nobody rolled anything on the page)."""
    kept = ", ".join(str(last["dice"][i]) for i in last["held"])
    dice = ", ".join(str(d) for i, d in enumerate(last["dice"]) if i not in last["held"])
    said = {"name": who, "kept": kept, "dice": dice}
    if snap["dice_entered"]:
        if kept:
            return (
                _("You kept %(kept)s and entered %(dice)s.")
                if mine
                else _("%(name)s kept %(kept)s and entered %(dice)s.")
            ) % said
        return (_("You entered %(dice)s.") if mine else _("%(name)s entered %(dice)s.")) % said
    if kept:
        return (
            _("You kept %(kept)s and rolled %(dice)s.")
            if mine
            else _("%(name)s kept %(kept)s and rolled %(dice)s.")
        ) % said
    return (_("You rolled %(dice)s.") if mine else _("%(name)s rolled %(dice)s.")) % said


# What a seat does with the dice; every other kind of move changes the table.
DICE_KINDS = ("roll", "hold", "score")


def _table_news(snap: Snapshot, last: Last, who: str) -> str:
    """What a move that is not a play of the dice did to the table (``who``
    made it); nothing for a bot taken off its seat or a move to a
    rematch, which the table shows without a word."""
    kind = last["kind"]
    if kind == "join":
        return _("%(name)s joined the game.") % {"name": who}
    if kind == "start":
        return _("The game has started.")
    if kind == "stand_in":
        return _("A bot is playing for %(name)s until they return.") % {"name": who}
    if kind == "take_back":
        return _("%(name)s is back.") % {"name": who}
    if kind == "chat":
        if snap["spectator_chat"]:
            return _("The host opened the chat to spectators.")
        return _("The host closed the chat to spectators.")
    if kind == "bot_pace":
        if snap["bot_pace"] == "fast":
            return _("The host set the bots to the fast pace.")
        return _("The host set the bots to the normal pace.")
    if kind == "clock" and last["seat"] is None:
        return _("Time is up for this round: bots play for those who had not played it yet.")
    if kind == "clock":
        return _("%(name)s ran out of time: a bot plays this turn for them.") % {"name": who}
    return ""


def result_sentence(snap: Snapshot) -> str:
    winners = [s for s in snap["seats"] if s["order"] in snap["winners"]]
    if not winners:
        return ""
    if snap["seat_count"] == 1:
        # Nobody to beat: My stats counts no win for a one-seat game, and the
        # end says none either.
        return _("Final score %(total)s") % {"total": winners[0]["total"]}
    if len(winners) == 1:
        return _("%(name)s wins with %(total)s points.") % {
            "name": winners[0]["name"],
            "total": winners[0]["total"],
        }
    return _("A draw: %(names)s share first place with %(total)s points.") % {
        "names": ", ".join(w["name"] for w in winners),
        "total": winners[0]["total"],
    }


def _final_score(snap: Snapshot) -> SafeString:
    """A one-seat game's end title, its total ready to count up."""
    total = snap["seats"][0]["total"] if snap["seats"] else 0
    number = format_html('<span class="count-up" data-count-up="{}">{}</span>', total, total)
    return mark_safe(escape(_("Final score %(total)s")) % {"total": number})


def _shared(snap: Snapshot, me: int | None) -> bool:
    """The viewer in seat ``me`` holds a pass-and-play device."""
    return me is not None and any(s["order"] == me and s.get("shared") for s in snap["seats"])


def acting_seat(snap: Snapshot, me: int | None) -> int | None:
    """The seat the viewer in seat ``me`` acts for: in pass and play, the
    device's person to move (``rules.seat_acting``, as the verbs decide)."""
    if not _shared(snap, me):
        return me
    owned = [s["order"] for s in snap["seats"] if s.get("shared")]
    return seat_acting(owned, snap["current_seat"] if snap["status"] == "playing" else None)


def _passing(snap: Snapshot, me: int | None, my_turn: bool) -> dict[str, Any]:
    """What pass and play changes on the table: the turn is named, never
    "yours", on a shared device, and at the start of a person's turn
    ``handover`` keys the screen that asks for the device to be passed to
    them before it shows their dice (the page shows it until tapped, once
    per turn; "" when there is none)."""
    passed = _shared(snap, me)
    handover = ""
    # Not while a bot stands in for the person (their turn clock ran out):
    # nobody needs the device for that turn.
    if passed and my_turn and snap["rolls_used"] == 0 and not _clocked_out(snap, me):
        handover = f"{snap['round']}-{snap['current_seat']}"
    return {"passed": passed, "handover": handover}


def table_context(snap: Snapshot, me: int | None) -> dict[str, Any]:
    me = acting_seat(snap, me)
    # Django looks the active language up through a context-aware local, a
    # few microseconds a time: asked here once for the dice, the box names,
    # the words and the fixed lines. The sentences built by the helpers below
    # still ask through ``_``, about seven times a view.
    language = _language()
    playing = snap["status"] == "playing"
    # The controls are the actions the rules allow this viewer now. A stalled
    # turn's "let a bot play" is shown as if the grace period were over: the
    # page wakes its button up when it is (and the server checks the time).
    seen = snapshot_table(snap, absent=True)
    can = allowed_actions(seen, me)
    # Holding is part of the next roll, so it is allowed when a reroll is.
    can_hold = "hold" in can
    seats = _seats(snap, me)
    current = next((s for s in seats if s["is_current"]), None)
    my_turn = playing and me is not None and snap["current_seat"] == me
    return {
        "snap": snap,
        "language": language,
        "page_title": page_title(snap, me),
        # One seat (solitaire, the daily challenge): no places, no wins, no chat.
        "solo": snap["seat_count"] == 1,
        "me": me,
        "can": {name: True for name in can},
        "spectator": me is None,
        "my_turn": my_turn,
        **_passing(snap, me, my_turn),
        # Whether this viewer's page may ask for coaching: the line itself
        # comes per step, to them only ("coach"), when they turned it on.
        "coachable": playing and coachable(seen, me),
        "clocked_out": playing and _clocked_out(snap, me),
        "current": current,
        "seats": seats,
        "rows": _rows(snap, seats, "score" in can, language),
        "dice": _dice(snap, can_hold, language),
        "can_hold": can_hold,
        "ruleset_name": _ruleset_name(snap["ruleset"], language),
        "has_extra_bonus": any(s["extra_bonus"] for s in snap["seats"]),
        **_the_end(snap, seats),
        "free_seats": range(snap["seat_count"] - len(snap["seats"])),
        "absent_from": _absent_from(snap, can),
        "absent_after": settings.YACHT_ABSENT_AFTER,
        **_bot_controls(snap, current),
        "clock": _clock(snap, current),
        "dup": _duplicate(snap, me),
        "rolls_left": _rolls_left(snap["rolls_left"], language),
    }


def _seats(snap: Snapshot, me: int | None) -> list[dict[str, Any]]:
    """Each seat as the table shows it to the viewer in seat ``me``."""
    playing = snap["status"] == "playing"
    threshold = snap["upper_bonus_threshold"]
    # Pass and play: one device's presence is every one of its people's, and
    # its socket counts in the first of their seats.
    device = min((s["order"] for s in snap["seats"] if s.get("shared")), default=None)
    seats = []
    for seat in snap["seats"]:
        is_current = playing and seat["order"] == snap["current_seat"]
        is_winner = seat["order"] in snap["winners"]
        seats.append(
            {
                **seat,
                "is_me": seat["order"] == me and not seat.get("shared"),
                "is_current": is_current,
                "is_winner": is_winner,
                "colour": seat["order"] % SEAT_COLOURS,
                "presence": device if seat.get("shared") else seat["order"],
                "avatar": avatar(seat["order"], seat["name"]),
                # A bot to move is about to act: the table says so while it does.
                "thinking": is_current and bool(seat["bot"]),
                "bot_label": _bot_label(seat),
                "upper_progress": f"{seat['upper']} / {threshold}" if threshold else None,
            }
        )
    return seats


def _clocked_out(snap: Snapshot, me: int | None) -> bool:
    """The stand-in bot is playing this viewer's turn because their clock
    ran out: the table says so, and offers nothing to do until it is done."""
    return (
        me is not None
        and bool(snap["turn_seconds"])
        and any(s["order"] == me and s["person"] and s["bot"] for s in snap["seats"])
    )


def _dice(snap: Snapshot, can_hold: bool, language: str | None) -> SafeString:
    """The dice, joined here for the same reason as the rows (``_rows``)."""
    held = set(snap["held"])
    return SafeString(
        "\n".join(_die(i, v, i in held, can_hold, language) for i, v in enumerate(snap["dice"]))
    )


def _the_end(snap: Snapshot, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The places and the result's lines, once the game is over."""
    if snap["status"] != "finished":
        return {"places": [], "result": "", "final_score": ""}
    return {
        "places": _places(seats),
        "result": result_sentence(snap),
        "final_score": _final_score(snap),
    }


def _bot_controls(snap: Snapshot, current: dict[str, Any] | None) -> dict[str, Any]:
    """What the table offers around bots: the levels a host may seat, the
    pace of those playing, skipping the animation of one playing."""
    return {
        "bot_levels": BOT_LEVELS,
        # The host's pace control, shown only where bots play.
        "bot_paces": BOT_PACES if any(s["bot"] for s in snap["seats"]) else [],
        # A bot plays the turn everyone sees: anyone may skip its animation.
        "bot_turn": current is not None and current["thinking"] and not snap["duplicate"],
    }


def _absent_from(snap: Snapshot, can: frozenset[str]) -> float | None:
    """When the table may offer to let a bot play the absent seat to move.
    With a turn clock running, the clock hands the turn to a bot: the grace
    period's offer would only say the same thing later."""
    if "hand_to_bot" in can and snap["acted_at"] is not None and snap["deadline"] is None:
        return snap["acted_at"] + settings.YACHT_ABSENT_AFTER
    return None


def table_html(context: dict[str, Any]) -> SafeString:
    """The table partial, rendered from ``table_context`` in its language,
    from the template compiled with that language's words."""
    language = context["language"]
    template = in_language(language).get_template("games/partials/table.html")
    return mark_safe(template.render({**context, "_": words(language)}))


@lru_cache(maxsize=64)
def _ruleset_name(ruleset: str, language: str | None) -> str:
    with translation.override(language):
        return ruleset_name(ruleset)


@lru_cache(maxsize=64)
def _rolls_left(left: int, language: str | None) -> str:
    with translation.override(language):
        return ngettext("%(left)s roll left", "%(left)s rolls left", left) % {"left": left}


def _duplicate(snap: Snapshot, me: int | None) -> dict[str, Any] | None:
    """A duplicate game's rounds as the table shows them: each seat's
    progress in the round, the last round played side by side, and the
    perfect player's score at the end. ``snap`` is already the viewer's."""
    dup = snap["duplicate"]
    if dup is None:
        return None
    names = {s["order"]: s["name"] for s in snap["seats"]}
    mine = next((h for h in dup["hands"] if h["order"] == me), None)
    if mine is None:
        title = _("Round %(round)s: everyone plays at once") % {"round": dup["round"]}
    elif mine["scored"]:
        title = _("You have played round %(round)s: waiting for the others") % {
            "round": dup["round"]
        }
    else:
        title = _("Your turn")
    results = [
        {
            "name": names[r["order"]],
            "dice": " ".join(str(d) for d in r["dice"]),
            "box": category_name(snap["ruleset"], r["category"]),
            "points": r["points"],
        }
        for r in dup["results"]
    ]
    # Alone (the daily challenge), there is nobody to compare a round with.
    alone = snap["seat_count"] == 1
    playing = snap["status"] == "playing"
    return {
        "round": dup["round"],
        "title": title,
        "progress": _round_progress(dup, names, me) if playing and not alone else [],
        "results_round": dup["results_round"],
        "results": [] if alone else results,
        "perfect": dup["perfect"],
        "daily": dup["daily"],
    }


def _round_progress(
    dup: DuplicateSnapshot, names: dict[int, str], me: int | None
) -> list[dict[str, Any]]:
    """How far each seat is in the round being played."""
    progress = []
    for hand in dup["hands"]:
        if hand["scored"]:
            text = _("has played this round")
        elif hand["rolls_used"]:
            text = _("roll %(n)s of 3") % {"n": hand["rolls_used"]}
        else:
            text = _("to roll")
        progress.append(
            {
                "name": names[hand["order"]],
                "is_me": hand["order"] == me,
                "text": text,
                "done": hand["scored"],
            }
        )
    return progress


def _clock(snap: Snapshot, current: dict[str, Any] | None) -> dict[str, Any] | None:
    """The turn clock as the table shows it, while one runs."""
    if snap["deadline"] is not None and snap["duplicate"] is not None:
        return {
            "deadline": snap["deadline"],
            "seconds": snap["turn_seconds"],
            "text": f"{snap['turn_seconds'] // 60}:{snap['turn_seconds'] % 60:02d}",
            "label": _("Time left in this round"),
        }
    if snap["deadline"] is None or current is None:
        return None
    return {
        "deadline": snap["deadline"],
        "seconds": snap["turn_seconds"],
        # The page counts down from here; a render cached for this version
        # cannot know how much of the turn has passed.
        "text": f"{snap['turn_seconds'] // 60}:{snap['turn_seconds'] % 60:02d}",
        "label": _("Time left for %(name)s's turn") % {"name": current["name"]},
    }


# One message per place a game can have (MAX_SEATS): languages write ranks
# differently (Catalan 1r, 2n, 3r, 4t; Spanish 1.º), which no single
# "#%(place)s" can say.
PLACE_LABELS = (
    pgettext_lazy("place", "#1"),
    pgettext_lazy("place", "#2"),
    pgettext_lazy("place", "#3"),
    pgettext_lazy("place", "#4"),
    pgettext_lazy("place", "#5"),
    pgettext_lazy("place", "#6"),
)


def _places(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seats from first to last; equal totals share a place."""
    ranked = sorted(seats, key=lambda seat: -seat["total"])
    places: list[dict[str, Any]] = []
    for index, seat in enumerate(ranked):
        place = index + 1
        if index and seat["total"] == ranked[index - 1]["total"]:
            place = places[-1]["place"]
        places.append({**seat, "place": place, "place_label": str(PLACE_LABELS[place - 1])})
    return places


def page_title(snap: Snapshot, me: int | None) -> str:
    """What the browser tab says: where this viewer is in the game."""
    name = _ruleset_name(snap["ruleset"], _language())
    if snap["status"] == "lobby":
        where = _("Lobby")
    elif snap["status"] == "finished":
        where = _("Game over")
    elif snap["current_seat"] == me and not _shared(snap, me):
        where = _("Your turn")
    else:
        where = _("Round %(round)s of %(rounds)s") % {
            "round": snap["round"],
            "rounds": snap["rounds"],
        }
    return _("%(where)s · %(game)s") % {"where": where, "game": name}


def table_message(snap: Snapshot, me: int | None, language: str) -> dict[str, Any]:
    """The websocket message that shows ``snap`` to the viewer in seat ``me``
    (what a duplicate round hides from that viewer taken out first)."""
    me = acting_seat(snap, me)
    snap = seen_by(snap, me)
    # Django's active language too: lazy labels and URLs ask for it.
    with translation.override(language):
        rendering = _rendering.set((language,))
        try:
            return {
                "type": "table",
                "version": snap["version"],
                "status": snap["status"],
                "seat": me,
                "html": table_html(table_context(snap, me)),
                "announce": announcement(snap, me),
                "rematch": snap["rematch"],
                "state": snap,
            }
        finally:
            _rendering.reset(rendering)


def hint_message(advice: Advice, language: str) -> dict[str, Any]:
    """The advisor's answer, for the player who asked only."""
    with translation.override(language):
        rows = [
            {**row, "name": category_name(advice["ruleset"], row["category"])}
            for row in advice["boxes"]
        ]
        html = render_to_string(
            "games/partials/hint.html", {"advice": advice, "boxes": rows, "holds": advice["holds"]}
        )
    return {"type": "hint", "version": advice["version"], "html": html}


# Below this, two choices are worth the same to a player (it prints as 0.0).
EVEN = 0.05


def coach_line(coaching: Coaching) -> str:
    """The coaching line in the active language: one reason, its figures the
    advisor's (``games.solver.coach``)."""
    ruleset = coaching["ruleset"]
    names = [category_name(ruleset, key) for key in coaching["boxes"]]
    keep = coaching["keep"]
    loss = coaching["loss"]
    words = {
        "box": names[0] if names else "",
        "other": names[1] if len(names) > 1 else "",
        "dice": ", ".join(str(d) for d in keep),
        "points": coaching["points"],
        "loss": number_format(round(loss, 1), 1),
    }
    return _coach_sentence(coaching["kind"], boxes=len(names), kept=len(keep), loss=loss) % words


def _coach_sentence(kind: str, *, boxes: int, kept: int, loss: float) -> str:
    """The coaching line's sentence for a reason of ``kind``, its blanks
    still to fill (``coach_line``): ``boxes`` the boxes it names, ``kept``
    the dice it holds, ``loss`` the points a worse choice gives away."""
    if kind == "keep_boxes" and boxes > 1:
        return ngettext(
            "Hold %(dice)s: %(box)s and %(other)s both want it.",
            "Hold %(dice)s: %(box)s and %(other)s both want them.",
            kept,
        )
    if kind == "keep_boxes":
        return ngettext(
            "Hold %(dice)s: it serves %(box)s best.",
            "Hold %(dice)s: they serve %(box)s best.",
            kept,
        )
    if kind == "keep_bonus":
        return _("Hold %(dice)s for %(box)s: the upper bonus is still open.")
    if kind == "keep_best":
        return _("Hold %(dice)s: no box wants exactly these, but they aim best at %(box)s.")
    if kind == "reroll_all":
        return _("Roll all five again: scoring now would lose %(loss)s points on average.")
    if kind == "score_stop":
        return _(
            "Score %(points)s in %(box)s now: another roll would lose %(loss)s points on average."
        )
    if kind == "score_only":
        return _("Score %(points)s in %(box)s: it is the only box these dice may go in.")
    if loss < EVEN:
        return _("Score %(points)s in %(box)s: %(other)s is worth as much.")
    if kind == "score_zero":
        return _(
            "Take the zero in %(box)s: it costs least; "
            "%(other)s would cost %(loss)s points more on average."
        )
    return _(
        "Score %(points)s in %(box)s: %(other)s, the next best, "
        "would lose %(loss)s points on average."
    )


def coach_message(coaching: Coaching, language: str) -> dict[str, Any]:
    """The coaching line, for the player who asked only."""
    with translation.override(language):
        return {"type": "coach", "version": coaching["version"], "text": coach_line(coaching)}


def dice_faces(dice: tuple[int, ...] | list[int]) -> SafeString:
    """Small dice drawn with their pips, read out as their numbers."""
    return format_html(
        '<span class="mini-dice" role="img" aria-label="{}">{}</span>',
        " ".join(str(d) for d in dice),
        format_html_join(
            "",
            '<span class="mini-die" aria-hidden="true">{}</span>',
            ((PIP_MARKUP[d],) for d in dice),
        ),
    )


def review_rows(ruleset: str, seat: SeatReview) -> dict[str, Any]:
    """One seat's review as the template shows it, with a cumulative-cost chart."""
    decisions = []
    running = 0.0
    points = []
    for index, decision in enumerate(seat.decisions):
        running += decision.cost
        points.append((index, running))
        decisions.append(
            {
                "round": decision.round,
                "dice": decision.dice,
                "faces": dice_faces(decision.dice),
                "chosen": _choice(ruleset, decision.chosen),
                "best": _choice(ruleset, decision.best),
                "cost": decision.cost,
                "mistake": decision in seat.costly,
            }
        )
    width, height = 600, 160
    top = round_top(running)
    span = max(len(points) - 1, 1)
    polyline = " ".join(
        f"{x * width / span:.1f},{height - y * height / top:.1f}" for x, y in points
    )
    rounds = [d.round for d in seat.decisions] or [1]
    return {
        "order": seat.order,
        "name": seat.name,
        "cost": seat.cost,
        "decisions": decisions,
        "mistakes": len(seat.costly),
        "chart": {
            "width": width,
            "height": height,
            "points": polyline,
            "top": top,
            # The axis's marks, top to bottom, and the rounds at either end.
            "ticks": [top, top / 2, 0],
            "mid_y": height / 2,
            "rounds": (rounds[0], rounds[-1]),
        },
    }


def _choice(ruleset: str, choice: tuple[str, Any]) -> str:
    kind, what = choice
    if kind == "score":
        return _("score %(box)s") % {"box": category_name(ruleset, what)}
    if not what:
        return _("reroll all five")
    return _("hold %(dice)s and roll") % {"dice": " ".join(str(d) for d in what)}


def chat_line_context(line: ChatLine) -> dict[str, Any]:
    """One chat line in the active language: a quick phrase or reaction in
    the reader's words, free text as typed (the template escapes it)."""
    code = line["code"]
    return {
        "id": line["id"],
        "spectator": line["seat"] is None,
        "name": line["name"] or _("Spectator"),
        "text": line["text"],
        "phrase": str(PHRASES[code]) if code in PHRASES else "",
        "reaction": REACTION_SVG.get(code),
        "reaction_label": str(REACTIONS[code]) if code in REACTIONS else "",
    }


def chat_lines_html(lines: list[ChatLine], language: str) -> str:
    with translation.override(language):
        return render_to_string(
            "games/partials/chat_lines.html", {"lines": [chat_line_context(x) for x in lines]}
        )


def chat_message(line: ChatLine, language: str) -> dict[str, Any]:
    """The websocket message that shows one new chat line to a reader."""
    return {"type": "chat", "id": line["id"], "html": chat_lines_html([line], language)}


def chat_panel_context(snap: Snapshot, me: int | None, lines: list[ChatLine]) -> dict[str, Any]:
    """The chat panel of the game page (it lives beside the table, and is
    never re-rendered by a push: new lines are added to it)."""
    return {
        "chat_lines": [chat_line_context(x) for x in lines],
        "chat_open": me is not None or snap["spectator_chat"],
        "chat_host": me == 0 and bool(snap["seats"]) and snap["seats"][0]["person"],
        "chat_phrases": list(PHRASES.items()),
        "chat_reactions": [(code, REACTIONS[code], REACTION_SVG[code]) for code in REACTIONS],
    }
