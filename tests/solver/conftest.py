import os
from collections.abc import Iterator

import pytest

from games.solver import Table, build_all
from games.solver.table import ENV_DIRECTORY


@pytest.fixture(scope="session")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Table]]:
    """Every rule set's table, built once per session in a fresh directory,
    which ``get_table`` (and so the perfect bot) reads too."""
    directory = tmp_path_factory.mktemp("solver")
    before = os.environ.get(ENV_DIRECTORY)
    os.environ[ENV_DIRECTORY] = str(directory)
    try:
        yield build_all(directory)
    finally:
        if before is None:
            del os.environ[ENV_DIRECTORY]
        else:
            os.environ[ENV_DIRECTORY] = before
