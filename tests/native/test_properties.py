"""Hypothesis: any interleaving of puts, gets, matched gets, browses, commits and backouts
gives priority-then-FIFO order and loses or duplicates nothing.

The core is checked against a small reference model kept in plain Python lists.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tpfemu import errors
from tpfemu._lowlevel import PRIORITIES, CoreQueue

CORRELS = [None, b"C1".ljust(24, b"."), b"C2".ljust(24, b".")]
UOWS = st.sampled_from([0, 1, 2])


@dataclass
class Msg:
    seq: int
    priority: int
    data: bytes
    correl: bytes | None
    state: str = "committed"  # committed | put:<uow> | got:<uow>
    backouts: int = 0

    @property
    def key(self) -> tuple[int, int]:
        return (-self.priority, self.seq)  # delivery order: priority, then FIFO


class QueueModel(RuleBasedStateMachine):
    """The core queue and a list-based model, driven by the same random operations."""

    def __init__(self) -> None:
        super().__init__()
        self.q = CoreQueue("PROP")
        self.cursor = self.q.cursor()
        self.msgs: list[Msg] = []
        self.cursor_key: tuple[int, int] | None = None
        self.n = 0

    def teardown(self) -> None:
        self.q.close()

    # -- model helpers --------------------------------------------------------------

    def eligible(self, correl=None, after=None) -> list[Msg]:
        out = [m for m in self.msgs if m.state == "committed"]
        if correl is not None:
            out = [m for m in out if m.correl == correl]
        if after is not None:
            out = [m for m in out if m.key > after]
        return sorted(out, key=lambda m: m.key)

    def expect_get(self, candidates: list[Msg], got, uow: int) -> None:
        if not candidates:
            assert got is None, f"core returned {got!r} where the model has nothing"
            return
        want = candidates[0]
        assert got is not None, f"core had nothing where the model expects {want.data!r}"
        assert got.data == want.data
        assert got.descriptor.backout_count == want.backouts
        if uow:
            want.state = f"got:{uow}"
        else:
            self.msgs.remove(want)

    # -- rules ----------------------------------------------------------------------

    # Few distinct priorities, so equal priorities (where FIFO order matters) are common.
    @rule(priority=st.sampled_from([0, 4, PRIORITIES - 1]), correl=st.sampled_from(CORRELS),
          uow=UOWS)
    def put(self, priority, correl, uow):
        self.n += 1
        data = b"m%d" % self.n
        _, seq = self.q.put_message(data, priority=priority, correl_id=correl, uow=uow)
        self.msgs.append(Msg(seq, priority, data, correl, f"put:{uow}" if uow else "committed"))

    def _core_get(self, **kw):
        try:
            return self.q.get_message(**kw)
        except errors.NoMessageAvailable:
            return None

    @rule(uow=UOWS)
    def get(self, uow):
        self.expect_get(self.eligible(), self._core_get(uow=uow), uow)

    @rule(correl=st.sampled_from(CORRELS[1:]), uow=UOWS)
    def get_matched(self, correl, uow):
        self.expect_get(self.eligible(correl), self._core_get(correl_id=correl, uow=uow), uow)

    @rule()
    def browse_first(self):
        try:
            got = self.cursor.first()
        except errors.NoMessageAvailable:
            got = None
        want = self.eligible()
        if want:
            assert got is not None and got.data == want[0].data
            self.cursor_key = want[0].key
        else:
            assert got is None

    @rule()
    def browse_next(self):
        try:
            got = self.cursor.next()
        except errors.NoMessageAvailable:
            got = None
        want = self.eligible(after=self.cursor_key)
        if want:
            assert got is not None and got.data == want[0].data
            self.cursor_key = want[0].key
        else:
            assert got is None

    @rule(uow=st.sampled_from([1, 2]))
    def commit(self, uow):
        n = self.q.commit(uow)
        touched = [m for m in self.msgs if m.state in (f"put:{uow}", f"got:{uow}")]
        assert n == len(touched)
        for m in touched:
            if m.state.startswith("got"):
                self.msgs.remove(m)
            else:
                m.state = "committed"

    @rule(uow=st.sampled_from([1, 2]))
    def backout(self, uow):
        n = self.q.backout(uow)
        touched = [m for m in self.msgs if m.state in (f"put:{uow}", f"got:{uow}")]
        assert n == len(touched)
        for m in touched:
            if m.state.startswith("put"):
                self.msgs.remove(m)
            else:
                m.state = "committed"
                m.backouts += 1

    @precondition(lambda self: len(self.msgs) > 0)
    @rule()
    def drain_all_committed(self):
        """Getting everything returns exactly the model's committed messages, in order."""
        want = [m.data for m in self.eligible()]
        got = []
        while (m := self._core_get()) is not None:
            got.append(m.data)
        assert got == want
        self.msgs = [m for m in self.msgs if m.state != "committed"]

    # -- invariants -----------------------------------------------------------------

    @invariant()
    def depth_matches(self):
        assert self.q.depth == len(self.msgs)
        for p in (0, 5, 9):
            assert self.q.depth_at_least(p) == sum(m.priority >= p for m in self.msgs)
        committed_only = sum(1 for m in self.msgs if not m.state.startswith("put"))
        assert self.q.depth_at_least(0, committed_only=True) == committed_only


TestQueueModel = QueueModel.TestCase
TestQueueModel.settings = settings(
    max_examples=150, stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("fifo", [False, True])
def test_batches_round_trip_in_delivery_order(fifo):
    """put_many then get_many returns every message once, in delivery order."""
    from hypothesis import given

    @given(st.lists(st.tuples(st.integers(0, 9), st.binary(max_size=300)), max_size=80))
    @settings(max_examples=60, deadline=None)
    def check(items):
        with CoreQueue("BATCH", fifo=fifo) as q:
            for prio, data in items:
                q.put_many([data], priority=prio)
            got = []
            while True:
                try:
                    got += q.get_many(7).messages()
                except errors.NoMessageAvailable:
                    break
        order = sorted(range(len(items)), key=lambda i: (0 if fifo else -items[i][0], i))
        assert got == [items[i][1] for i in order]

    check()
