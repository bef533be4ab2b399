"""ZMQSC START/STOP/DISPLAY TRIGMON: the operator's way to run the built-in trigger monitor."""

import itertools
import threading

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from ecb import Level

_names = itertools.count(1)


@pytest.fixture
def system():
    """A running system with a profile, an initiation queue and a triggered queue."""
    s = tpfemu.System.start(name=f"TMON{next(_names)}")
    for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-INIT.Q", "ZMQSC DEF PROC-P1 APPLID-PRG1",
                    "ZMQSC DEF QL-APP.Q TRIGTYPE-FIRST INITQ-INIT.Q PROCESS-P1"):
        assert s.console(command).split(" ", 1)[0][-1] == "I", command
    yield s
    s.stop()


def test_start_trigmon_serves_the_initiation_queue(system):
    """START TRIGMON opens the initiation queue: a waiting trigger starts the program."""
    seen: list[bytes] = []
    done = threading.Event()

    def prg1(ecb):
        seen.append(bytes(ecb.block(Level.D0))[:4])
        done.set()

    system.programs.load("PRG1", prg1)
    pymqi.Queue(pymqi.connect(system.name), "APP.Q").put(b"work")
    assert system.qmgr.queues["INIT.Q"].core.depth == 0  # no monitor yet: condition 8
    assert system.console("ZMQSC START TRIGMON-INIT.Q").startswith("MQSC0080I B ")
    assert done.wait(5)
    assert seen == [b"TMC "]
    assert "1 ENTRIES STARTED" in system.console("ZMQSC DISP TRIGMON")


def test_trigmon_refusals_name_the_reason(system):
    """A second monitor, an unknown queue and stopping none are refused with E messages."""
    system.console("ZMQSC START TRIGMON-INIT.Q")
    assert "ALREADY SERVES IT" in system.console("ZMQSC START TRIGMON-INIT.Q")
    assert "MQRC_UNKNOWN_OBJECT_NAME" in system.console("ZMQSC START TRIGMON-NOPE")
    assert system.console("ZMQSC STOP TRIGMON-INIT.Q").startswith("MQSC0081I")
    assert "NO TRIGGER MONITOR SERVES IT" in system.console("ZMQSC STOP TRIGMON-INIT.Q")
    idle = system.console("ZMQSC DISP TRIGMON")
    assert idle == f"MQSC0084I {system.cpu} NO TRIGGER MONITOR IS RUNNING"
