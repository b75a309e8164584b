"""docs/protocol.md cannot drift from the code: its list of actions and of
push kinds is written from the declarations, and every error code a socket
can hear is explained there."""

from __future__ import annotations

import re
from pathlib import Path

from games.play.actions import DECLARATIONS, PROTOCOL_DOC, protocol_sections, with_sections
from games.present.messages import MESSAGES
from games.rules import ACTION_NAMES

PAGE = Path(__file__).resolve().parents[2] / PROTOCOL_DOC
# Codes only the pages (forms, the join and create services) can give.
PAGE_ONLY = {
    "bad_name",
    "bad_name_characters",
    "bad_seat_count",
    "unknown_ruleset",
    "no_such_game",
    "no_guest",
    # A game of real dice with what needs server dice: refused at creation.
    "companion_alone",
}


def test_the_protocol_page_lists_every_declared_action_and_push_kind_as_the_code_has_them():
    page = PAGE.read_text(encoding="utf-8")
    assert with_sections(page, protocol_sections()) == page, (
        "docs/protocol.md is stale: run .venv/bin/python manage.py protocol_doc"
    )


def test_every_action_the_rules_check_is_declared_and_documented():
    assert tuple(d.name for d in DECLARATIONS) == ACTION_NAMES
    table = protocol_sections()["actions"]
    assert all(f"| `{name}` |" in table for name in ACTION_NAMES)


def test_every_error_code_a_socket_can_hear_is_explained_on_the_protocol_page():
    page = PAGE.read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+)`", page.partition("### `error`")[2]))
    assert set(MESSAGES) - PAGE_ONLY - documented == set()
