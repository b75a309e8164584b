"""Who is asking: the client's address, believed from a proxy only when the
proxy is one we run.

Limits and the admin throttle count per address. Taking the address from a
header any client can send (as daphne's ``--proxy-headers`` does) let one
client be a new address on every request; taking the peer alone behind a
proxy made every client one address. So ``X-Forwarded-For`` is read only
when the connection comes from a listed proxy (``YACHT_TRUSTED_PROXIES``),
and then its rightmost entry that is not itself a listed proxy is the
client: the one our own proxy wrote, whatever the client put before it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(listed: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in listed if entry)


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in _networks(tuple(settings.YACHT_TRUSTED_PROXIES)))


def client_address(peer: str, forwarded_for: Iterable[str]) -> str:
    """The client's address, given the connection's peer and every
    ``X-Forwarded-For`` header value (in order)."""
    if not _trusted(peer):
        return peer
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop):
            return hop
    return hops[0] if hops else peer


def scope_address(scope: dict[str, Any]) -> str:
    """The client address of an ASGI connection (a websocket)."""
    client = scope.get("client") or ("", 0)
    forwarded = [
        value.decode("latin-1")
        for name, value in scope.get("headers", [])
        if name == b"x-forwarded-for"
    ]
    return client_address(str(client[0]), forwarded)


class ClientAddressMiddleware:
    """Puts the client's address in ``REMOTE_ADDR`` for everything after it
    (the admin throttle, the game limits)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
        request.META["REMOTE_ADDR"] = client_address(
            request.META.get("REMOTE_ADDR", ""), [forwarded] if forwarded else []
        )
        return self.get_response(request)


def address_group(address: str) -> str:
    """The group a client's address is counted in by every limit.

    One IPv6 subscriber is handed a whole /64, so counting its addresses one
    by one would give it 2**64 shares; an IPv4 address is one subscriber (or
    one household behind a router), unless ``YACHT_IPV4_GROUP_PREFIX`` widens
    the group (24 counts a /24 as one). Anything that is not an address (a
    test client's placeholder) is its own group.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        prefix = settings.YACHT_IPV4_GROUP_PREFIX
        return (
            str(ip) if prefix >= 32 else str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
        )
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


def request_address(request: HttpRequest) -> str:
    """For django-axes: the address the middleware above settled on."""
    return str(request.META.get("REMOTE_ADDR", ""))
