"""The server's ASGI module hands what it loaded at startup to the
collector's permanent generation, so that full collections under load walk
only what the games made since, and makes the collector's young passes
fewer (play leaves no cycles behind, closed connections do: see the
module's comment)."""

import gc
import importlib


def test_loading_the_asgi_application_freezes_what_it_loaded():
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    import yachtsite.asgi

    importlib.reload(yachtsite.asgi)
    assert gc.get_freeze_count() > 10_000
    gc.unfreeze()


def test_the_server_runs_fewer_young_passes_than_the_stock_ones_and_a_full_one_every_few_minutes():
    stock = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        import yachtsite.asgi

        importlib.reload(yachtsite.asgi)
        young, middle, full = gc.get_threshold()
        # A young pass per 5,000 new objects, not 700; a full one still
        # every 50th young pass at least: closed connections leave cycles
        # that only a full pass collects, and every 500th let daphne's RSS
        # grow 50-60 MB in a 30-minute soak.
        assert young >= 5_000
        assert middle * full <= 50
    finally:
        gc.unfreeze()
        gc.set_threshold(*stock)
