"""The client's address comes from X-Forwarded-For only when a listed proxy
sent it; the admin sign-in throttle counts per address and account from
that address, with a cool-off, and without touching Redis."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from yachtsite.clientaddr import address_group, client_address, scope_address

pytestmark = pytest.mark.django_db

PROXY = "10.9.9.9"


@pytest.fixture(autouse=True)
def behind_a_proxy(settings):
    settings.YACHT_TRUSTED_PROXIES = [PROXY, "fd00::/8"]


def test_a_forwarded_address_is_believed_only_from_a_listed_proxy():
    assert client_address("198.51.100.7", ["1.2.3.4"]) == "198.51.100.7"
    assert client_address(PROXY, ["203.0.113.5"]) == "203.0.113.5"
    assert client_address("fd00::1", ["203.0.113.5"]) == "203.0.113.5"
    # What a client wrote before our proxy's entry is not believed.
    assert client_address(PROXY, ["1.2.3.4, 203.0.113.5"]) == "203.0.113.5"
    assert client_address(PROXY, ["1.2.3.4", "203.0.113.5"]) == "203.0.113.5"
    assert client_address(PROXY, []) == PROXY


def test_a_socket_from_a_listed_proxy_is_counted_against_the_client_it_names():
    headers = [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.9")]
    assert scope_address({"client": (PROXY, 1), "headers": headers}) == "203.0.113.9"
    assert scope_address({"client": ("198.51.100.1", 1), "headers": headers}) == "198.51.100.1"


def staff() -> tuple[str, str]:
    username = f"staff-{uuid.uuid4().hex[:8]}"
    User.objects.create_user(username, password="right-password-1", is_staff=True)
    return username, "right-password-1"


def sign_in(username: str, password: str, *, peer: str, forwarded: str | None = None) -> bool:
    client = Client()
    extra: dict[str, Any] = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    response = client.post(
        "/en/admin/login/?next=/en/admin/", {"username": username, "password": password}, **extra
    )
    assert response.status_code in (200, 302, 429), response.status_code
    return "_auth_user_id" in client.session


def test_a_new_forwarded_address_per_guess_does_not_escape_the_throttle(settings):
    username, password = staff()
    # Straight to the app, each guess claiming another address: the peer counts.
    for n in range(30):
        sign_in(username, "wrong", peer="198.51.100.7", forwarded=f"10.0.{n}.1")
    assert not sign_in(username, password, peer="198.51.100.7", forwarded="10.1.1.1")
    # Through our proxy, whatever the client put first: the address nginx saw counts.
    for n in range(30):
        sign_in(username, "wrong", peer=PROXY, forwarded=f"10.0.{n}.1, 203.0.113.5")
    assert not sign_in(username, password, peer=PROXY, forwarded="10.2.2.2, 203.0.113.5")


def test_failures_of_one_client_behind_the_proxy_do_not_lock_out_another():
    username, password = staff()
    for _ in range(settings_limit()):
        sign_in(username, "wrong", peer=PROXY, forwarded="203.0.113.5")
    assert not sign_in(username, password, peer=PROXY, forwarded="203.0.113.5")
    # The real staff member, elsewhere, behind the same proxy, still gets in.
    assert sign_in(username, password, peer=PROXY, forwarded="192.0.2.44")


def settings_limit() -> int:
    from django.conf import settings

    return int(settings.AXES_FAILURE_LIMIT)


def test_a_throttled_pair_may_sign_in_again_after_the_cool_off(settings):
    from axes.models import AccessAttempt
    from django.utils import timezone

    username, password = staff()
    for _ in range(settings_limit()):
        sign_in(username, "wrong", peer="198.51.100.8")
    assert not sign_in(username, password, peer="198.51.100.8")
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME * 2)
    assert sign_in(username, password, peer="198.51.100.8")


def test_admin_sign_in_works_and_is_throttled_with_redis_down(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    username, password = staff()
    client = Client(raise_request_exception=True)
    page = client.post("/en/admin/login/", {"username": username, "password": "wrong"})
    assert page.status_code == 200
    assert sign_in(username, password, peer="198.51.100.9")
    for _ in range(settings_limit()):
        sign_in(username, "wrong", peer="198.51.100.10")
    assert not sign_in(username, password, peer="198.51.100.10")


def test_an_ipv6_subscriber_is_one_client_whatever_address_of_its_64_it_uses(settings):
    from games.live import limits

    settings.YACHT_SOCKETS_PER_ADDRESS = 2
    groups = {address_group(f"2001:db8:0:1::{n}") for n in range(1, 5)}
    assert groups == {"2001:db8:0:1::/64"}
    assert address_group("2001:db8:0:2::1") != address_group("2001:db8:0:1::1")
    sockets = limits.SocketCounts()
    claims = [
        sockets.claim(address=f"2001:db8:0:1::{n}", guest=f"g{n}", token=f"t{n}")
        for n in range(1, 4)
    ]
    assert claims[2] is None, "a third socket from the same /64 is over a cap of two"
    assert sockets.claim(address="2001:db8:0:2::1", guest="g9", token="t9") is not None


def test_an_ipv4_address_is_its_own_group_unless_a_wider_prefix_is_configured(settings):
    assert address_group("203.0.113.5") == "203.0.113.5"
    assert address_group("::ffff:203.0.113.5") == "203.0.113.5"
    settings.YACHT_IPV4_GROUP_PREFIX = 24
    assert address_group("203.0.113.5") == address_group("203.0.113.77") == "203.0.113.0/24"
    assert address_group("not an address") == "not an address"
