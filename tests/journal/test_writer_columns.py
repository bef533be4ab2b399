"""The journal writer builds each batch column-wise (C-level passes, Arrow compute): every
derived column must equal what the per-event rules of docs/journal.md give, and the event
bus's raw subscribers (what the journal uses) must keep the bus's contract."""

from __future__ import annotations

import json

import pytest
import xxhash

from tpfemu import journal
from tpfemu._lowlevel import NEVER
from tpfemu.journal.schema import payload_hash
from tpfemu.journal.writer import Journal
from tpfemu.qmgr.events import Event, EventBus
from tpfemu.qmgr.manager import QueueManager

T0 = 1_700_000_000_000_000


def _expected_expiry(t: int, fields: dict) -> int | None:
    """The per-event rule: the expiry field, else what is left until expires_us."""
    expiry = fields.get("expiry")
    if expiry is None and fields.get("expires_us") is not None:
        deadline = fields["expires_us"]
        expiry = -1 if deadline == NEVER else max(0, -((t - deadline) // 100_000))
    return expiry


def _expected_detail(fields: dict) -> str | None:
    columns = {"msg_id", "correl_id", "group_id", "priority", "persistent", "expiry",
               "expires_us", "length", "uow", "data", "msg_type", "format", "reply_to_q",
               "reply_to_qmgr"}
    d = {k: v for k, v in fields.items() if k not in columns and v is not None and v != ""}
    if not d:
        return None
    return json.dumps({k: v.hex() if isinstance(v, bytes) else v for k, v in d.items()},
                      sort_keys=True)


def _expected_text(fields: dict, key: str) -> str | None:
    """The rule for the MQMD texts: trailing blanks and NULs dropped, blank is null."""
    value = fields.get(key)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return (value or "").rstrip(" \0") or None


EVENTS = [
    # expiry from the deadline: rounded up, 0 once passed, -1 for NEVER
    ("get", "Q", T0, dict(msg_id=b"A" * 24, expires_us=T0 + 250_000, data=b"a")),
    ("get", "Q", T0, dict(msg_id=b"B" * 24, expires_us=T0 + 200_000, data=b"b")),
    ("get", "Q", T0, dict(msg_id=b"C" * 24, expires_us=T0 + 1, data=b"c")),
    ("get", "Q", T0, dict(msg_id=b"D" * 24, expires_us=T0, data=b"d")),
    ("expire", "Q", T0, dict(msg_id=b"E" * 24, expires_us=T0 - 350_000, data=b"e")),
    ("get", "Q", T0, dict(msg_id=b"F" * 24, expires_us=NEVER, data=b"f")),
    # an expiry field wins over a deadline; None counts as absent
    ("put", "Q", T0, dict(msg_id=b"G" * 24, expiry=77, expires_us=T0 + 10**9, data=b"g")),
    ("put", "Q", T0, dict(msg_id=b"H" * 24, expiry=None, expires_us=T0 + 100_001)),
    ("put", "Q", T0, dict(msg_id=b"I" * 24, expiry=-1)),
    # length from the data when not given; no data, no length
    ("put", "Q", T0, dict(msg_id=b"J" * 24, data=b"12345")),
    ("put", "Q", T0, dict(msg_id=b"K" * 24, data=b"")),
    ("commit", "Q", T0, dict(uow=9, count=3)),
    # detail: None and "" left out, bytes as hex, non-column fields only
    ("report", "R", T0, dict(msg_id=b"L" * 24, feedback=258, remote="", extra=None)),
    ("put", "Q", T0, dict(msg_id=b"M" * 24, remote="QM2", blob=b"\x01\xff", data=b"m")),
    ("put", "Q", T0, dict(msg_id=b"N" * 24, remote=None, internal=True, data=b"n")),
    ("define", "APP.Q", T0, dict(type="QL")),
    # MQGI_NONE is null, any other GroupId kept
    ("put", "Q", T0, dict(group_id=bytes(24))),
    ("put", "Q", T0, dict(group_id=b"\x00" * 23 + b"\x01")),
    # MsgType, Format, ReplyToQ, ReplyToQMgr: columns; blank-padded texts trimmed, blank null
    ("put", "Q", T0, dict(msg_type=1, format=b"MQSTR   ", reply_to_q=b"R.Q".ljust(48),
                          reply_to_qmgr=b"QM2".ljust(48, b"\0"))),
    ("get", "Q", T0, dict(msg_type=8, format=b" " * 8, reply_to_q=" " * 48,
                          reply_to_qmgr="QM3")),
]


@pytest.mark.parametrize("level", ["events", "payload"])
def test_columns_follow_the_per_event_rules(tmp_path, level):
    qmgr = QueueManager("COLQM").start()
    jr = Journal(qmgr, tmp_path / "j", level=level, interval=600).start()
    for kind, queue, t, fields in EVENTS:
        qmgr.events.emit(kind, queue, t, **fields)
    jr.stop()
    qmgr.stop()
    rows = journal.read_table(tmp_path / "j").to_pylist()
    assert len(rows) == len(EVENTS)
    for seq, (row, (kind, queue, t, fields)) in enumerate(zip(rows, EVENTS, strict=True)):
        data = fields.get("data")
        group = fields.get("group_id")
        length = fields.get("length")
        assert row == {
            "event_time_us": t, "seq": seq, "cpu": "B", "qmgr": "COLQM", "queue": queue,
            "event": kind, "msg_id": fields.get("msg_id"),
            "correl_id": fields.get("correl_id"),
            "group_id": None if group == bytes(24) else group,
            "priority": fields.get("priority"), "persistent": fields.get("persistent"),
            "expiry": _expected_expiry(t, fields),
            "length": len(data) if length is None and data is not None else length,
            "payload_hash": None if data is None else payload_hash(data),
            "payload": data if level == "payload" else None,
            "uow": fields.get("uow"), "ecb": None, "program": None,
            "detail": _expected_detail(fields),
            "msg_type": fields.get("msg_type"), "format": _expected_text(fields, "format"),
            "reply_to_q": _expected_text(fields, "reply_to_q"),
            "reply_to_qmgr": _expected_text(fields, "reply_to_qmgr"),
        }, (seq, kind, fields)
    assert [r["expiry"] for r in rows[:9]] == [3, 2, 1, 0, 0, -1, 77, 2, -1]


def test_expiry_out_of_int64_range_falls_back_to_exact_arithmetic(tmp_path):
    """A deadline whose distance from the event's time does not fit 64 bits (Arrow's
    checked arithmetic refuses it) still gets the per-event rule's value."""
    qmgr = QueueManager("OVFQM").start()
    jr = Journal(qmgr, tmp_path / "j", interval=600).start()
    qmgr.events.emit("get", "Q", 2**62, expires_us=-(2**63) + 5, msg_id=b"X" * 24)
    qmgr.events.emit("get", "Q", T0, expires_us=T0 + 100_000, msg_id=b"Y" * 24)
    jr.stop()
    qmgr.stop()
    assert [r["expiry"] for r in journal.read_table(tmp_path / "j").to_pylist()] == [0, 1]


def test_payload_hash_is_xxh64_with_seed_42():
    for data in (b"", b"x", b"y" * 1024, bytes(range(256)) * 40):
        assert payload_hash(data) == xxhash.xxh64(data, seed=42).digest()


def test_a_get_reuses_the_hash_of_its_put_only_when_the_data_is_equal(tmp_path):
    """The writer reuses the hash of a put for the get of the same MsgId when the data
    compare equal; different data under the same MsgId is hashed afresh."""
    qmgr = QueueManager("HSHQM").start()
    jr = Journal(qmgr, tmp_path / "j", interval=600).start()
    mid = b"S" * 24
    qmgr.events.emit("put", "Q", T0, msg_id=mid, data=b"one")
    qmgr.events.emit("get", "Q", T0, msg_id=mid, data=b"one")
    qmgr.events.emit("get", "Q", T0, msg_id=mid, data=b"two")
    assert jr.flush()
    qmgr.events.emit("get", "Q", T0, msg_id=mid, data=b"one")  # the next write cycle
    jr.stop()
    qmgr.stop()
    hashes = [r["payload_hash"] for r in journal.read_table(tmp_path / "j").to_pylist()]
    assert hashes == [payload_hash(b"one"), payload_hash(b"one"), payload_hash(b"two"),
                      payload_hash(b"one")]


# -- the event bus's raw subscribers -------------------------------------------------------


def test_raw_subscriber_gets_the_parts_and_ordinary_ones_an_event():
    bus = EventBus("QMRAW")
    assert not bus.active
    raw: list = []
    cooked: list = []

    def raw_fn(kind, queue, time_us, fields):
        raw.append((kind, queue, time_us, fields))

    bus.subscribe_raw(raw_fn)
    assert bus.active
    bus.emit("put", "Q", 5, msg_id=b"m", length=1)
    bus.subscribe(cooked.append)
    bus.deliver("get", "Q", 6, {"length": 2})
    assert raw == [("put", "Q", 5, {"msg_id": b"m", "length": 1}),
                   ("get", "Q", 6, {"length": 2})]
    assert cooked == [Event("get", "QMRAW", "Q", 6, {"length": 2})]
    bus.unsubscribe(raw_fn)
    assert bus.active  # the ordinary one still listens
    bus.unsubscribe(cooked.append)
    assert not bus.active
    bus.emit("put", "Q", 7)  # nobody listens: nothing happens
    assert len(raw) == 2 and len(cooked) == 1


def test_raising_raw_subscriber_is_removed_and_reported():
    console: list[str] = []
    bus = EventBus("QMRAW", console=console.append)
    seen: list = []

    def broken(kind, queue, time_us, fields):
        raise RuntimeError("raw bug")

    bus.subscribe_raw(broken)
    bus.subscribe(seen.append)
    bus.emit("put", "Q", 1)
    bus.emit("put", "Q", 2)
    assert len(console) == 1 and "raw bug" in console[0] and "removed" in console[0]
    assert [e.time_us for e in seen] == [1, 2]  # the others still get every event
    bus.unsubscribe(seen.append)
    assert not bus.active


def test_queue_manager_emit_passes_its_fields_to_raw_subscribers():
    qmgr = QueueManager("QMEMIT")
    got: list = []
    qmgr.events.subscribe_raw(lambda *parts: got.append(parts))
    qmgr._emit("alter", "APP.Q", type="QL")
    ((kind, queue, time_us, fields),) = got
    assert (kind, queue, fields) == ("alter", "APP.Q", {"type": "QL"})
    assert abs(time_us - T0) < 10**15 and isinstance(time_us, int)
