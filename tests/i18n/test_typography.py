"""Italian and Catalan elide with the typographic apostrophe (’), in the
catalogs, on the rules pages and in the glossary. The straight one stays only
where it is syntax: inside HTML tags and template tags, never in prose."""

from __future__ import annotations

import re

import pytest

from tests.i18n.test_glossary import GLOSSARY, rules_text, translations
from tests.live import ROOT

ELIDING = ["it", "ca"]
# What a translation may hold besides prose: tags (and their attributes).
CATALOG_SYNTAX = re.compile(r"<[^>]*>")
# What a rules template may hold besides prose: tags and template syntax.
TEMPLATE_SYNTAX = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}|<[^>]*>", re.S)


def straight_in_catalog(found: dict[str, str]) -> list[str]:
    """The msgids whose translation has a straight apostrophe in its prose."""
    return [msgid for msgid, text in found.items() if "'" in CATALOG_SYNTAX.sub("", text)]


def straight_in_template(source: str) -> list[str]:
    """The prose lines of a template that hold a straight apostrophe."""
    prose = TEMPLATE_SYNTAX.sub(" ", source)
    return [line.strip() for line in prose.splitlines() if "'" in line]


@pytest.mark.parametrize("lang", ELIDING)
def test_no_catalog_translation_has_a_straight_apostrophe(lang: str) -> None:
    assert straight_in_catalog(translations(lang)) == []


@pytest.mark.parametrize("lang", ELIDING)
def test_no_rules_template_has_a_straight_apostrophe_in_its_prose(lang: str) -> None:
    templates = sorted((ROOT / "templates" / "rules" / lang).rglob("*.html"))
    assert templates
    found = {
        str(path.relative_to(ROOT)): straight_in_template(path.read_text(encoding="utf-8"))
        for path in templates
    }
    assert {path: lines for path, lines in found.items() if lines} == {}


@pytest.mark.parametrize("lang", ELIDING)
def test_no_rendered_rules_page_has_a_straight_apostrophe(lang: str) -> None:
    text = rules_text(lang)
    assert "’" in text
    assert re.findall(r"\S*'\S*", text) == []


@pytest.mark.parametrize("lang", ELIDING)
def test_the_glossary_writes_its_words_with_the_typographic_apostrophe(lang: str) -> None:
    words = [
        word
        for entry in GLOSSARY[lang]["terms"].values()
        for field in ("term", "stem", "avoid", "misnames")
        for word in ([entry[field]] if isinstance(entry.get(field), str) else entry.get(field, []))
    ]
    assert words
    assert [word for word in words if "'" in word] == []


def test_the_checks_catch_a_straight_apostrophe_in_prose_and_leave_syntax_alone() -> None:
    assert straight_in_catalog({"Waiting": "A l'espera"}) == ["Waiting"]
    assert straight_in_catalog({"Log": "il <a href='%(url)s'>registro</a> dell’ultima"}) == []
    assert straight_in_template("<h2>Un po' di storia</h2>") == ["Un po' di storia"]
    link = "<a href=\"{% url 'rules' ruleset='yacht' %}\">l’altro</a> {{ 'x' }} {# it's #}"
    assert straight_in_template(link) == []
