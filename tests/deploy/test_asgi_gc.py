"""The server's ASGI module hands what it loaded at startup to the
collector's permanent generation, so that full collections under load walk
only what the games made since, and makes the collector's passes fewer
(play leaves no cycles behind: see the module's comment)."""

import gc
import importlib


def test_loading_the_asgi_application_freezes_what_it_loaded():
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    import yachtsite.asgi

    importlib.reload(yachtsite.asgi)
    assert gc.get_freeze_count() > 10_000
    gc.unfreeze()


def test_the_server_process_runs_fewer_collector_passes_than_the_stock_ones():
    stock = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        import yachtsite.asgi

        importlib.reload(yachtsite.asgi)
        young, middle, full = gc.get_threshold()
        # A young pass per 5,000 new objects, not 700; a full one at most
        # every 500th young pass, not every 100th.
        assert young >= 5_000
        assert young * middle * full >= 500 * 5_000
    finally:
        gc.unfreeze()
        gc.set_threshold(*stock)
