"""The server's ASGI module hands what it loaded at startup to the
collector's permanent generation, so that full collections under load walk
only what the games made since."""

import gc
import importlib


def test_loading_the_asgi_application_freezes_what_it_loaded():
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    import yachtsite.asgi

    importlib.reload(yachtsite.asgi)
    assert gc.get_freeze_count() > 10_000
    gc.unfreeze()
