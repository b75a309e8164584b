"""Write the parts of docs/protocol.md that follow from the code: the table of
client actions (games/play/actions.py) and the kinds of push (games/store/selectors.py)."""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.play.actions import PROTOCOL_DOC, protocol_sections, with_sections


class Command(BaseCommand):
    help = "Rewrite docs/protocol.md's generated sections (or, with --check, fail if stale)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="only say whether it is stale")

    def handle(self, *args: Any, check: bool, **options: Any) -> None:
        path = Path(settings.BASE_DIR) / PROTOCOL_DOC
        page = path.read_text(encoding="utf-8")
        fresh = with_sections(page, protocol_sections())
        if fresh == page:
            self.stdout.write(f"{PROTOCOL_DOC} is up to date")
        elif check:
            raise CommandError(f"{PROTOCOL_DOC} is stale: run manage.py protocol_doc")
        else:
            path.write_text(fresh, encoding="utf-8")
            self.stdout.write(f"{PROTOCOL_DOC} rewritten")
