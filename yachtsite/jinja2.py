"""The Jinja2 environment of the templates rendered on every move.

Only the game table's partial and its dice are Jinja templates
(``games/jinja2/``): the table is rendered once per distinct view of every
version, and Jinja compiles it to Python. Its words go through Django's own
gettext, in whatever language is active, and ``makemessages`` reads the
``_("…")`` calls as it reads a Django template's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from jinja2 import Environment, Undefined
from markupsafe import Markup


def translate(message: str) -> Markup:
    """``message`` in the active language, trusted as Django's ``{% translate %}``
    trusts its catalog: a ``|format`` on it escapes the values put into it,
    as ``{% blocktranslate %}`` does, and never the words."""
    return Markup(gettext(message))


@cache
def catalog(language: str | None) -> Callable[[str], str]:
    """``gettext`` for one language, remembering each message: the table
    asks for the same few dozen words on every move, and each of Django's
    own calls looks the active language up and searches the catalogs again.
    ``None`` is the language of ``translation.override(None)``: the messages
    as written."""
    known: dict[str, str] = {}

    def gettext_in(message: str) -> str:
        text = known.get(message)
        if text is None:
            with translation.override(language):
                text = known[message] = gettext(message)
        return text

    return gettext_in


@cache
def words(language: str) -> Callable[[str], Markup]:
    """``translate`` for one language, remembering each word (as ``catalog``
    does). Passed to a render as its ``_``."""
    plain = catalog(language)
    known: dict[str, Markup] = {}

    def translate_in(message: str) -> Markup:
        text = known.get(message)
        if text is None:
            text = known[message] = Markup(plain(message))
        return text

    return translate_in


def url(name: str, **kwargs: Any) -> str:
    return reverse(name, kwargs=kwargs or None)


class TableEnvironment(Environment):
    """``a.b`` on a dict looks the key up first, as the Django engine does.

    The table's context is dicts all the way down; Jinja's own order (the
    attribute, then the key) raised and caught an AttributeError on every
    lookup, about a fifth of a render.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def environment(**options: Any) -> Environment:
    # A missing value prints nothing, as in a Django template, with DEBUG on
    # too (Django's backend would print a marker then): the table a test or
    # a dev server sees is the one players see.
    options["undefined"] = Undefined
    env = TableEnvironment(**options)
    env.globals.update({"_": translate, "url": url})
    return env
