"""The MQDLH before a dead-lettered message, built by one function for the queue manager,
the channel agents and the ROUTC bridge alike."""

from __future__ import annotations

import time

from tpfemu.mq import cmqc
from tpfemu.qmgr.mqmd import dead_letter_header


def test_the_header_describes_the_data_after_it_and_who_put_it_when():
    """Reason, destination, the data's Format/Encoding/CCSID (0 becomes MQCCSI_INHERIT),
    the putter, and today's PutDate in GMT."""
    dlh = dead_letter_header(2085, "NO.SUCH.Q", "QMB", fmt=cmqc.MQFMT_STRING, encoding=546,
                             ccsid=0, appl_type=cmqc.MQAT_TPF, appl_name="ROUTC")
    assert (dlh.Reason, dlh.DestQName.rstrip(), dlh.DestQMgrName.rstrip()) == (
        2085, b"NO.SUCH.Q", b"QMB")
    assert (dlh.Format, dlh.Encoding, dlh.CodedCharSetId) == (
        cmqc.MQFMT_STRING, 546, cmqc.MQCCSI_INHERIT)
    assert (dlh.PutApplType, dlh.PutApplName.rstrip()) == (cmqc.MQAT_TPF, b"ROUTC")
    assert dlh.PutDate == time.strftime("%Y%m%d", time.gmtime()).encode()


def test_a_named_ccsid_is_kept():
    """A CCSID other than 0 is the data's own and is kept as it is."""
    dlh = dead_letter_header(2030, "", "QMA", fmt=cmqc.MQFMT_NONE, encoding=273, ccsid=37,
                             appl_type=cmqc.MQAT_QMGR, appl_name="QMA")
    assert (dlh.CodedCharSetId, dlh.Encoding) == (37, 273)
