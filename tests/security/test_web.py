"""The web side's defences: headers, CSRF, the admin's door, names as text,
the per-session game limit and `check --deploy` with production values."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.models import Game, Player
from games.play import services
from games.present.messages import error_message
from games.runtime import runtime
from games.store import quotas
from tests.clocks import HandClock

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
# 24 characters, the longest name allowed: an attribute breaker and a tag.
HOSTILE_NAME = "\"'><svg/onload=alert(1)>"


@pytest.fixture
def game() -> Game:
    game = services.game_create(guest_id="ana", name=HOSTILE_NAME, seat_count=2)
    services.game_join(token=game.token, guest_id="bo", name="<b onmouseover=alert(1)>")
    return game


def pages(game: Game) -> list[str]:
    return ["/en/", f"/en/g/{game.token}/", "/en/rules/", "/en/admin/login/"]


def test_every_page_sends_a_content_security_policy_without_inline_script(client, game):
    for path in pages(game):
        response = client.get(path)
        assert response.status_code == 200, path
        policy = dict(
            part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
        )
        assert policy["script-src"] == "'self'", path
        assert policy["style-src"] == "'self'", path
        assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
        assert policy["connect-src"] == "'self' ws://testserver"
        assert "unsafe" not in response["Content-Security-Policy"]


def test_pages_are_not_frameable_and_keep_the_referrer_to_the_site(client, game):
    for path in pages(game):
        response = client.get(path)
        assert response["X-Frame-Options"] == "DENY", path
        assert response["Referrer-Policy"] == "same-origin", path
        assert response["X-Content-Type-Options"] == "nosniff", path


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"<[^>]*\sstyle\s*=", re.IGNORECASE)


def test_no_template_has_inline_script_handlers_or_style_attributes():
    # The policy forbids them: one would silently stop working in the browser.
    templates = sorted((ROOT / "templates").rglob("*.html"))
    templates += sorted((ROOT / "games").rglob("templates/**/*.html"))
    templates += sorted((ROOT / "games").rglob("jinja2/**/*.html"))
    assert any("jinja2" in t.parts for t in templates)
    for template in templates:
        text = template.read_text()
        for pattern in (INLINE_SCRIPT, HANDLER, STYLE_ATTRIBUTE):
            assert not pattern.search(text), f"{template.relative_to(ROOT)}: {pattern.pattern}"


def test_rendered_pages_have_no_inline_script_even_with_hostile_names(client, game):
    for path in pages(game)[:3]:
        html = client.get(path).content.decode()
        assert not INLINE_SCRIPT.search(html), path
        assert not HANDLER.search(html), path


def test_a_hostile_name_is_shown_as_text_on_the_game_page(client, game):
    html = client.get(f"/en/g/{game.token}/").content.decode()
    assert "<svg/onload" not in html and "<b onmouseover" not in html
    assert '<span class="seat-name">&#34;&#39;&gt;&lt;svg/onload=alert(1)&gt;</span>' in html
    assert "&lt;b onmouseover=alert(1)&gt;" in html


def test_a_hostile_name_is_shown_as_text_in_the_admin(client, game):
    User.objects.create_user("staff", password="pw-staff-1234", is_staff=True, is_superuser=True)
    client.force_login(User.objects.get(username="staff"))
    for path in (
        "/en/admin/games/game/",
        f"/en/admin/games/game/{game.pk}/change/",
        "/en/admin/games/player/",
        f"/en/admin/games/player/{Player.objects.get(game=game, order=0).pk}/change/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        html = response.content.decode()
        assert "<svg/onload" not in html and "<b onmouseover" not in html, path
        assert "&lt;svg/onload=alert(1)&gt;" in html, path


def test_names_with_control_or_text_direction_characters_are_refused():
    for name in ("Ana\u202eevil", "\u2066Bo", "Al\x00ice", "Zo\x7fe"):
        with pytest.raises(services.GameError) as refused:
            services.game_create(guest_id="g", name=name)
        assert refused.value.code == "bad_name_characters"
    assert services.clean_name("Ana 🎲 María") == "Ana 🎲 María"


def test_the_home_form_refuses_a_name_that_is_too_long_in_the_players_language(client):
    response = client.post(
        "/es/", {"name": "<script>alert(1)</script>", "seats": 2, "ruleset": "yacht"}
    )
    assert response.status_code == 200
    assert not Game.objects.exists()
    assert "<script>alert" not in response.content.decode()


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_session_may_create_twenty_games_an_hour_then_the_form_says_to_wait(
    client, language, settings
):
    settings.YACHT_GAMES_PACE_PER_ADDRESS = 100_000
    form = {"name": "Ana", "seats": 2, "ruleset": "yacht"}
    for _ in range(settings.YACHT_GAMES_PER_HOUR):
        assert client.post(f"/{language}/", form).status_code == 302
    refused = client.post(f"/{language}/", form)
    assert refused.status_code == 429
    with translation.override(language):
        assert error_message("too_many_games") in refused.content.decode()
    assert Game.objects.count() == settings.YACHT_GAMES_PER_HOUR
    # Another session is not held back by this one.
    assert Client().post(f"/{language}/", form).status_code == 302


def test_games_older_than_an_hour_do_not_count_against_the_limit(client, monkeypatch, settings):
    settings.YACHT_GAMES_PACE_PER_ADDRESS = 100_000
    form = {"name": "Ana", "seats": 1, "ruleset": "yacht"}
    start = time.time()
    clock = HandClock(start)
    monkeypatch.setattr(runtime, "clock", clock)
    for _ in range(settings.YACHT_GAMES_PER_HOUR):
        client.post("/en/", form)
    refused = client.post("/en/", form)
    assert refused.status_code == 429
    assert error_message("too_many_games") in refused.content.decode()
    clock.wall = start + 2 * quotas.CREATE_WINDOW
    assert client.post("/en/", form).status_code == 302


def test_every_form_refuses_a_post_without_its_csrf_token(game):
    client = Client(enforce_csrf_checks=True)
    client.get("/en/")
    posts = {
        "/en/": {"name": "Ana", "seats": 2, "ruleset": "yacht"},
        f"/en/g/{game.token}/join/": {"name": "Cy"},
        reverse("set_language"): {"language": "es", "next": "/en/"},
        "/en/admin/login/": {"username": "x", "password": "y"},
    }
    for path, data in posts.items():
        assert client.post(path, data).status_code == 403, path
    assert Game.objects.count() == 1
    assert game.players.count() == 2


def test_the_admin_is_for_staff_only(client, game):
    assert client.get("/en/admin/").status_code == 302
    User.objects.create_user("player", password="pw-player-1234")
    client.force_login(User.objects.get(username="player"))
    response = client.get("/en/admin/games/game/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    # Nor can a non-staff account sign in through the admin's own form.
    fresh = Client()
    response = fresh.post("/en/admin/login/", {"username": "player", "password": "pw-player-1234"})
    assert response.status_code == 200 and "_auth_user_id" not in fresh.session


def sign_in(client: Client, username: str, password: str, address: str = "10.0.0.1") -> bool:
    client.post(
        "/en/admin/login/?next=/en/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )
    return "_auth_user_id" in client.session


def test_admin_sign_in_stops_after_five_failures_for_one_account_and_address():
    username = f"staff-{uuid.uuid4().hex[:8]}"
    User.objects.create_user(username, password="right-password-1", is_staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert not sign_in(Client(), username, "wrong")
    blocked = Client()
    assert not sign_in(blocked, username, "right-password-1"), "throttled, yet let in"
    page = blocked.post(
        "/en/admin/login/", {"username": username, "password": "x"}, REMOTE_ADDR="10.0.0.1"
    )
    assert "Too many failed sign-ins" in page.content.decode()
    # The same account from elsewhere, and others from here, are not locked out.
    assert sign_in(Client(), username, "right-password-1", address="10.0.0.2")
    other = f"other-{uuid.uuid4().hex[:8]}"
    User.objects.create_user(other, password="right-password-2", is_staff=True)
    assert sign_in(Client(), other, "right-password-2")


def test_a_successful_admin_sign_in_clears_earlier_failures():
    username = f"staff-{uuid.uuid4().hex[:8]}"
    User.objects.create_user(username, password="right-password-1", is_staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(Client(), username, "wrong")
    assert sign_in(Client(), username, "right-password-1")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(Client(), username, "wrong")
    assert sign_in(Client(), username, "right-password-1")


def production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "yachtsite.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_HTTPS": "1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "yacht.example",
        **extra,
    }


def test_check_deploy_passes_with_production_settings():
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_check_deploy_fails_when_https_is_off():
    # The check must be able to fail: without HTTPS, cookies are not secure.
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(DJANGO_HTTPS="0"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "SESSION_COOKIE_SECURE" in done.stdout + done.stderr


def test_https_mode_marks_cookies_secure_and_sends_hsts():
    probe = (
        "import django; django.setup();"
        "from django.test import Client;"
        "r = Client().get('/en/', secure=True, HTTP_HOST='yacht.example');"
        "print(r['Strict-Transport-Security']);"
        "print(r.cookies['csrftoken']['secure'], r.cookies['csrftoken']['samesite']);"
        "from django.conf import settings; print(settings.SESSION_COOKIE_SECURE)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env=production_env(DATABASE_URL="sqlite:///:memory:"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    hsts, csrf_cookie, session_secure = done.stdout.splitlines()
    assert "max-age=31536000" in hsts and "includeSubDomains" in hsts
    assert csrf_cookie.split()[0] == "True"
    assert session_secure == "True"
