"""Under ASGI a page's middleware runs in one trip to the shared thread that
Django keeps for synchronous code, not one trip per middleware method."""

import pytest
from asgiref.sync import SyncToAsync
from django.test import AsyncClient

from games import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def trips(monkeypatch) -> list[str]:
    made: list[str] = []
    plain = SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        made.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await plain(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    return made


@pytest.mark.parametrize("page", ["home", "game"])
async def test_a_page_goes_to_the_shared_thread_a_handful_of_times(trips, page):
    client = AsyncClient()
    path = "/en/"
    if page == "game":
        game = await SyncToAsync(services.game_create)(
            guest_id="ana", name="Ana", seat_count=2, ruleset="yacht"
        )
        path = f"/en/g/{game.token}/"
    await client.get(path)  # a session, and first-use caches
    trips.clear()
    response = await client.get(path)
    assert response.status_code == 200
    # The middleware chain once, the view once, and CSRF's process_view once
    # (and a few more at most), where each middleware's methods went one by
    # one before: seventeen trips.
    assert len(trips) <= 5, trips
