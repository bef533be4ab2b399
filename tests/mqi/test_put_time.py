"""The put time of a message: the one MQPUT writes into the MD is the one stored with it
(IBM: PutDate and PutTime of the MQMD, output fields of MQPUT)."""

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqput


def test_full_path_put_time_is_the_time_stored(qm, local_queue, monkeypatch):
    """A put by the full path writes back the time the message is stored with, even when
    the clock crosses a hundredth of a second during the put: the time read at the start
    of the put (here 2 s before the real clock) is the one stored."""
    real = mqput.now_us
    monkeypatch.setattr(mqput, "now_us", lambda: real() - 2_000_000)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    put_md = pymqi.MD()
    q.put(b"when", put_md, pymqi.PMO())  # a PMO: the full path
    got = pymqi.MD()
    q.get(None, got)
    q.close()
    assert (got.PutDate, got.PutTime) == (put_md.PutDate, put_md.PutTime)
