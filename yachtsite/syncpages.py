"""Page requests run their middleware in one thread, in one go.

Under ASGI, Django runs a middleware that can work either way in its async
form when the handler inside it is async, and the async form of each of
Django's own middleware hands every ``process_request`` and
``process_response`` to the process's one shared thread separately: 17
round trips between the event loop and that thread for one page here, each
of them waiting its turn behind every other page and costing a thread
switch.

This middleware, innermost and synchronous only, makes every middleware
around it run synchronously: the whole chain goes to the shared thread in
one trip. What is left are the view's own trip, CSRF's check of the view
and the request signals' receivers: five trips in all, where there were
seventeen. Nothing else changes: the same middleware run in the same order
with the same request and response.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class SynchronousPagesMiddleware:
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)
