"""The resize gate shared by the recovery log's and the TPFCS store's LMDB environments."""

import threading
import time

from tpfemu.store.gate import Gate


def test_shared_holds_are_reentrant_even_while_a_resize_waits() -> None:
    gate = Gate()
    gate.acquire_shared()
    started = threading.Event()
    resized = threading.Event()

    def resize() -> None:
        started.set()
        with gate.exclusive() as alone:
            assert alone
            resized.set()

    t = threading.Thread(target=resize)
    t.start()
    started.wait()
    time.sleep(0.05)  # the resize is now waiting for our shared hold
    with gate.shared():  # a nested read in the same thread must not deadlock
        assert gate.held()
    assert not resized.is_set()
    gate.release_shared()
    t.join(5)
    assert resized.is_set()
    assert not gate.held()


def test_exclusive_gives_up_after_its_timeout_and_lets_holders_go_on() -> None:
    gate = Gate()
    holding = threading.Event()
    done = threading.Event()

    def reader() -> None:
        with gate.shared():
            holding.set()
            done.wait(5)

    t = threading.Thread(target=reader)
    t.start()
    holding.wait()
    with gate.exclusive(0.05) as alone:
        assert alone is False
    with gate.shared():  # a failed exclusive request no longer blocks new readers
        pass
    done.set()
    t.join(5)
    with gate.exclusive(0.05) as alone:
        assert alone is True
