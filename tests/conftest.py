import random

import pytest


@pytest.fixture
def rng() -> random.Random:
    """Seeded dice, so a failing game can be replayed."""
    return random.Random(20261129)
