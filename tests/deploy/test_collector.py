"""Full collections run on a clock, from a thread of their own, and no
longer whenever enough objects have outlived the young generations."""

import gc
import threading
import time

import pytest

from yachtsite.collector import ClockedCollector


def full_passes_by_thread(work):
    """Run ``work`` and answer the threads that started full collections meanwhile."""
    seen: list[str] = []

    def note(phase, info):
        if phase == "start" and info["generation"] == 2:
            seen.append(threading.current_thread().name)

    gc.callbacks.append(note)
    try:
        work()
    finally:
        gc.callbacks.remove(note)
    return seen


def keep_many_objects():
    # Long-lived containers, as sockets and snapshots are: each young pass
    # promotes them, which is what sets off CPython's counted full passes.
    kept = [[n] for n in range(1_500_000)]
    return len(kept)


@pytest.fixture(autouse=True)
def cpython_thresholds():
    """CPython's own thresholds: another test may have loaded the server's
    ASGI module, which put the process's full passes on its clock."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_the_allocator_alone_sets_off_full_collections():
    # The premise: keeping objects alive starts full passes.
    assert full_passes_by_thread(keep_many_objects)


def test_with_the_clock_only_its_thread_runs_full_collections():
    collector = ClockedCollector(every=0.05).start()
    try:
        assert gc.get_threshold()[:2] == (700, 10)

        def work():
            keep_many_objects()
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not any(
                name == "full-gc" for name in full_passes_by_thread(lambda: time.sleep(0.1))
            ):
                pass

        threads = full_passes_by_thread(work)
    finally:
        collector.stop()
    assert "full-gc" in threads
    assert set(threads) == {"full-gc"}
    assert gc.get_threshold() == (700, 10, 10)
