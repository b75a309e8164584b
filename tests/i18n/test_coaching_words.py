"""Every coaching line in every language, with that language's box names."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.present.labels import category_name
from games.present.rendering import coach_line, coach_message

KINDS = [
    ("keep_boxes", ["fives", "full_house"], [5, 5], 0, 0.0),
    ("keep_boxes", ["sixes"], [6], 0, 0.0),
    ("keep_boxes", ["fives"], [5, 5], 0, 0.0),
    ("keep_bonus", ["fours"], [4, 4, 4], 0, 0.0),
    ("keep_best", ["little_straight"], [2, 4], 0, 0.0),
    ("reroll_all", [], [], 0, 1.25),
    ("score_stop", ["little_straight"], [], 30, 9.0),
    ("score_only", ["choice"], [], 17, 0.0),
    ("score_best", ["full_house", "sixes"], [], 26, 8.94),
    ("score_best", ["ones", "twos"], [], 2, 0.01),
    ("score_zero", ["yacht", "big_straight"], [], 0, 3.5),
]


def line(lang: str, kind: str, boxes: list[str], keep: list[int], points: int, loss: float):
    coaching = {
        "version": 3,
        "ruleset": "yacht",
        "kind": kind,
        "boxes": boxes,
        "keep": keep,
        "points": points,
        "loss": loss,
    }
    return coach_message(coaching, lang)["text"]  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", ["es", "it", "ca"])
@pytest.mark.parametrize(("kind", "boxes", "keep", "points", "loss"), KINDS)
def test_each_coaching_line_is_translated_with_the_languages_box_names(
    lang: str, kind: str, boxes: list[str], keep: list[int], points: int, loss: float
) -> None:
    text = line(lang, kind, boxes, keep, points, loss)
    english = line("en", kind, boxes, keep, points, loss)
    assert text != english
    assert "%(" not in text
    with translation.override(lang):
        for box in boxes:
            assert category_name("yacht", box) in text
    if loss >= 0.05:
        # Numbers are written the language's way (a decimal comma here).
        assert f"{loss:.1f}".replace(".", ",") in text


def test_the_english_line_says_which_boxes_want_the_dice() -> None:
    with translation.override("en"):
        text = coach_line(
            {"version": 1, "ruleset": "yacht", "kind": "keep_boxes",
             "boxes": ["fives", "full_house"], "keep": [5, 5], "points": 0, "loss": 0.0}
        )  # fmt: skip
    assert text == "Hold 5, 5: Fives and Full House both want them."
