"""Hostile sockets against live games: property-based, through the real routing.

Hypothesis drives several games at once with random and malicious messages
from every kind of sender (see tests/security/hostile.py). After every message
the socket's answer and the database are checked against an oracle built from
the rules. YACHT_HOSTILE_MESSAGES sets how many messages a run sends at least.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from pathlib import Path

import hypothesis
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from pytest_django.fixtures import Settings

from games.live import consumers
from games.play.actions import DECLARATIONS
from games.rules import ACTION_NAMES, RULESETS
from games.solver.table import ENV_DIRECTORY, load_or_build
from tests.security.hostile import Stats, run_crowd

pytestmark = pytest.mark.django_db(transaction=True)

MESSAGES = int(os.environ.get("YACHT_HOSTILE_MESSAGES", "10000"))
STEPS_PER_EXAMPLE = 200
# A run this long accepts every kind of change at least once (the CI run on
# SQLite); a shorter one need only send every action.
FULL_RUN = 10_000
EXERCISED = [
    *("bad_json", "bad_message", "too_large", "unknown_action", "bad_hold", "stale_version"),
    *("not_seated", "not_your_turn", "not_host", "game_over", "rate_limited"),
    *("not_absent", "not_a_bot", "unknown_bot", "hints_off", "already_started"),
]


def test_hostile_messages_from_every_kind_of_sender_never_break_a_rule_or_a_row(
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    settings: Settings,
    tmp_path: Path,
) -> None:
    # Floods are their own step with the production limit; every other socket
    # may send as fast as the test can, or the run would be rate limited.
    monkeypatch.setattr(consumers, "RATE_BURST", 10**9)
    # Bots wait longer than the run, so every push is one the oracle expects;
    # a turn is stalled at once, so a bot may be asked to stand in any time.
    settings.YACHT_BOT_PAUSE = (10**6, 10**6)
    settings.YACHT_ABSENT_AFTER = 0
    # The advisor's tables go to a fresh directory, built before the crowd:
    # a first hint would otherwise wait for builds made one at a time behind
    # one lock (Yatzy's alone takes 4 s on a quiet machine), and a loaded CI
    # machine took longer than the 10 s an answer is given.
    monkeypatch.setenv(ENV_DIRECTORY, str(tmp_path))
    for ruleset in RULESETS.values():
        load_or_build(ruleset, tmp_path)
    # The same for the limits counted across a client's sockets (tested on
    # their own in test_shared_limits.py).
    settings.YACHT_MESSAGES_PER_SESSION = 10**9
    # Rematches come faster than any address may start games in a row
    # (tested in test_creation_limits.py and test_rematch_limits.py).
    settings.YACHT_GAMES_PACE_PER_ADDRESS = 10**9
    # Chat comes faster than a table's pace, and every socket is sent every
    # line (the process's ceilings: test_process_ceilings.py).
    settings.YACHT_CHAT_LINES_PER_GAME = 10**9
    settings.YACHT_CHAT_DELIVERIES_PER_SECOND = 10**9
    settings.YACHT_SPECTATOR_CHAT_LINES_PER_SECOND = 10**9
    # Spectators send faster than a process reads them when it is busy.
    settings.YACHT_SPECTATOR_MESSAGES_PER_SECOND = 10**9
    stats = Stats()

    @hypothesis.settings(
        max_examples=math.ceil(MESSAGES / STEPS_PER_EXAMPLE),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def crowd(data: st.DataObject) -> None:
        run_crowd(data.draw, STEPS_PER_EXAMPLE, stats)  # type: ignore[arg-type]

    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        crowd()
    elapsed = time.monotonic() - started
    print(
        f"\nhostile sockets: {stats.tried} messages tried, {stats.rejected} rejected, "
        f"{stats.accepted} accepted, {stats.hints} hints, {stats.coached} coaching lines, "
        f"{stats.floods} floods cut off, "
        f"{stats.reconnect_floods} reconnect floods cut off, "
        f"{stats.tried / elapsed:.0f} messages/s; codes {sorted(stats.codes.items())}; "
        f"accepted by action {sorted(stats.took.items())}"
    )
    report = os.environ.get("YACHT_HOSTILE_REPORT")
    if report:
        with open(report, "w") as out:
            json.dump({**stats.__dict__, "seconds": elapsed}, out)
    assert stats.tried >= MESSAGES
    # Every declared action was sent well-formed, and every change and read
    # was accepted at least once, not only refused.
    assert set(stats.sent) == set(ACTION_NAMES), stats.sent
    if MESSAGES >= FULL_RUN:
        changes = {d.name for d in DECLARATIONS if d.answer in ("push", "chat")}
        assert set(stats.took) == changes, stats.took
        assert stats.hints, "no hint was ever given"
        assert stats.coached, "no coaching line was ever given"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors[:5]]
    # Every kind of refusal was exercised, not just the easy ones.
    for code in EXERCISED:
        assert stats.codes.get(code), f"no message was refused with {code}"
    assert stats.accepted > MESSAGES // 20
    assert stats.reconnect_floods, "no reconnect flood was tried"
