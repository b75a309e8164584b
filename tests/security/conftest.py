# The socket client of the consumer tests, through the same real routing.
from tests.consumers.conftest import connect  # noqa: F401
