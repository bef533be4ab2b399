"""Triggering, TPF's model (seed 004) and the built-in trigger monitor.

Without an initiation queue, TPF triggers programs itself: FIRST "by setting a trigger
when an application attempts to read (MQGET) a message from an empty queue", EVERY "every
time a message arrives on the queue"; the process's program receives the MQTMC2 on data
level 0, and without a process the user exit CUIR receives "the message queuing message
descriptor (MQMD) and message queuing trigger message (MQTM) structures on data level 0".
Offsets are IBM's (mq-semantics §3). With an initiation queue, the built-in trigger
monitor (IBM's runmqtrm) does the same from the trigger messages.
"""

from __future__ import annotations

import time

import pytest
from trigger_helpers import Recorder, blank

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mq.headers import DLH
from tpfemu.mqi import CMQC

QUIET = 0.15  # seconds to wait, after the dispatcher is idle, before "no entry was created"
MD_LENGTH = 364  # MQMD version 2
TM_LENGTH = 684
TMC2_LENGTH = 732


def long_at(data: bytes, offset: int) -> int:
    """The MQLONG at ``offset`` (the emulator's native encoding, MQENC_NATIVE 0x222)."""
    return int.from_bytes(data[offset:offset + 4], "little", signed=True)


class Tpf:
    """A running System with the process APP.PROC (program PRG1) and its recorders."""

    def __init__(self, system: tpfemu.System) -> None:
        self.s = system
        self.cat = system.qmgr.catalog
        self.cat.define("PROC", "APP.PROC", applid="PRG1", envdata="ENV DATA",
                        userdata="USER DATA")
        self.prg1 = Recorder()
        self.cuir = Recorder()
        self.qm = pymqi.connect(system.name)

    def load(self) -> Tpf:
        self.s.programs.load("PRG1", self.prg1)
        self.s.programs.load("CUIR", self.cuir)
        return self

    def queue(self, name: str = "TPF.Q", **attrs) -> str:
        """Define a TPF-triggered queue (no INITQ): FIRST with APP.PROC unless overridden."""
        values = dict(trigger="YES", trigtype="FIRST", process="APP.PROC", trigdata="TRIG DATA")
        values.update(attrs)
        self.cat.define("QL", name, **values)
        return name

    def put(self, qname: str = "TPF.Q", data: bytes = b"message", md: pymqi.MD | None = None,
            *, syncpoint: bool = False) -> pymqi.MD:
        md = md if md is not None else pymqi.MD()
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
        self.qm.put1(qname, data, md, pmo)
        return md

    def get_all(self, q: pymqi.Queue) -> int:
        """MQGET until the queue is empty, without a get that finds it empty."""
        got = 0
        while self.s.qmgr.queues[q.get_handle().name].core.depth:
            q.get()
            got += 1
        return got

    def quiet(self) -> None:
        assert self.s.dispatcher.wait_idle(2)
        time.sleep(QUIET)


@pytest.fixture
def tpf(system) -> Tpf:
    return Tpf(system).load()


def check_tmc2(block: bytes, *, qname: str, process: str, trigdata: str, applid: str,
               envdata: str, userdata: str, qmgr: str) -> None:
    """Check an MQTMC2 at the start of ``block``, byte by byte at IBM's offsets."""
    assert len(block) >= TMC2_LENGTH
    assert block[0:4] == b"TMC "  # StrucId MQTMC_STRUC_ID
    assert block[4:8] == b"   2"  # Version MQTMC_VERSION_2
    assert block[8:56] == blank(qname, 48)
    assert block[56:104] == blank(process, 48)
    assert block[104:168] == blank(trigdata, 64)
    assert block[168:172] == b"    ", "IBM: ApplType 'always contains blanks'"
    assert block[172:428] == blank(applid, 256)
    assert block[428:556] == blank(envdata, 128)
    assert block[556:684] == blank(userdata, 128)
    assert block[684:732] == blank(qmgr, 48)


def check_tm(data: bytes, *, qname: str, process: str, trigdata: str, appltype: int,
             applid: str = "", envdata: str = "", userdata: str = "") -> None:
    """Check an MQTM of 684 bytes byte by byte at IBM's offsets."""
    assert len(data) == TM_LENGTH
    assert data[0:4] == b"TM  "
    assert long_at(data, 4) == 1
    assert data[8:56] == blank(qname, 48)
    assert data[56:104] == blank(process, 48)
    assert data[104:168] == blank(trigdata, 64)
    assert long_at(data, 168) == appltype
    assert data[172:428] == blank(applid, 256)
    assert data[428:556] == blank(envdata, 128)
    assert data[556:684] == blank(userdata, 128)


# -- FIRST -----------------------------------------------------------------------------------


def test_first_armed_at_define_fires_once(tpf):
    """Seed 004, "Trigger first processing occurs the first time a message arrives on a queue": a
    new queue's first message starts PRG1, the next ones do not."""
    tpf.queue()
    tpf.put()
    assert tpf.prg1.wait_for(1)
    tpf.put()
    tpf.put()
    tpf.quiet()
    assert len(tpf.prg1.blocks) == 1
    assert tpf.cuir.blocks == []


def test_first_rearmed_by_an_mqget_of_the_empty_queue(tpf):
    """Seed 004, FIRST is set "when an application attempts to read (MQGET) a message from an empty
    queue. The next message that arrives on the queue, triggers a program"."""
    tpf.queue()
    tpf.put()
    assert tpf.prg1.wait_for(1)
    server = pymqi.Queue(tpf.qm, "TPF.Q", CMQC.MQOO_INPUT_SHARED)
    server.get()
    with pytest.raises(pymqi.MQMIError) as info:
        server.get()
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    tpf.put()
    assert tpf.prg1.wait_for(2)
    tpf.put()
    tpf.quiet()
    assert len(tpf.prg1.blocks) == 2


def test_first_not_rearmed_by_a_get_that_empties_the_queue(tpf):
    """Seed 004, FIRST is set when an MQGET is attempted "from an empty queue": a get that takes the
    last message (and finds nothing empty) does not re-arm."""
    tpf.queue()
    tpf.put()
    tpf.put()
    assert tpf.prg1.wait_for(1)
    server = pymqi.Queue(tpf.qm, "TPF.Q", CMQC.MQOO_INPUT_SHARED)
    assert tpf.get_all(server) == 2
    tpf.put()
    tpf.quiet()
    assert len(tpf.prg1.blocks) == 1


def test_first_fires_with_the_server_still_open_for_input(tpf):
    """Seed 004, "The next message that arrives on the queue, triggers a program": the server whose
    MQGET found the queue empty may still have it open, and the next message still triggers."""
    tpf.queue()
    server = pymqi.Queue(tpf.qm, "TPF.Q", CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(pymqi.MQMIError):
        server.get()
    tpf.put()
    assert tpf.prg1.wait_for(1)
    assert tpf.s.qmgr.queues["TPF.Q"].input_count == 1


def test_first_armed_when_trigger_is_switched_on_for_an_empty_queue(tpf):
    """Seed 004 FIRST "the first time a message arrives on a queue": a queue defined with TRIGGER
    NO, then altered to YES while empty, triggers on its first message."""
    tpf.queue(trigger="NO")
    tpf.cat.alter("QL", "TPF.Q", trigger="YES")
    tpf.put()
    assert tpf.prg1.wait_for(1)


def test_first_in_a_commit_scope_starts_the_program_at_commit(tpf):
    """Seed 004, "MQPUT and MQGET functions become visible to other processes during tx_commit
    function processing": the FIRST entry is created when the commit scope commits."""
    tpf.queue()
    pymqi.tx_begin()
    try:
        tpf.put(syncpoint=True)
        tpf.quiet()
        assert tpf.prg1.blocks == []
    finally:
        pymqi.tx_commit()
    assert tpf.prg1.wait_for(1)


# -- EVERY -----------------------------------------------------------------------------------


def test_every_in_a_commit_scope_rolled_back_starts_nothing(tpf):
    """Seed 004 with the seed 000 rule, trigger messages are delivered on backout only "for trigger
    type MQTT_FIRST or MQTT_DEPTH": an EVERY put in a rolled-back commit scope starts no entry."""
    tpf.queue(trigtype="EVERY")
    pymqi.tx_begin()
    try:
        tpf.put(syncpoint=True)
    finally:
        pymqi.tx_rollback()
    tpf.quiet()
    assert tpf.prg1.blocks == []
    assert tpf.s.qmgr.queues["TPF.Q"].core.depth == 0


def test_every_one_entry_per_message(tpf):
    """Seed 004, "Every time a message arrives on the queue, the TPF system creates a new ECB and
    triggers a program in the process object associated with the queue": 3 messages, 3 entries."""
    tpf.queue(trigtype="EVERY")
    for _ in range(3):
        tpf.put()
    assert tpf.prg1.wait_for(3)
    tpf.quiet()
    assert len(tpf.prg1.blocks) == 3
    assert all(b[8:56] == blank("TPF.Q", 48) for b in tpf.prg1.blocks)


def test_every_with_the_queue_open_for_input(tpf):
    """Seed 004 EVERY, "Every time a message arrives on the queue": an application holding the queue
    open for input does not stop the entries."""
    tpf.queue(trigtype="EVERY")
    server = pymqi.Queue(tpf.qm, "TPF.Q", CMQC.MQOO_INPUT_SHARED)
    tpf.put()
    tpf.put()
    assert tpf.prg1.wait_for(2)
    assert server.get_handle() is not None


# -- what the programs receive on D0 ------------------------------------------------------------


def test_process_program_receives_mqtmc2_on_d0(tpf):
    """Seed 004, "When a process is called, the TPF system passes the MQTMC2 structure to the
    process": StrucId "TMC ", Version "   2", the queue's and process's values and QMgrName, 732
    bytes at the start of D0."""
    tpf.queue(trigtype="EVERY")
    tpf.put()
    assert tpf.prg1.wait_for(1)
    check_tmc2(tpf.prg1.blocks[0], qname="TPF.Q", process="APP.PROC", trigdata="TRIG DATA",
               applid="PRG1", envdata="ENV DATA", userdata="USER DATA", qmgr=tpf.s.qmgr.name)


def test_cuir_receives_the_messages_mqmd_and_the_mqtm_on_d0(tpf):
    """Seed 004, "the TPF system passes the message queuing message descriptor (MQMD) and message
    queuing trigger message (MQTM) structures on data level 0 of the entry control block (ECB) to
    CUIR": MQMD v2 of the message (364 bytes) then the MQTM (684)."""
    tpf.queue("CUIR.Q", trigtype="EVERY", process="", trigdata="FOR CUIR")
    md = pymqi.MD(Priority=7, Format=CMQC.MQFMT_STRING, CorrelId=b"CORREL-1".ljust(24, b"\0"),
                  ReplyToQ=b"REPLY.Q", MsgType=CMQC.MQMT_DATAGRAM,
                  Persistence=CMQC.MQPER_NOT_PERSISTENT)
    tpf.put("CUIR.Q", b"payload", md)
    assert tpf.cuir.wait_for(1)
    block = tpf.cuir.blocks[0]
    assert len(block) >= MD_LENGTH + TM_LENGTH
    d = block[:MD_LENGTH]
    assert d[0:4] == b"MD  "
    assert long_at(d, 4) == 2  # MQMD_VERSION_2
    assert long_at(d, 8) == CMQC.MQRO_NONE  # Report
    assert long_at(d, 12) == CMQC.MQMT_DATAGRAM
    assert long_at(d, 16) == CMQC.MQEI_UNLIMITED  # Expiry
    assert long_at(d, 20) == CMQC.MQFB_NONE
    assert long_at(d, 24) == 0x222  # Encoding, MQENC_NATIVE
    assert d[32:40] == b"MQSTR   "  # Format
    assert long_at(d, 40) == 7  # Priority
    assert long_at(d, 44) == CMQC.MQPER_NOT_PERSISTENT
    assert d[48:72] == bytes(md.MsgId) and d[48:72] != bytes(24)  # the message's MsgId
    assert d[72:96] == b"CORREL-1".ljust(24, b"\0")
    assert long_at(d, 96) == 0  # BackoutCount
    assert d[100:148] == blank("REPLY.Q", 48)
    assert d[304:312] == bytes(md.PutDate) and d[304:312].isdigit()
    assert d[312:320] == bytes(md.PutTime) and d[312:320].isdigit()
    assert d[324:348] == bytes(24)  # GroupId MQGI_NONE
    assert long_at(d, 348) == 1  # MsgSeqNumber
    assert long_at(d, 352) == 0  # Offset
    assert long_at(d, 356) == CMQC.MQMF_NONE
    assert long_at(d, 360) == CMQC.MQOL_UNDEFINED
    got = pymqi.MD(Version=2)
    assert pymqi.Queue(tpf.qm, "CUIR.Q").get(None, got) == b"payload"
    assert d == got.pack(), "CUIR's MQMD is the MQMD an MQGET of the message returns"
    check_tm(block[MD_LENGTH:MD_LENGTH + TM_LENGTH], qname="CUIR.Q", process="",
             trigdata="FOR CUIR", appltype=CMQC.MQAT_UNKNOWN)
    assert tpf.prg1.blocks == []


def test_cuir_first_without_a_process(tpf):
    """Seed 004 FIRST, "If no process object is associated with the queue, the TPF MQSeries queue
    trigger user exit, CUIR, is called": once, for the first message."""
    tpf.queue("CUIR.Q", trigtype="FIRST", process="")
    first = tpf.put("CUIR.Q")
    tpf.put("CUIR.Q")
    assert tpf.cuir.wait_for(1)
    tpf.quiet()
    assert len(tpf.cuir.blocks) == 1
    assert tpf.cuir.blocks[0][48:72] == bytes(first.MsgId)


# -- a program that is not loaded --------------------------------------------------------------


def test_process_program_not_loaded_console_error_and_trigger_kept(system):
    """Trigger not lost: a trigger for a program that is not loaded says so on the console (naming
    the program) and is delivered at the next trigger point once the program is loaded."""
    tpf = Tpf(system)  # nothing loaded
    tpf.queue()
    tpf.put()
    tpf.quiet()
    assert any("PRG1" in line and "TPF.Q" in line for line in system.log), list(system.log)
    system.programs.load("PRG1", tpf.prg1)
    tpf.put()
    assert tpf.prg1.wait_for(1)
    tpf.quiet()
    assert len(tpf.prg1.blocks) == 1
    check_tmc2(tpf.prg1.blocks[0], qname="TPF.Q", process="APP.PROC", trigdata="TRIG DATA",
               applid="PRG1", envdata="ENV DATA", userdata="USER DATA", qmgr=system.qmgr.name)


def test_cuir_not_loaded_every_keeps_each_trigger(system):
    """Trigger not lost, EVERY "creates a new ECB" for every message: two triggers made while CUIR
    is not loaded are both delivered (with the next one) once it is loaded."""
    tpf = Tpf(system)
    tpf.queue("CUIR.Q", trigtype="EVERY", process="")
    ids = [bytes(tpf.put("CUIR.Q").MsgId) for _ in range(2)]
    tpf.quiet()
    assert any("CUIR" in line for line in system.log)
    system.programs.load("CUIR", tpf.cuir)
    ids.append(bytes(tpf.put("CUIR.Q").MsgId))
    tpf.cuir.wait_for(3, timeout=1)
    tpf.quiet()
    assert sorted(b[48:72] for b in tpf.cuir.blocks) == sorted(ids)


# -- the built-in trigger monitor (INITQ model) ----------------------------------------------


def monitor_queues(tpf: Tpf) -> None:
    tpf.cat.define("QL", "INIT.Q")
    tpf.cat.define("QL", "APP.Q", trigger="YES", trigtype="EVERY", initq="INIT.Q",
                   process="APP.PROC", trigdata="TRIG DATA")
    tpf.cat.define("QL", "XMIT.Q", usage="XMITQ", trigger="YES", trigtype="EVERY",
                   initq="INIT.Q", trigdata="CHANNEL.1")


def init_depth(tpf: Tpf) -> int:
    return tpf.s.qmgr.queues["INIT.Q"].core.depth


def test_monitor_starts_the_process_program_with_mqtmc2(tpf):
    """The built-in trigger monitor gets the trigger message and starts the process's program, which
    receives the MQTMC2 (QMgrName = the queue manager) on D0."""
    monitor_queues(tpf)
    tpf.s.start_trigger_monitor("INIT.Q")
    tpf.put("APP.Q")
    assert tpf.prg1.wait_for(1)
    check_tmc2(tpf.prg1.blocks[0], qname="APP.Q", process="APP.PROC", trigdata="TRIG DATA",
               applid="PRG1", envdata="ENV DATA", userdata="USER DATA", qmgr=tpf.s.qmgr.name)
    tpf.quiet()
    assert init_depth(tpf) == 0
    assert tpf.cuir.blocks == []


def test_monitor_calls_cuir_with_mqmd_and_mqtm_without_a_process(tpf):
    """The built-in trigger monitor calls CUIR ("If no process object is associated with the queue")
    with an MQMD v2 (364 bytes) and the MQTM (684) on D0."""
    monitor_queues(tpf)
    tpf.s.start_trigger_monitor("INIT.Q")
    tpf.put("XMIT.Q")
    assert tpf.cuir.wait_for(1)
    block = tpf.cuir.blocks[0]
    assert block[0:4] == b"MD  " and long_at(block, 4) == 2
    check_tm(block[MD_LENGTH:MD_LENGTH + TM_LENGTH], qname="XMIT.Q", process="",
             trigdata="CHANNEL.1", appltype=CMQC.MQAT_UNKNOWN)
    assert tpf.prg1.blocks == []


def test_monitor_keeps_the_trigger_message_until_the_program_is_loaded(system):
    """Trigger not lost with the monitor: a trigger message whose program is not loaded stays on
    INIT.Q (console error) and is served once the program is loaded."""
    tpf = Tpf(system)
    monitor_queues(tpf)
    system.start_trigger_monitor("INIT.Q", retry=0.05)
    tpf.put("APP.Q")
    deadline = time.monotonic() + 2
    while not any("PRG1" in line for line in system.log) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any("PRG1" in line for line in system.log), list(system.log)
    assert init_depth(tpf) == 1, "the trigger message stays on the initiation queue"
    system.programs.load("PRG1", tpf.prg1)
    assert tpf.prg1.wait_for(1)
    check_tmc2(tpf.prg1.blocks[0], qname="APP.Q", process="APP.PROC", trigdata="TRIG DATA",
               applid="PRG1", envdata="ENV DATA", userdata="USER DATA", qmgr=system.qmgr.name)
    tpf.quiet()
    assert init_depth(tpf) == 0
    assert len(tpf.prg1.blocks) == 1


def test_monitor_gives_cuir_the_trigger_messages_own_mqmd(tpf):
    """Through an initiation queue without a process, CUIR's MQMD on D0 is the trigger
    message's (Format MQTRIG, MsgId not the application message's): the application
    message's MQMD is not in the MQTM (docs/deviations.md)."""
    monitor_queues(tpf)
    tpf.s.start_trigger_monitor("INIT.Q")
    app_md = tpf.put("XMIT.Q", md=pymqi.MD(Format=CMQC.MQFMT_STRING))
    assert tpf.cuir.wait_for(1)
    block = tpf.cuir.blocks[0]
    md = pymqi.MD().unpack(bytes(block[0:MD_LENGTH]))
    assert bytes(md.Format) == CMQC.MQFMT_TRIGGER
    assert bytes(md.MsgId) != bytes(app_md.MsgId)


def test_monitor_sends_a_message_that_is_not_an_mqtm_to_the_dead_letter_queue(tpf):
    """IBM, "How RUNMQTRM detects errors": the trigger monitor puts a message it cannot use
    on the dead-letter queue behind an MQDLH whose Reason is a feedback code; for a message
    that is not a valid MQTM, MQFB_TM_ERROR (MQDLH Reason). It starts nothing."""
    monitor_queues(tpf)
    tpf.s.start_trigger_monitor("INIT.Q")
    tpf.put("INIT.Q", b"not a trigger message", md=pymqi.MD(Format=CMQC.MQFMT_STRING))
    deadline = time.monotonic() + 2
    dlq = tpf.s.qmgr.queues["DEAD.LETTER.QUEUE"]
    while dlq.core.depth == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    tpf.quiet()
    assert init_depth(tpf) == 0
    q = pymqi.Queue(tpf.qm, "DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    data = q.get(None, md)
    q.close()
    assert bytes(md.Format) == CMQC.MQFMT_DEAD_LETTER_HEADER
    dlh = DLH().unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQFB_TM_ERROR
    assert bytes(dlh.DestQName).strip() == b"INIT.Q"
    assert bytes(dlh.Format) == CMQC.MQFMT_STRING
    assert data[CMQC.MQDLH_LENGTH_1:] == b"not a trigger message"
    assert tpf.prg1.blocks == [] and tpf.cuir.blocks == []
