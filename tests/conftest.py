import random

import pytest


@pytest.fixture
def rng() -> random.Random:
    """Seeded dice, so a failing game can be replayed."""
    return random.Random(20261129)


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Persistent connections are right for the server, but in tests they keep
    # thread-pool connections open and block dropping the test database.
    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Browser tests last: they are the slowest, and a failure in a fast layer
    # should be reported before them.
    items.sort(key=lambda item: "tests/browser/" in str(item.path))
