"""Django's template loaders, dropping a tag's indentation as the table's
Jinja environment does (``lstrip_blocks``): an ``{% if %}`` alone on its
line then leaves an empty line in the page rather than a line of spaces.

The source is changed once, when a template is loaded (the cached loader
keeps the result), so no render pays for it."""

from __future__ import annotations

import re

from django.template import Origin
from django.template.loaders import app_directories, filesystem

# Spaces from a line's start up to a tag or a comment, nothing else.
TAG_INDENT = re.compile(r"^[ \t]+(?=\{[%#])", re.MULTILINE)


class FilesystemLoader(filesystem.Loader):
    def get_contents(self, origin: Origin) -> str:
        return TAG_INDENT.sub("", super().get_contents(origin))


class AppDirectoriesLoader(app_directories.Loader):
    def get_contents(self, origin: Origin) -> str:
        return TAG_INDENT.sub("", super().get_contents(origin))
