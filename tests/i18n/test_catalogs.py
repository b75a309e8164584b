"""The translation catalogs: complete, consistent with the source, and
usable by gettext."""

from __future__ import annotations

import gettext
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import django
import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from tests.live import ROOT

LANGUAGES = ["es", "it", "ca"]
# How the catalogs are made (README): makemessages over the project, minus
# what is not the product.
MAKEMESSAGES_IGNORE = [".venv/*", "var/*", "artifacts/*", "tests/*", "bench/*"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def load(path: Path, *, strict: bool = True) -> Catalog:
    with path.open("rb") as po:
        return read_po(po, abort_invalid=strict)


def catalog_of(lang: str) -> Catalog:
    return load(ROOT / "locale" / lang / "LC_MESSAGES" / "django.po")


def entries(catalog: Catalog) -> list[Message]:
    return [m for m in catalog if m.id]


def label(message: Message) -> str:
    text = message.id if isinstance(message.id, str) else message.id[0]
    return f"{message.context or ''}|{text}"


def strings(message: Message) -> tuple[str, ...]:
    if isinstance(message.string, (tuple, list)):
        return tuple(message.string)
    return (message.string or "",)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy(lang: str):
    catalog = catalog_of(lang)
    assert not catalog.fuzzy, "the header is marked fuzzy: compilers skip the whole catalog"
    assert len(entries(catalog)) > 100
    untranslated = [label(m) for m in entries(catalog) if not all(s.strip() for s in strings(m))]
    fuzzy = [label(m) for m in entries(catalog) if m.fuzzy]
    assert untranslated == []
    assert fuzzy == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_entries_have_every_form_the_language_declares(lang: str):
    catalog = catalog_of(lang)
    plurals = [m for m in entries(catalog) if m.pluralizable]
    assert plurals, "the catalog lost its plural entries"
    for message in plurals:
        assert len(strings(message)) == catalog.num_plurals, label(message)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_are_the_ones_django_uses_for_the_language(lang: str):
    # Django merges its own catalog with ours; a different rule would make
    # it keep two and pick forms by the wrong rule for one of them.
    django_po = Path(django.__file__).parent / "conf" / "locale" / lang / "LC_MESSAGES"
    # Django's own catalogs do not all pass babel's strict checks.
    theirs = load(django_po / "django.po", strict=False)
    ours = catalog_of(lang)
    assert ours.plural_forms == theirs.plural_forms


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_translation_keeps_the_placeholders_of_its_source(lang: str):
    catalog = catalog_of(lang)
    mismatched = []
    for message in entries(catalog):
        ids = (message.id,) if isinstance(message.id, str) else message.id
        wanted = set().union(*(PLACEHOLDER.findall(i) for i in ids))
        for text in strings(message):
            if set(PLACEHOLDER.findall(text)) != wanted:
                mismatched.append((label(message), text))
        # A stray "%" would break the %-formatting the placeholders need.
        if wanted:
            for text in strings(message):
                assert "%" not in PLACEHOLDER.sub("", text).replace("%%", ""), text
    assert mismatched == []
    assert list(catalog.check()) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_catalog_compiles_and_gettext_reads_it_back(lang: str):
    catalog = catalog_of(lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    compiled = gettext.GNUTranslations(buffer)
    for message in entries(catalog):
        if message.pluralizable:
            singular, plural = message.id[0], message.id[1]
            assert compiled.ngettext(singular, plural, 5) in strings(message)
        elif message.context:
            assert compiled.pgettext(message.context, str(message.id)) == message.string
        else:
            assert compiled.gettext(str(message.id)) == message.string


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext is not installed")
def test_the_catalogs_hold_every_string_the_source_marks_for_translation(tmp_path: Path):
    # Extract from a copy, so the real catalogs are never rewritten by a test.
    copy = tmp_path / "project"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "var",
            "artifacts",
            "node_modules",
            "__pycache__",
            "*.mo",
            ".hypothesis",
            ".pytest_cache",
            ".ruff_cache",
            "*.sqlite3*",
        ),
    )
    command = [sys.executable, "manage.py", "makemessages", "--no-obsolete", "-l", "es"]
    command += [f"--ignore={pattern}" for pattern in MAKEMESSAGES_IGNORE]
    subprocess.run(command, cwd=copy, check=True, capture_output=True)
    # The refreshed copy holds exactly the strings the source marks today.
    source = {label(m) for m in entries(load(copy / "locale" / "es" / "LC_MESSAGES" / "django.po"))}
    assert len(source) > 100
    for lang in LANGUAGES:
        missing = source - {label(m) for m in entries(catalog_of(lang))}
        assert sorted(missing) == [], (
            f"locale/{lang} lacks these strings: run makemessages and translate them"
        )
