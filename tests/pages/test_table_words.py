"""The table's words compiled into its template, per language.

``table_html`` renders from a template whose ``_("…")`` calls were replaced by
their translations when it was compiled (``yachtsite.jinja2.CompiledWords``).
It must print exactly what the template printed with ``_`` called at render
time, in every language, for every kind of viewer and every stage of a game.
"""

import random

import pytest
from django.template import engines
from django.utils import translation
from markupsafe import Markup

from games import rules
from games.models import Game, Player
from games.present.rendering import announcement, table_context, table_html, table_message
from games.rules.engine import Hold
from games.store.selectors import Snapshot, last_action, seen_by, snapshot
from yachtsite.jinja2 import in_language, words

LANGUAGES = ("en", "es", "it", "ca")


def _snap(state: rules.GameState | None, version: int, status: str, last=None, **game) -> Snapshot:
    row = Game(
        token="table-words",
        ruleset=state.ruleset_key if state else "yacht",
        status=status,
        seat_count=3,
        version=version,
        current_seat=state.current if state and status == "playing" else 0,
        dice=list(state.dice) if state else [],
        held=sorted(state.held) if state else [],
        rolls_used=state.rolls if state else 0,
        seed_commitment="0" * 64,
        server_seed="1" * 64,
        **game,
    )
    players = [
        Player(game=row, order=0, name="Ana & <Co>", guest_id="a"),
        Player(game=row, order=1, name="Bea", bot="solid"),
        Player(game=row, order=2, name="Cesc", guest_id="c"),
    ]
    return snapshot(row, players, state, last)


def whole_game(ruleset: str) -> list[Snapshot]:
    """Every version of a three-seat game: the lobby, each roll, hold and
    score (with the previews they bring), and the end."""
    rng = random.Random(3)
    snaps = [_snap(None, 2, "lobby", hints=True)]
    state = rules.engine.new_game(ruleset, 3)
    version = 3
    while not state.finished:
        seat = state.current
        state = rules.apply(state, seat, rules.Roll(frozenset()), rng)
        snaps.append(_snap(state, version, "playing", last_action("roll", seat)))
        keep = frozenset(i for i, d in enumerate(state.dice) if d == max(state.dice))
        state = rules.apply(state, seat, Hold(keep), rng)
        snaps.append(_snap(state, version + 1, "playing", last_action("hold", seat)))
        box = max(state.preview(), key=lambda key: state.preview()[key])
        state = rules.apply(state, seat, rules.Score(box), rng)
        status = "finished" if state.finished else "playing"
        snaps.append(_snap(state, version + 2, status, last_action("score", seat)))
        version += 3
    return snaps


@pytest.mark.parametrize("ruleset", ["yacht", "classic13"])
def test_the_compiled_words_print_what_the_words_called_at_render_time_did(ruleset):
    runtime = engines["jinja2"].get_template("games/partials/table.html")
    compared = 0
    for language in LANGUAGES:
        with translation.override(language):
            for snap in whole_game(ruleset):
                for me in (0, 2, None):
                    context = table_context(snap, me)
                    expected = runtime.render({**context, "_": words(language)})
                    assert table_html(context) == expected, (language, snap["version"], me)
                    compared += 1
    # The lobby, every move of a whole game and its end, three viewers, four languages.
    assert compared > 4 * 3 * 3 * 12


def test_each_language_compiles_its_own_words_into_the_template():
    source = '<p title="{{ _("Dice") }}">{{ _("Game over") }}</p>'
    shown = {language: in_language(language).from_string(source).render() for language in LANGUAGES}
    for language, html in shown.items():
        said = words(language)
        assert html == f'<p title="{Markup(said("Dice"))}">{said("Game over")}</p>'
    assert shown["es"] != shown["en"] and shown["ca"] != shown["it"]
    # Folded into the text around them: no call to ``_`` is left in the code.
    code = in_language("es").compile(source, raw=True)
    assert """yield '<p title="Dados">Fin de la partida</p>'""" in code
    assert "context.call" not in code


def test_a_format_after_compiled_words_still_escapes_what_it_puts_in():
    template = in_language("en").from_string(
        '{{ _("%(name)s\'s turn")|format(name=name) }}|{{ _(word) }}|{{ x._("Dice") }}'
    )

    class Words:
        def _(self, message):
            return f"[{message}]"

    html = template.render(name="<b>Bo</b>", word="Dice", x=Words(), _=words("en"))
    # The values put into the words are escaped, the words themselves are not.
    assert html == "&lt;b&gt;Bo&lt;/b&gt;'s turn|Dice|[Dice]"


@pytest.mark.parametrize("asking", ["en", "ca"])
def test_a_pushed_table_says_what_the_page_says_in_its_language_whatever_the_caller_s(asking):
    """A push is rendered in its socket's language (the language the render
    remembers for its words) while the caller may have another one active;
    the page renders in the language of its request. Both say the same."""
    compared = 0
    for language in LANGUAGES:
        for snap in whole_game("yacht"):
            for me in (0, 2, None):
                with translation.override(asking):
                    pushed = table_message(snap, me, language)
                with translation.override(language):
                    seen = seen_by(snap, me)
                    assert pushed["html"] == table_html(table_context(seen, me))
                    assert pushed["announce"] == announcement(seen, me)
                compared += 1
    assert compared > 4 * 3 * 12
