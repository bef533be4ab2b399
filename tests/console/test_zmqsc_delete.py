"""ZMQSC DEL QL with PURGE / NOPURGE.

TPF: a local queue is deleted when it is empty; "the ZMQSC DEL QL command with the purge
parameter" deletes the messages on it (TPF 4.1 Application Programming gtpa2m1j,
"Deleting Queues", tpficv1r0.zip). IBM MQSC DELETE QLOCAL: NOPURGE (the default) fails
if committed messages are on the queue, PURGE deletes them; both fail while the queue has
uncommitted messages or is open, directly or through a name that resolves to it
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085890_.html).
"""

from __future__ import annotations

import itertools

import pytest
from console_helpers import ids, ok, refused

import tpfemu.mqi as pymqi
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC
from tpfemu.system import System

_names = itertools.count(1)


def _put(system, queue_name: str, *bodies: bytes, syncpoint: bool = False, persistent=False):
    """Put ``bodies`` through the MQI; returns the connection (caller disconnects)."""
    qm = pymqi.connect(system.qmgr.name)
    queue = pymqi.Queue(qm, queue_name, CMQC.MQOO_OUTPUT)
    options = CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    for body in bodies:
        queue.put(body, pymqi.MD(Persistence=persistence), pymqi.PMO(Options=options))
    queue.close()
    return qm


def test_purge_deletes_a_queue_holding_committed_messages(mqp):
    """Without PURGE (or with NOPURGE) a queue holding messages is not deleted; with
    PURGE it is, its messages with it, and a queue defined later with the same name is
    empty."""
    ok(mqp, "ZMQSC DEF QL-A")
    _put(mqp, "A", b"one", b"two").disconnect()
    refused(mqp, "ZMQSC DEL QL-A", "2 MESSAGES")
    refused(mqp, "ZMQSC DEL QL-A NOPURGE", "2 MESSAGES")
    assert mqp.qmgr.queues["A"].core.depth == 2
    response = ok(mqp, "ZMQSC DEL QL-A PURGE")
    assert ids(response) == [m.DELETED_PURGED.id] and "2 MESSAGE(S) PURGED" in response
    assert mqp.qmgr.catalog.find_queue("A") is None and "A" not in mqp.qmgr.queues
    ok(mqp, "ZMQSC DEF QL-A")
    assert mqp.qmgr.queues["A"].core.depth == 0


def test_purge_of_an_empty_queue_and_nopurge_of_an_empty_queue(mqp):
    """PURGE of an empty queue deletes it (0 purged); NOPURGE is the plain delete."""
    ok(mqp, "ZMQSC DEF QL-A")
    ok(mqp, "ZMQSC DEF QL-B")
    assert "0 MESSAGE(S) PURGED" in ok(mqp, "ZMQSC DEL QL-A PURGE")
    assert ids(ok(mqp, "ZMQSC DEL QL-B NOPURGE")) == [m.DELETED.id]
    assert mqp.qmgr.catalog.find_queue("A") is None
    assert mqp.qmgr.catalog.find_queue("B") is None


def test_purge_refused_while_the_queue_is_open_directly_or_through_an_alias(mqp):
    """PURGE does not override "in use": an open handle (on the queue or on an alias
    resolving to it) refuses the delete, and the messages stay."""
    ok(mqp, "ZMQSC DEF QL-A")
    ok(mqp, "ZMQSC DEF QA-AL TARGQ-A")
    _put(mqp, "A", b"kept").disconnect()
    qm = pymqi.connect(mqp.qmgr.name)
    for name in ("A", "AL"):
        queue = pymqi.Queue(qm, name, CMQC.MQOO_INQUIRE)
        refused(mqp, "ZMQSC DEL QL-A PURGE", "OPEN")
        assert mqp.qmgr.queues["A"].core.depth == 1
        queue.close()
    qm.disconnect()
    assert "1 MESSAGE(S) PURGED" in ok(mqp, "ZMQSC DEL QL-A PURGE")


def test_purge_refused_while_a_unit_of_work_holds_a_message(mqp):
    """An uncommitted put (its handle closed) refuses DEL QL PURGE; nothing is removed,
    not even the committed messages. After the backout the delete goes through."""
    ok(mqp, "ZMQSC DEF QL-A")
    _put(mqp, "A", b"committed").disconnect()
    qm = _put(mqp, "A", b"pending", syncpoint=True)
    refused(mqp, "ZMQSC DEL QL-A PURGE", "UNCOMMITTED PUT")
    assert mqp.qmgr.queues["A"].core.depth == 2
    qm.backout()
    qm.disconnect()
    assert "1 MESSAGE(S) PURGED" in ok(mqp, "ZMQSC DEL QL-A PURGE")


def test_purge_keeps_the_other_rules_of_delete(mqp):
    """The profile's queues stay undeletable with PURGE, and their messages stay."""
    _put(mqp, "DEAD.LETTER.QUEUE", b"dead").disconnect()
    refused(mqp, "ZMQSC DEL QL-DEAD.LETTER.QUEUE PURGE", "DEAD.LETTER.QUEUE")
    assert mqp.qmgr.queues["DEAD.LETTER.QUEUE"].core.depth == 1
    refused(mqp, "ZMQSC DEL QL-NOPE PURGE", "NOT FOUND")


@pytest.mark.parametrize(
    ("operands", "identifier", "word"),
    [
        ("PURGE NOPURGE", m.CONFLICT.id, "CONFLICTS"),
        ("PURGE PURGE", m.DUPLICATE.id, "TWICE"),
        ("PURGE-YES", m.UNKNOWN_KEYWORD.id, "NOPURGE"),
        ("MAXDEPTH-5", m.UNKNOWN_KEYWORD.id, "PURGE"),
    ],
)
def test_bad_operands_are_refused_and_nothing_is_deleted(mqp, operands, identifier, word):
    """DEL QL takes PURGE or NOPURGE once; anything else is refused naming it."""
    ok(mqp, "ZMQSC DEF QL-A")
    _put(mqp, "A", b"x").disconnect()
    assert ids(refused(mqp, f"ZMQSC DEL QL-A {operands}", word)) == [identifier]
    assert mqp.qmgr.queues["A"].core.depth == 1


def test_purge_is_for_local_queues_only(mqp):
    """PURGE is not an operand of DEL QA (an alias holds no messages)."""
    ok(mqp, "ZMQSC DEF QA-AL TARGQ-A")
    assert ids(refused(mqp, "ZMQSC DEL QA-AL PURGE", "PURGE")) == [m.UNKNOWN_KEYWORD.id]


def test_purged_persistent_messages_do_not_come_back_after_a_restart(tmp_path):
    """The purge is logged, a Get of each persistent message (the recovery log holds
    one Get for each Put of the queue), and after a restart a queue defined again with
    the deleted queue's name holds none of the purged persistent messages."""
    from tpfemu.store.log_records import GET, PUT

    name = f"DELP{next(_names)}"
    with System.start(name=name, home=tmp_path) as system:
        ok(system, "ZMQSC DEF MQP")
        ok(system, "ZMQSC DEF QL-A")
        _put(system, "A", b"p1", b"p2", persistent=True).disconnect()
        assert "2 MESSAGE(S) PURGED" in ok(system, "ZMQSC DEL QL-A PURGE")
        kinds = [r.kind for r in system.qmgr.persistence.log.replay() if r.queue == "A"]
        assert (kinds.count(PUT), kinds.count(GET)) == (2, 2)
        ok(system, "ZMQSC DEF QL-A")
    with System.start(name=name, home=tmp_path) as system:
        assert system.qmgr.queues["A"].core.depth == 0


def test_a_refused_delete_names_the_reason_once(mqp):
    """The refusal says why in its own words, without repeating the command."""
    ok(mqp, "ZMQSC DEF QL-A")
    qm = pymqi.connect(mqp.qmgr.name)
    queue = pymqi.Queue(qm, "A", CMQC.MQOO_OUTPUT)
    response = refused(mqp, "ZMQSC DEL QL-A", "OPEN BY 1 HANDLE")
    assert response.startswith(f"{m.REFUSED.id} B DELETE QL A REFUSED: open by 1 handle")
    assert response.upper().count("DELETE QL") == 1
    queue.close()
    qm.disconnect()
