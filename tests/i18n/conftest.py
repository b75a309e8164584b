# The websocket client of the consumer tests, for the language checks here.
from tests.consumers.conftest import connect

__all__ = ["connect"]
