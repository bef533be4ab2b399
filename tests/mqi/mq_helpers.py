"""Assertions shared by the MQI tests."""

import contextlib

import pytest

import tpfemu.mqi as pymqi
from tpfemu.errors import reason_name
from tpfemu.mqi import CMQC


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
