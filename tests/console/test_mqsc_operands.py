"""MQSC operands the ZMQSC console does not take (docs/deviations.md, "The ZMQSC console").

IBM MQSC has DEFINE ... LIKE(name), DISPLAY with ALL or a list of requested attributes,
and ALTER QALIAS ... FORCE (without FORCE, changing TARGET of an alias an application has
open fails: https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085330_.html).
TPF's ZMQSC documentation shows none of them (tpf-facts §2.2). These tests pin what the
console does instead.
"""

from __future__ import annotations

import pytest
from console_helpers import ids, ok, refused

import tpfemu.mqi as pymqi
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC


def test_define_like_is_refused(mqp):
    """LIKE is not a keyword: the new object is not defined."""
    ok(mqp, "ZMQSC DEF QL-A MAXDEPTH-7")
    assert ids(refused(mqp, "ZMQSC DEF QL-B LIKE-A", "LIKE")) == [m.UNKNOWN_KEYWORD.id]
    assert mqp.qmgr.catalog.find_queue("B") is None


@pytest.mark.parametrize("operand", ["ALL", "CURDEPTH", "MAXDEPTH"])
def test_display_shows_every_attribute_and_takes_no_list(mqp, operand):
    """DISPLAY always shows every attribute; ALL or an attribute list is refused."""
    ok(mqp, "ZMQSC DEF QL-A")
    assert ids(refused(mqp, f"ZMQSC DISP QL-A {operand}", operand)) == [m.UNKNOWN_KEYWORD.id]
    shown = ok(mqp, "ZMQSC DISP QL-A")
    assert "CURDEPTH" in shown and "MAXDEPTH" in shown and "DESCR" in shown


def test_alter_of_an_open_alias_target_needs_no_force(mqp):
    """ALT QA TARGQ is made while the alias is open; the open handle keeps the queue it
    resolved at MQOPEN, new opens resolve to the new target."""
    for command in ("ZMQSC DEF QL-T1", "ZMQSC DEF QL-T2", "ZMQSC DEF QA-AL TARGQ-T1"):
        ok(mqp, command)
    qm = pymqi.connect(mqp.qmgr.name)
    old = pymqi.Queue(qm, "AL", CMQC.MQOO_OUTPUT)
    assert ids(ok(mqp, "ZMQSC ALT QA-AL TARGQ-T2")) == [m.ALTERED.id]
    old.put(b"old handle")
    new = pymqi.Queue(qm, "AL", CMQC.MQOO_OUTPUT)
    new.put(b"new handle")
    old.close()
    new.close()
    qm.disconnect()
    assert mqp.qmgr.queues["T1"].core.depth == 1
    assert mqp.qmgr.queues["T2"].core.depth == 1
