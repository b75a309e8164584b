"""Turning a public snapshot into what one viewer sees.

The game page and every websocket push go through ``table_message`` and the
same template, so a refresh and a live update can never disagree. What
differs per viewer is only the language and which controls are live.
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.labels import category_name, ruleset_name
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
