"""Round trip of arbitrary events through a journal, with Hypothesis."""

from __future__ import annotations

import json
import tempfile

import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpfemu import journal
from tpfemu.journal.schema import payload_hash
from tpfemu.journal.writer import Journal
from tpfemu.qmgr.manager import QueueManager

ids = st.binary(min_size=24, max_size=24)
message = st.fixed_dictionaries(
    {
        "msg_id": ids,
        "correl_id": ids,
        "group_id": ids,
        "priority": st.integers(0, 9),
        "persistent": st.booleans(),
        "expiry": st.one_of(st.just(-1), st.integers(1, 2**31 - 1)),
        "uow": st.integers(0, 2**63 - 1),
        "data": st.binary(max_size=300),
    },
    optional={"count": st.integers(0, 10**6), "reason": st.text(max_size=20),
              "msg_type": st.integers(1, 2**31 - 1),
              "format": st.sampled_from([b"MQSTR   ", b"MQHRF2  ", b" " * 8]),
              "reply_to_q": st.text("ABCQ.1 ", max_size=48)},
)
event = st.tuples(
    st.sampled_from(["put", "get", "browse", "expire", "commit", "trigger"]),
    st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), max_size=48),
    st.integers(0, 2**62),
    message,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(event, max_size=40))
def test_any_events_round_trip(events):
    """Whatever events are emitted come back from the segment and from Parquet with every
    column equal to what was emitted (GroupId of 24 NULs as null, extra fields as JSON,
    blank MQMD texts as null)."""
    qmgr = QueueManager("HYPQM").start()
    with tempfile.TemporaryDirectory() as tmp:
        jr = Journal(qmgr, f"{tmp}/j", level="payload").start()
        for kind, queue, t, fields in events:
            qmgr.events.emit(kind, queue, t, length=len(fields["data"]), **fields)
        jr.stop()
        qmgr.stop()
        rows = journal.read_table(f"{tmp}/j").to_pylist()
        (parquet,) = journal.to_parquet([f"{tmp}/j"], f"{tmp}/out")
        assert pq.read_table(parquet).to_pylist() == rows
    assert len(rows) == len(events)
    for seq, (row, (kind, queue, t, fields)) in enumerate(zip(rows, events, strict=True)):
        extra = {k: v for k, v in fields.items()
                 if k in ("count", "reason") and v not in (None, "")}
        assert row == {
            "event_time_us": t, "seq": seq, "cpu": "B", "qmgr": "HYPQM", "queue": queue,
            "event": kind, "msg_id": fields["msg_id"], "correl_id": fields["correl_id"],
            "group_id": None if fields["group_id"] == bytes(24) else fields["group_id"],
            "priority": fields["priority"], "persistent": fields["persistent"],
            "expiry": fields["expiry"], "length": len(fields["data"]),
            "payload_hash": payload_hash(fields["data"]), "payload": fields["data"],
            "uow": fields["uow"], "ecb": None, "program": None,
            "detail": json.dumps(extra, sort_keys=True) if extra else None,
            "msg_type": fields.get("msg_type"),
            "format": fields.get("format", b"").decode().rstrip() or None,
            "reply_to_q": fields.get("reply_to_q", "").rstrip() or None,
            "reply_to_qmgr": None,
        }
