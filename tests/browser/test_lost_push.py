"""A push that never reaches the page does not leave the player waiting: the
page notices the silence after its own action, or the jump in versions when
the next push comes, and asks the server for the table itself. Pushes are
dropped on the way to the page by intercepting its websocket."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_live_game import create_game, join_game, start, version, wait_past

pytestmark = pytest.mark.browser


class PushDropper:
    """Sits on the page's websocket: drops the server's table of one chosen
    version, once, and records what the page sends."""

    def __init__(self, page: Page) -> None:
        self.drop_version: int | None = None
        self.dropped: list[int] = []
        self.sent: list[dict[str, Any]] = []
        page.route_web_socket(re.compile(r"/ws/g/"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if (
                data.get("type") == "table"
                and data["version"] == self.drop_version
                and not self.dropped
            ):
                self.dropped.append(data["version"])
                return
            ws.send(message)

        def from_page(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        server.on_message(from_server)
        ws.on_message(from_page)

    def syncs(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("action") == "sync"]


def test_when_the_push_after_my_roll_is_lost_the_page_fetches_the_table_itself(new_page):
    ana = new_page()
    dropper = PushDropper(ana)
    create_game(ana, "Ana", seats=1)
    start(ana)
    v = version(ana)
    dropper.drop_version = v + 1
    ana.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(ana, v)  # within the default 10 s; the page asks after 3 s of silence
    assert dropper.dropped == [v + 1]
    assert {"action": "sync", "version": v} in dropper.syncs()
    expect(ana.get_by_role("button", name=re.compile("^Roll again"))).to_be_visible()


def test_a_jump_in_versions_makes_the_page_ask_whether_it_is_current(new_page):
    ana, bo = new_page(), new_page()
    watcher = PushDropper(bo)
    invite = create_game(ana, "Ana")
    join_game(bo, invite, "Bo")
    start(ana)
    v = version(ana)
    watcher.drop_version = v + 1  # Bo never hears Ana's first roll
    ana.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(ana, v)
    ana.get_by_role("button", name=re.compile("^Roll again")).click()
    wait_past(bo, v + 1)
    expect(bo.locator("#game")).to_have_attribute("data-version", str(v + 2))
    assert watcher.dropped == [v + 1]
    for _ in range(50):  # the page's message passes through this test's thread
        if {"action": "sync", "version": v + 2} in watcher.syncs():
            break
        bo.wait_for_timeout(100)
    assert {"action": "sync", "version": v + 2} in watcher.syncs()
