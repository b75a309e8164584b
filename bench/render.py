"""What one viewer's table costs to render, against a trivial template.

    .venv/bin/python -m bench.render

Every accepted action is rendered once per socket watching the game, so this
is the part of a push's server cost that grows with the audience. The table is
a mid-game Classic 13 game of two players (the most rows, both bonus lines)
with a roll on the table, shown to each player and to a spectator, in English
and Spanish. The floor is a one-variable template through the same engine
(Jinja, as the table's partial is) and ``translation.override`` in the same
run, so the ratio says what the table itself costs, whatever the machine. No
database: the game is built from unsaved rows and the pure rules engine.

Then the partial alone, from the same contexts, two ways: as the site
renders it (its words compiled in, ``yachtsite.jinja2.CompiledWords``) and
with its words looked up at render time (plain Jinja's ``_()`` calls): what
``yachtsite/jinja2.py``'s change to stock Jinja buys a render.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Only for annotations: Django is set up inside main().
    from games.store.selectors import Snapshot


def mid_game_snapshot() -> Snapshot:
    from games import rules
    from games.models import Game, Player
    from games.store.selectors import last_action, snapshot

    rng = random.Random(7)
    state = rules.engine.new_game("classic13", 2)
    # Six full rounds each, then a first roll: previews on the open boxes.
    for _ in range(12):
        state = rules.apply(state, state.current, rules.Roll(frozenset()), rng)
        state = rules.apply(state, state.current, rules.Score(state.allowed_boxes()[0]), rng)
    state = rules.apply(state, state.current, rules.Roll(frozenset()), rng)
    game = Game(
        token="bench-render",
        ruleset="classic13",
        status=Game.Status.PLAYING,
        seat_count=2,
        version=40,
        current_seat=state.current,
        dice=list(state.dice),
        held=sorted(state.held),
        rolls_used=state.rolls,
        seed_commitment="0" * 64,
    )
    players = [
        Player(game=game, order=0, name="Ada", guest_id="a"),
        Player(game=game, order=1, name="Bot", bot="solid"),
    ]
    last = last_action("roll", state.current)
    last["dice"] = list(state.dice)
    return snapshot(game, players, state, last)


def per_call_ms(work: Callable[[], Any], seconds: float) -> float:
    work()  # warm: template compilation, translation catalogs
    calls = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        work()
        calls += 1
    return elapsed / calls * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="turns of the partial's two ways")
    args = parser.parse_args(argv)

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
    # Without DEBUG the settings refuse a missing secret key: any will do here.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    django.setup()
    from django.template import engines
    from django.utils import translation
    from jinja2 import Environment

    from games.present.rendering import table_context, table_message
    from games.store.selectors import seen_by
    from yachtsite.jinja2 import in_language, words

    snap = mid_game_snapshot()
    viewers = [(me, lang) for me in (0, 1, None) for lang in ("en", "es")]

    def table() -> None:
        for me, lang in viewers:
            table_message(snap, me, lang)

    trivial = engines["jinja2"].from_string("<p>{{ version }}</p>")

    def floor() -> None:
        for _me, lang in viewers:
            with translation.override(lang):
                trivial.render({"version": snap["version"]})

    table_ms = per_call_ms(table, args.seconds) / len(viewers)
    floor_ms = per_call_ms(floor, args.seconds) / len(viewers)
    print(f"table_message: {table_ms:.3f} ms per viewer (html, announcement, state)")
    print(f"trivial template: {floor_ms:.3f} ms per render")
    print(f"ratio: {table_ms / floor_ms:.0f}x the trivial template")

    contexts = []
    for me, lang in viewers:
        with translation.override(lang):
            contexts.append({**table_context(seen_by(snap, me), me), "_": words(lang)})
    name = "games/partials/table.html"
    base: Environment = engines["jinja2"].env  # type: ignore[attr-defined]
    ways = {
        "the site's (words compiled in)": lambda c: in_language(c["language"]).get_template(name),
        "words looked up per render": lambda c: base.get_template(name),
    }
    timings: dict[str, list[float]] = {way: [] for way in ways}
    # In turns, each way several times, so a machine busier for a while
    # weighs on every way alike; the median of each is reported.
    for _ in range(args.rounds):
        for way, template_of in ways.items():

            def partial(template_of: Callable[[dict[str, Any]], Any] = template_of) -> None:
                for context in contexts:
                    with translation.override(context["language"]):
                        template_of(context).render(context)

            timings[way].append(per_call_ms(partial, args.seconds) / len(contexts))
    print(
        f"\nthe table partial alone, median of {args.rounds} turns: "
        "ms per render, x the trivial template"
    )
    for way, found in timings.items():
        ms = statistics.median(found)
        print(f"  {way:32} {ms:.3f} ms  {ms / floor_ms:.1f}x")


if __name__ == "__main__":
    main()
