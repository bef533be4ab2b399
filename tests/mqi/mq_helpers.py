"""Assertions shared by the MQI tests."""

import contextlib

import pytest

import tpfemu.mqi as pymqi
from tpfemu.errors import reason_name
from tpfemu.mqi import CMQC

OUT = CMQC.MQOO_OUTPUT  #: open options the MQI tests use
IN = CMQC.MQOO_INPUT_AS_Q_DEF
IO = OUT | IN
ID_C = b"ID-C".ljust(24, b".")  #: a CorrelId (or MsgId) the tests recognise


@contextlib.contextmanager
def raises_mq(reason: int, comp: int = CMQC.MQCC_FAILED):
    """Expect an MQMIError with exactly this completion code and reason."""
    with pytest.raises(pymqi.MQMIError) as info:
        yield info
    got = (info.value.comp, info.value.reason)
    assert got == (comp, reason), (
        f"expected comp {comp} {reason_name(reason)} ({reason}), "
        f"got comp {got[0]} {reason_name(got[1])} ({got[1]}): {info.value}"
    )


def depth(qm, name: str) -> int:
    """CURDEPTH of local queue ``name`` (MQINQ on a fresh handle)."""
    q = pymqi.Queue(qm, name, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


def open_q(qm, name: str, options: int = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF):
    """``name`` opened on ``qm`` (for output and input by default)."""
    return pymqi.Queue(qm, name, options)


def get_msg(q, md=None, gmo=None, max_length=None):
    """MQGET on ``q`` with a fresh MD and GMO unless given."""
    return q.get(max_length, md if md is not None else pymqi.MD(),
                 gmo if gmo is not None else pymqi.GMO())


def drain(q) -> list:
    """Every message left on ``q``, in delivery order, each with its MD."""
    out = []
    while True:
        md = pymqi.MD()
        try:
            data = q.get(None, md, pymqi.GMO())
        except pymqi.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out
        out.append((data, md))


def check_reason(info, reason: int, comp: int = CMQC.MQCC_FAILED) -> None:
    """The MQMIError caught by pytest.raises has this completion and reason code."""
    assert (info.value.comp, info.value.reason) == (comp, reason), str(info.value)
