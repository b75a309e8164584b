"""Turning a public snapshot into what one viewer sees.

The game page and every websocket push go through ``table_message`` and the
same template, so a refresh and a live update can never disagree. What
differs per viewer is only the language and which controls are live.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.labels import category_name, ruleset_name
from games.models import BOT_LEVELS
from games.rules import MAX_ROLLS, UPPER_KEYS
from games.selectors import Snapshot

# Which cells of a 3x3 grid show a pip, for each face.
PIPS = {
    1: (4,),
    2: (0, 8),
    3: (0, 4, 8),
    4: (0, 2, 6, 8),
    5: (0, 2, 4, 6, 8),
    6: (0, 2, 3, 5, 6, 8),
}


def _die(index: int, value: int, held: bool) -> dict[str, Any]:
    label = (_("Die %(n)s: %(value)s, held") if held else _("Die %(n)s: %(value)s")) % {
        "n": index + 1,
        "value": value,
    }
    return {
        "index": index,
        "key": index + 1,
        "value": value,
        "held": held,
        "label": label,
        "cells": [cell in PIPS[value] for cell in range(9)],
    }


def _rows(snap: Snapshot, my_turn: bool) -> list[dict[str, Any]]:
    current = snap["current_seat"]
    rows = []
    for key in snap["categories"]:
        cells = []
        for seat in snap["seats"]:
            filled = key in seat["boxes"]
            preview = None
            if seat["order"] == current and not filled and key in snap["preview"]:
                preview = snap["preview"][key]
            cells.append(
                {
                    "value": seat["boxes"].get(key),
                    "filled": filled,
                    "preview": preview,
                    "can_score": my_turn and preview is not None,
                }
            )
        rows.append(
            {
                "key": key,
                "name": category_name(snap["ruleset"], key),
                "upper": key in UPPER_KEYS,
                "cells": cells,
            }
        )
    return rows


def announcement(snap: Snapshot, me: int | None) -> str:
    """One sentence for screen readers about what just happened."""
    last = snap.get("last") or {}
    names = {s["order"]: s["name"] for s in snap["seats"]}
    kind = last.get("kind")
    parts: list[str] = []
    who = names.get(last.get("seat"), "")
    if kind == "join":
        parts.append(_("%(name)s joined the game.") % {"name": who})
    elif kind == "start":
        parts.append(_("The game has started."))
    elif kind == "stand_in":
        parts.append(_("A bot is playing for %(name)s until they return.") % {"name": who})
    elif kind == "take_back":
        parts.append(_("%(name)s is back.") % {"name": who})
    elif kind == "roll":
        dice = ", ".join(str(d) for d in last["dice"])
        parts.append(_("%(name)s rolled %(dice)s.") % {"name": who, "dice": dice})
    elif kind == "score":
        parts.append(
            ngettext(
                "%(name)s scored %(points)s point in %(box)s.",
                "%(name)s scored %(points)s points in %(box)s.",
                last["points"],
            )
            % {
                "name": who,
                "points": last["points"],
                "box": category_name(snap["ruleset"], last["category"]),
            }
        )
    if snap["status"] == "finished":
        parts.append(result_sentence(snap))
    elif snap["status"] == "playing" and kind in ("start", "score"):
        if snap["current_seat"] == me:
            parts.append(_("It is your turn."))
        else:
            parts.append(_("It is %(name)s's turn.") % {"name": names[snap["current_seat"]]})
    return " ".join(parts)


def result_sentence(snap: Snapshot) -> str:
    winners = [s for s in snap["seats"] if s["order"] in snap["winners"]]
    if not winners:
        return ""
    if len(winners) == 1:
        return _("%(name)s wins with %(total)s points.") % {
            "name": winners[0]["name"],
            "total": winners[0]["total"],
        }
    return _("A draw: %(names)s share first place with %(total)s points.") % {
        "names": ", ".join(w["name"] for w in winners),
        "total": winners[0]["total"],
    }


def table_context(snap: Snapshot, me: int | None) -> dict[str, Any]:
    playing = snap["status"] == "playing"
    my_turn = playing and me is not None and snap["current_seat"] == me
    held = set(snap["held"])
    threshold = snap["upper_bonus_threshold"]
    seats = [
        {
            **seat,
            "is_me": seat["order"] == me,
            "is_current": playing and seat["order"] == snap["current_seat"],
            "is_winner": seat["order"] in snap["winners"],
            "upper_progress": f"{seat['upper']} / {threshold}" if threshold else None,
        }
        for seat in snap["seats"]
    ]
    current = next((s for s in seats if s["is_current"]), None)
    mine = next((s for s in seats if s["is_me"]), None)
    # Another person whose turn has stalled: the others may let a bot stand in.
    absent_from = None
    if (
        playing
        and mine is not None
        and current is not None
        and current["person"]
        and not current["bot"]
        and not current["is_me"]
        and snap["acted_at"] is not None
    ):
        absent_from = snap["acted_at"] + settings.YACHT_ABSENT_AFTER
    return {
        "snap": snap,
        "me": me,
        "is_host": me == 0,
        "spectator": me is None,
        "my_turn": my_turn,
        "current": current,
        "seats": seats,
        "rows": _rows(snap, my_turn),
        "dice": [_die(i, v, i in held) for i, v in enumerate(snap["dice"])],
        "can_roll": my_turn and snap["rolls_left"] > 0,
        "can_hold": my_turn and 0 < snap["rolls_used"] < MAX_ROLLS,
        "ruleset_name": ruleset_name(snap["ruleset"]),
        "has_extra_bonus": any(s["extra_bonus"] for s in snap["seats"]),
        "result": result_sentence(snap) if snap["status"] == "finished" else "",
        "free_seats": range(snap["seat_count"] - len(snap["seats"])),
        "stood_in": bool(mine and mine["bot"]),
        "absent_from": absent_from,
        "absent_after": settings.YACHT_ABSENT_AFTER,
        "bot_levels": BOT_LEVELS,
        "can_hint": my_turn and snap["hints"] and snap["rolls_used"] > 0,
    }


def table_message(snap: Snapshot, me: int | None, language: str) -> dict[str, Any]:
    """The websocket message that shows ``snap`` to the viewer in seat ``me``."""
    with translation.override(language):
        return {
            "type": "table",
            "version": snap["version"],
            "status": snap["status"],
            "seat": me,
            "html": render_to_string("games/partials/table.html", table_context(snap, me)),
            "announce": announcement(snap, me),
            "rematch": snap["rematch"],
            "state": snap,
        }


def hint_message(advice: dict[str, Any], language: str) -> dict[str, Any]:
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


def review_rows(ruleset: str, seat: Any) -> dict[str, Any]:
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
                "chosen": _choice(ruleset, decision.chosen),
                "best": _choice(ruleset, decision.best),
                "cost": decision.cost,
                "mistake": decision in seat.costly,
            }
        )
    width, height = 600, 160
    top = max(running, 1.0)
    span = max(len(points) - 1, 1)
    polyline = " ".join(
        f"{x * width / span:.1f},{height - y * height / top:.1f}" for x, y in points
    )
    return {
        "order": seat.order,
        "name": seat.name,
        "cost": seat.cost,
        "decisions": decisions,
        "mistakes": len(seat.costly),
        "chart": {"width": width, "height": height, "points": polyline, "top": top},
    }


def _choice(ruleset: str, choice: tuple[str, Any]) -> str:
    kind, what = choice
    if kind == "score":
        return _("score %(box)s") % {"box": category_name(ruleset, what)}
    if not what:
        return _("reroll all five")
    return _("hold %(dice)s and roll") % {"dice": " ".join(str(d) for d in what)}
