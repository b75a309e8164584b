"""Settings for the type checker's Django plugin, which imports the settings
to learn the models: the real settings refuse to load without a secret key
outside DEBUG, and mypy run bare (an editor, pre-commit) has neither."""

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from yachtsite.settings import *  # noqa: F403
