"""The Jinja2 environment of the templates rendered on every move.

Only the game table's partial and its dice are Jinja templates
(``games/jinja2/``): the table is rendered once per distinct view of every
version, and Jinja compiles it to Python. Its words go through Django's own
gettext, in whatever language is active, and ``makemessages`` reads the
``_("…")`` calls as it reads a Django template's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from jinja2 import Environment, Undefined
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
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


class CompiledWords(Extension):
    """Each ``_("…")`` of a template's source put in as its translation, in
    the language of the environment compiling it (``in_language``).

    ``_("Dice")`` is read as ``"Dados"|safe``: the same trusted words that
    ``translate`` would return at render time, but now a constant, which
    Jinja folds into the text around it. A ``|format`` after it still
    escapes the values put in. Every render of the table had called ``_``
    about a dozen times through Jinja's runtime and escaped each answer
    again. Measured with ``bench.render`` (median of 5 turns, on a shared
    2-core machine): 0.225 ms a render of the table partial with its words
    compiled in, 0.264 ms with them looked up per render, the trivial
    template's 0.044 ms in the same run: 15 % of the partial, about 5 % of a
    viewer's whole table message (0.72 ms). A ``_`` applied to anything but
    one string literal is left to the render's ``_``; the source, which
    ``makemessages`` reads, is unchanged.
    """

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        plain = catalog(self.environment.words_language)  # type: ignore[attr-defined]
        window: list[Token] = []
        before: Token | None = None
        for token in stream:
            window.append(token)
            if len(window) < 4:
                continue
            name, opening, literal, closing = window
            if (
                name.type == "name"
                and name.value == "_"
                and opening.type == "lparen"
                and literal.type == "string"
                and closing.type == "rparen"
                and (before is None or before.type != "dot")
            ):
                line = name.lineno
                yield Token(line, "string", plain(literal.value))
                yield Token(line, "pipe", "|")
                yield Token(line, "name", "safe")
                before, window = closing, []
                continue
            before = window.pop(0)
            yield before
        yield from window


@cache
def in_language(language: str | None) -> Environment:
    """The table's environment with its words compiled in ``language``
    (``CompiledWords``): an overlay of the configured one, with its own
    compiled templates, so each language's are compiled once."""
    from django.template import engines

    base: Environment = engines["jinja2"].env  # type: ignore[attr-defined]
    overlay = base.overlay(extensions=[CompiledWords])
    overlay.words_language = language  # type: ignore[attr-defined]
    return overlay


def environment(**options: Any) -> Environment:
    # A missing value prints nothing, as in a Django template, with DEBUG on
    # too (Django's backend would print a marker then): the table a test or
    # a dev server sees is the one players see.
    options["undefined"] = Undefined
    # Stock Jinja's lookup (the attribute, then the key) on the table's
    # dicts: a lookup of our own, the key first, bought 0.012 ms of a
    # 0.276 ms render (bench.render), within what a shared machine moves.
    env = Environment(**options)
    env.globals.update({"_": translate, "url": url})
    return env
