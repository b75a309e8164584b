"""locale/glossary.toml is the vocabulary: the catalogs and the rules pages
use its words, and none of the variants a native reviewer rejected."""

from __future__ import annotations

import html
import re
import tomllib
from functools import cache

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from django.test import Client
from django.utils import translation

from games.labels import category_name
from games.rules import RULESETS
from tests.live import ROOT

GLOSSARY = tomllib.loads((ROOT / "locale" / "glossary.toml").read_text(encoding="utf-8"))
LANGUAGES = ["en", "es", "it", "ca"]
TRANSLATED = ["es", "it", "ca"]


@cache
def catalog(lang: str) -> Catalog:
    with (ROOT / "locale" / lang / "LC_MESSAGES" / "django.po").open("rb") as po:
        return read_po(po)


def translations(lang: str) -> dict[str, str]:
    """Each msgid's translation (the first form of plurals), by msgid."""
    found: dict[str, str] = {}
    for message in catalog(lang):
        if not message.id:
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        string = message.string if isinstance(message.string, str) else (message.string or [""])[0]
        found.setdefault(msgid, string)
    return found


@cache
def rules_text(lang: str) -> str:
    """The words of every rules page in ``lang``, tags and entities gone."""
    client = Client()
    pages = []
    for ruleset in RULESETS:
        body = client.get(f"/{lang}/rules/{ruleset}/").content.decode()
        article = body[body.index("<article") : body.index("</article>")]
        pages.append(html.unescape(re.sub(r"<[^>]+>", " ", article)))
    return " ".join(" ".join(pages).split())


def contains_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def terms(langs: list[str], field: str) -> list[tuple[str, str]]:
    """(language, idea) of the glossary entries that say something about ``field``."""
    return [
        (lang, idea)
        for lang in langs
        for idea, entry in GLOSSARY[lang]["terms"].items()
        if entry.get(field)
    ]


def box_name(lang: str, ruleset: str, key: str) -> str:
    own = GLOSSARY[lang].get("ruleset_boxes", {}).get(ruleset, {})
    return own.get(key) or GLOSSARY[lang]["boxes"][key]


@pytest.mark.parametrize(("lang", "idea"), terms(TRANSLATED, "catalog"))
def test_the_catalog_says_each_glossary_term_the_glossary_way(lang: str, idea: str) -> None:
    entry = GLOSSARY[lang]["terms"][idea]
    found = translations(lang)
    named = entry["catalog"]
    assert all(msgid in found for msgid in named), "the glossary names a msgid the catalog lacks"
    stem = entry["stem"].lower()
    off = {msgid: found[msgid] for msgid in named if stem not in found[msgid].lower()}
    assert off == {}, f"{entry['term']!r} expected"


@pytest.mark.parametrize(("lang", "idea"), terms(LANGUAGES, "pages"))
def test_the_rules_pages_use_the_glossary_terms(lang: str, idea: str) -> None:
    entry = GLOSSARY[lang]["terms"][idea]
    assert entry["stem"].lower() in rules_text(lang).lower()


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_catalog_entry_and_no_rules_page_uses_a_rejected_variant(lang: str) -> None:
    entries = GLOSSARY[lang]["terms"].values()
    rejected = [word for entry in entries for word in entry.get("avoid", [])]
    assert rejected, "the glossary records no rejected variant for this language"
    in_catalog = [
        (word, msgstr)
        for msgstr in translations(lang).values()
        for word in rejected
        if contains_word(msgstr, word)
    ]
    on_pages = [word for word in rejected if contains_word(rules_text(lang), word)]
    assert in_catalog == []
    assert on_pages == []


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_the_scorecard_and_the_rules_page_name_every_box_as_the_glossary_does(
    client, lang: str, ruleset: str
) -> None:
    keys = RULESETS[ruleset].category_keys
    with translation.override(lang):
        shown = {key: category_name(ruleset, key) for key in keys}
    assert shown == {key: box_name(lang, ruleset, key) for key in keys}
    page = html.unescape(client.get(f"/{lang}/rules/{ruleset}/").content.decode())
    assert [name for name in shown.values() if name not in page] == []
