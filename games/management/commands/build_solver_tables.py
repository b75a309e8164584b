"""Build (or rebuild) the optimal-strategy tables the perfect bot, the
advisor and the review read, so the first game after a deploy need not wait."""

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.rules import RULESETS
from games.solver import default_directory
from games.solver.table import load_or_build


class Command(BaseCommand):
    help = "Build the solver's table for every rule set that lacks an up-to-date one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rebuild", action="store_true", help="build every table anew")
        parser.add_argument("--workers", type=int, default=None, help="processes to build with")

    def handle(self, *args: Any, rebuild: bool, workers: int | None, **options: Any) -> None:
        directory = default_directory()
        for key, ruleset in RULESETS.items():
            started = time.perf_counter()
            table = load_or_build(ruleset, directory, rebuild=rebuild, workers=workers or 1)
            empty = table.value(0, 0, False)
            self.stdout.write(
                f"{key}: expected {empty:.4f} from an empty card "
                f"({time.perf_counter() - started:.1f} s)"
            )
        self.stdout.write(f"tables in {directory}")
