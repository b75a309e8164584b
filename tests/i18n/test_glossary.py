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

from games.present.labels import category_name
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


PAGES = "rules pages"


def rejected_uses(lang: str, found: dict[str, str], pages: str) -> list[tuple[str, str]]:
    """(variant, where) for each rejected variant in ``found`` (translations by
    msgid) or in ``pages`` (the rules pages' words): an ``avoid`` word
    anywhere, a ``misnames`` word in the entries of the idea it misnames."""
    uses = []
    for entry in GLOSSARY[lang]["terms"].values():
        for word in entry.get("avoid", []):
            uses += [(word, msgid) for msgid, text in found.items() if contains_word(text, word)]
            if contains_word(pages, word):
                uses.append((word, PAGES))
        for word in entry.get("misnames", []):
            named = entry["catalog"]
            uses += [(word, msgid) for msgid in named if contains_word(found[msgid], word)]
    return uses


def variants(langs: list[str], field: str) -> list[tuple[str, str, str]]:
    """(language, idea, variant) for every variant the glossary lists under ``field``."""
    return [
        (lang, idea, word)
        for lang in langs
        for idea, entry in GLOSSARY[lang]["terms"].items()
        for word in entry.get(field, [])
    ]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_catalog_entry_and_no_rules_page_uses_a_rejected_variant(lang: str) -> None:
    assert variants([lang], "avoid"), "the glossary records no rejected variant for this language"
    assert rejected_uses(lang, translations(lang), rules_text(lang)) == []


def scrubbed(text: str, word: str) -> str:
    """``text`` without ``word``: a copy to plant it back into, whatever the real
    text holds today."""
    return re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", "", text)


def caught(lang: str, word: str, found: dict[str, str], pages: str) -> set[str]:
    """Where the check finds ``word``: msgids, or the rules pages."""
    return {where for variant, where in rejected_uses(lang, found, pages) if variant == word}


@pytest.mark.parametrize(("lang", "idea", "word"), variants(TRANSLATED, "avoid"))
def test_a_rejected_variant_planted_in_a_catalog_entry_or_a_rules_page_is_caught(
    lang: str, idea: str, word: str
) -> None:
    found = {msgid: scrubbed(text, word) for msgid, text in translations(lang).items()}
    pages = scrubbed(rules_text(lang), word)
    assert caught(lang, word, found, pages) == set()
    entry = GLOSSARY[lang]["terms"][idea]
    msgid = entry["catalog"][0] if "catalog" in entry else next(iter(found))
    assert caught(lang, word, {**found, msgid: f"{found[msgid]} {word}."}, pages) == {msgid}
    assert caught(lang, word, found, f"{pages} {word}.") == {PAGES}


@pytest.mark.parametrize(("lang", "idea", "word"), variants(TRANSLATED, "misnames"))
def test_a_word_planted_where_it_misnames_an_idea_is_caught_and_allowed_elsewhere(
    lang: str, idea: str, word: str
) -> None:
    found = {msgid: scrubbed(text, word) for msgid, text in translations(lang).items()}
    pages = rules_text(lang)
    named = GLOSSARY[lang]["terms"][idea]["catalog"]
    assert caught(lang, word, found, pages) == set()
    for msgid in named:
        assert caught(lang, word, {**found, msgid: word}, pages) == {msgid}
    elsewhere = next(msgid for msgid in found if msgid not in named)
    assert caught(lang, word, {**found, elsewhere: word}, f"{pages} {word}.") == set()


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
