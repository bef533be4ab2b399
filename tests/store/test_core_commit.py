"""CoreQueue.commit: the core's commit of a unit of work made with the GIL held
(FastQueue.commit calls tpf_mq_commit, which a cffi call would make with the GIL let go);
every MQCMIT goes through it."""

from __future__ import annotations

import pytest

from tpfemu import errors
from tpfemu._lowlevel import CoreQueue


def test_core_commit_makes_only_its_units_puts_visible_and_counts_them():
    """Committing unit of work 7 makes its two puts gettable and returns 2; the put of
    unit of work 8 stays invisible until CoreQueue.commit commits it."""
    with CoreQueue("CC.Q") as q:
        q.put(b"a", 0, 7)
        q.put(b"b", 0, 7)
        q.put(b"c", 0, 8)
        assert q.depth == 3
        with pytest.raises(errors.NoMessageAvailable):
            q.get()
        assert q.commit(7) == 2
        assert [q.get(), q.get()] == [b"a", b"b"]
        with pytest.raises(errors.NoMessageAvailable):
            q.get()
        assert q.commit(8) == 1
        assert q.get() == b"c"


def test_core_commit_of_a_unit_with_nothing_here_returns_zero():
    """A unit of work that did nothing on the queue commits nothing (0), as the core says."""
    with CoreQueue("CC.Q") as q:
        q.put(b"a", 0, 5)
        assert q.commit(6) == 0
        assert q.stats()["uncommitted_puts"] == 1


def test_core_commit_refuses_bad_arguments_and_a_closed_queue():
    """Unit of work 0 is a ValueError (from CoreQueue and from the shim alike), a missing
    one a TypeError, and a closed queue its closed error; nothing is committed by any of
    them."""
    q = CoreQueue("CC.Q")
    q.put(b"a", 0, 3)
    with pytest.raises(ValueError, match="positive"):
        q.commit(0)
    with pytest.raises(ValueError, match="positive"):
        q._fast.commit(0)
    with pytest.raises(TypeError):
        q.commit()  # type: ignore[call-arg]
    assert q.stats()["uncommitted_puts"] == 1
    q.close()
    with pytest.raises(errors.TpfEmuError, match="closed"):
        q.commit(3)
