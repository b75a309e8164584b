"""The edges: unknown paths and malformed tokens, cookies or queries are a
404, a 400 or a 4404 close, never a 500 or a traceback in the log."""

from __future__ import annotations

import logging

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from games.models import Game
from games.play import services
from yachtsite.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

MALFORMED_TOKENS = ["%00", "a%00b", "x" * 33, "tok.en", "%E2%80%AE"]


@pytest.fixture
def lobby() -> Game:
    return services.game_create(guest_id="ana", name="Ana", seat_count=1)


@pytest.mark.parametrize("token", MALFORMED_TOKENS)
@pytest.mark.parametrize("page", ["", "review/", "verify/", "verify.json"])
def test_a_malformed_token_in_a_game_page_is_a_404(token, page):
    response = Client(raise_request_exception=True).get(f"/en/g/{token}/{page}")
    assert response.status_code == 404


@pytest.mark.parametrize("token", MALFORMED_TOKENS)
def test_joining_at_a_malformed_token_is_a_404(token):
    response = Client().post(f"/en/g/{token}/join/", {"name": "Ana"})
    assert response.status_code == 404


def test_a_nul_byte_in_a_query_string_is_a_400_even_in_the_admins_search():
    User.objects.create_user("staff", password="pw-staff-1234", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(User.objects.get(username="staff"))
    for path in ("/en/admin/games/game/?q=%00", "/en/admin/games/player/?q=a%00", "/en/?x=%00"):
        assert client.get(path).status_code == 400, path


def test_a_session_cookie_no_session_could_have_is_no_session(lobby):
    client = Client()
    client.cookies["sessionid"] = "abc\x00defghijklmnop"
    response = client.get(f"/en/g/{lobby.token}/")
    assert response.status_code == 200
    assert "Ana" in response.content.decode()


async def close_code(path: str) -> int:
    communicator = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")]
    )
    connected, code = await communicator.connect()
    if connected:
        output = await communicator.receive_output(timeout=3)
        assert output["type"] == "websocket.close", output
        code = output["code"]
    await communicator.disconnect()
    return code


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path", ["/ws/nope/", "/ws/g/", "/", "/ws/g/\x00/", "/ws/g/a\x00b/", "/ws/g/tok/extra/"]
)
async def test_an_unknown_socket_path_or_malformed_token_closes_with_4404_and_logs_nothing(
    path, caplog
):
    with caplog.at_level(logging.WARNING):
        assert await close_code(path) == 4404
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
