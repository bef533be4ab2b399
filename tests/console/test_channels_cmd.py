"""ZMQSC channels: DEF/ALT/DEL/DISP CHL, and START/STOP/RESET/RESOLVE validated, recorded
and (for sender and receiver channels, issue 25) carried out by the channel agents."""

from __future__ import annotations

import pytest
from console_helpers import ids, ok, refused

from tpfemu.console import messages as m
from tpfemu.qmgr.objects import ChannelDef
from tpfemu.system import System


@pytest.fixture
def chl(mqp):
    """A sender TO.NY on transmission queue XQ, a receiver FROM.NY and a SVRCONN CLIENTS."""
    ok(mqp, "ZMQSC DEF QL-XQ USAGE-XMITQ")
    ok(mqp, "ZMQSC DEF CHL-TO.NY CHLTYPE-SDR CONNAME-ny.example.com XMITQ-XQ")
    ok(mqp, "ZMQSC DEF CHL-FROM.NY CHLTYPE-RCVR SPEED-FAST")
    ok(mqp, "ZMQSC DEF CHL-CLIENTS CHLTYPE-SVRCONN")
    return mqp


def local(system) -> None:
    """Point TO.NY at a closed loopback port: started, it retries there, never off the box."""
    ok(system, "ZMQSC ALT CHL-TO.NY CONNAME-'127.0.0.1(1)'")


def channel(system, name: str) -> ChannelDef:
    """The channel's definition."""
    return system.qmgr.catalog.get("CHL", name)


def test_defaults(chl):
    """BATCHSZ comes from the profile, SPEED is NORMAL and CPU is this processor."""
    sender = channel(chl, "TO.NY")
    assert (sender.batchsz, sender.speed, sender.cpu) == (50, "NORMAL", chl.cpu)
    assert sender.address == ("NY.EXAMPLE.COM", 1414)
    assert channel(chl, "FROM.NY").speed == "FAST"


def test_batchsz_default_follows_the_profile(mqp):
    """A channel defined after ALT MQP BATCHSZ takes the profile's new value."""
    ok(mqp, "ZMQSC ALT MQP BATCHSZ-20")
    ok(mqp, "ZMQSC DEF CHL-R CHLTYPE-RCVR")
    assert channel(mqp, "R").batchsz == 20


def test_cpu_default_is_the_local_processor():
    """On processor C, a channel is defined for CPU C unless CPU is given."""
    with System.start(name="CHLCPU", cpu="C") as system:
        ok(system, "ZMQSC DEF MQP")
        ok(system, "ZMQSC DEF CHL-R CHLTYPE-RCVR")
        ok(system, "ZMQSC DEF CHL-S CHLTYPE-RCVR CPU-ALL")
        assert channel(system, "R").cpu == "C" and channel(system, "S").cpu == "ALL"


def test_conname_with_port(mqp):
    """CONNAME 'host(port)' gives that port."""
    ok(mqp, "ZMQSC DEF QL-XQ USAGE-XMITQ")
    ok(mqp, "ZMQSC DEF CHL-S CHLTYPE-SDR CONNAME-'10.0.0.7(1415)' XMITQ-XQ")
    assert channel(mqp, "S").address == ("10.0.0.7", 1415)


@pytest.mark.parametrize(
    ("operands", "keyword"),
    [
        ("CHLTYPE-SDR XMITQ-XQ", "CONNAME"),
        ("CHLTYPE-SDR CONNAME-H", "XMITQ"),
        ("CHLTYPE-RCVR XMITQ-XQ", "XMITQ"),
        ("CHLTYPE-SVRCONN CONNAME-H", "CONNAME"),
        ("CONNAME-H XMITQ-XQ", "CHLTYPE"),
        ("CHLTYPE-CLNTCONN", "CHLTYPE"),
        ("CHLTYPE-SDR CONNAME-'h(70000)' XMITQ-XQ", "CONNAME"),
        ("CHLTYPE-SDR CONNAME-'two words' XMITQ-XQ", "CONNAME"),
        ("CHLTYPE-RCVR BATCHSZ-0", "BATCHSZ"),
        ("CHLTYPE-RCVR BATCHSZ-10000", "BATCHSZ"),
        ("CHLTYPE-RCVR SPEED-SLOW", "SPEED"),
        ("CHLTYPE-RCVR CPU-1", "CPU"),
        ("CHLTYPE-RCVR MAXDEPTH-5", "MAXDEPTH"),
    ],
)
def test_definition_rules(mqp, operands, keyword):
    """Sender needs CONNAME and XMITQ, others take neither; values must be in range."""
    refused(mqp, f"ZMQSC DEF CHL-C {operands}", keyword)


def test_channel_names_are_1_to_20_characters(mqp):
    """A channel name of 20 characters is accepted; 21 is refused; ALL is reserved."""
    ok(mqp, f"ZMQSC DEF CHL-{'C' * 20} CHLTYPE-RCVR")
    refused(mqp, f"ZMQSC DEF CHL-{'C' * 21} CHLTYPE-RCVR", "21 CHARACTERS", "1 to 20")
    refused(mqp, "ZMQSC DEF CHL-ALL CHLTYPE-RCVR", "RESERVED")


def test_channels_have_their_own_namespace(chl):
    """A channel may share its name with a queue."""
    ok(chl, "ZMQSC DEF CHL-XQ CHLTYPE-RCVR")


def test_chltype_cannot_be_altered(chl):
    """ALT CHL cannot change CHLTYPE; other keywords can be changed."""
    refused(chl, "ZMQSC ALT CHL-FROM.NY CHLTYPE-SVRCONN", "CHLTYPE", "CANNOT BE CHANGED")
    ok(chl, "ZMQSC ALT CHL-TO.NY CONNAME-'la.example.com(1500)' BATCHSZ-9 DESCR-'To LA'")
    sender = channel(chl, "TO.NY")
    assert (sender.address, sender.batchsz, sender.descr) == (("la.example.com", 1500), 9,
                                                               "To LA")


def test_start_is_recorded_and_carried_out(chl):
    """START CHL validates, records RUNNING, and the channel agent starts the sender."""
    local(chl)
    response = ok(chl, "ZMQSC START CHL-TO.NY")
    assert ids(response) == [m.CHL_DONE.id]
    assert "SENDER STARTED" in response
    assert chl.qmgr.catalog.channel_requests["TO.NY"].state == "RUNNING"
    assert chl.channels.is_running("TO.NY")


def test_start_and_stop_of_a_svrconn_channel_are_carried_out(chl):
    """STOP CHL of a server-connection channel stops it (its conversations end, clients
    are refused: tests/channels/test_svrconn_stop.py) and START CHL takes clients again;
    each response says so."""
    response = ok(chl, "ZMQSC STOP CHL-CLIENTS")
    assert ids(response) == [m.CHL_DONE.id]
    assert "0 CONVERSATION(S) ENDING; CLIENTS REFUSED UNTIL START" in response
    assert "CLIENTS" in chl.channels.stopped_channels
    response = ok(chl, "ZMQSC START CHL-CLIENTS")
    assert ids(response) == [m.CHL_DONE.id]
    assert "IT TAKES CLIENTS" in response
    assert "CLIENTS" not in chl.channels.stopped_channels


@pytest.mark.parametrize("name", ["TO.NY", "FROM.NY", "CLIENTS"])
def test_start_and_stop_every_type(chl, name):
    """START and STOP apply to every channel type; STOP records its mode."""
    local(chl)
    ok(chl, f"ZMQSC START CHL-{name}")
    ok(chl, f"ZMQSC STOP CHL-{name}")
    request = chl.qmgr.catalog.channel_requests[name]
    assert (request.state, request.mode) == ("STOPPED", "QUIESCE")
    ok(chl, f"ZMQSC START CHL-{name}")
    ok(chl, f"ZMQSC STOP CHL-{name} MODE-FORCE")
    assert chl.qmgr.catalog.channel_requests[name].mode == "FORCE"


@pytest.mark.parametrize("name", ["TO.NY", "FROM.NY", "CLIENTS"])
def test_stop_of_a_stopped_channel_is_refused(chl, name):
    """IBM (MQRCCF_CHANNEL_NOT_ACTIVE): stopping a channel that is already stopped is
    refused, and the request recorded before stays as it was; one never started (not
    STOPPED) can be stopped."""
    local(chl)
    ok(chl, f"ZMQSC STOP CHL-{name}")
    refused(chl, f"ZMQSC STOP CHL-{name} MODE-FORCE", "ALREADY STOPPED")
    assert chl.qmgr.catalog.channel_requests[name].mode == "QUIESCE"


def test_reset_records_the_sequence_number(chl):
    """RESET CHL records SEQNUM (default 1) for senders and receivers."""
    ok(chl, "ZMQSC RESET CHL-TO.NY")
    assert chl.qmgr.catalog.channel_requests["TO.NY"].seqnum == 1
    response = ok(chl, "ZMQSC RESET CHL-FROM.NY SEQNUM-42")
    assert "SEQNUM-42" in response
    assert chl.qmgr.catalog.channel_requests["FROM.NY"].seqnum == 42


def test_resolve_records_the_action(chl):
    """RESOLVE CHL needs ACTION COMMIT or BACKOUT and records it."""
    refused(chl, "ZMQSC RESOLVE CHL-TO.NY", "ACTION", "REQUIRED", "COMMIT or BACKOUT")
    ok(chl, "ZMQSC RESOLVE CHL-TO.NY ACTION-BACKOUT")
    assert chl.qmgr.catalog.channel_requests["TO.NY"].resolve == "BACKOUT"


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("RESET CHL-CLIENTS", ("CHLTYPE SVRCONN", "SDR AND RCVR")),
        ("RESOLVE CHL-FROM.NY ACTION-COMMIT", ("CHLTYPE RCVR", "SDR")),
        ("RESOLVE CHL-CLIENTS ACTION-COMMIT", ("CHLTYPE SVRCONN",)),
        ("START CHL-NOPE", ("NOPE", "NOT FOUND")),
        ("RESET CHL-TO.NY SEQNUM-0", ("SEQNUM", "1 to 999999999")),
        ("RESET CHL-TO.NY SEQNUM-X", ("SEQNUM",)),
        ("RESET CHL-TO.NY SEQNUM-1 SEQNUM-2", ("SEQNUM", "TWICE")),
        ("STOP CHL-TO.NY MODE-LATER", ("MODE", "QUIESCE or FORCE")),
        ("STOP CHL-TO.NY MODE", ("MODE", "NEEDS A VALUE")),
        ("START CHL-TO.NY SEQNUM-5", ("SEQNUM", "VALID KEYWORDS ARE NONE")),
        ("RESOLVE CHL-TO.NY ACTION-MAYBE", ("ACTION",)),
    ],
)
def test_channel_requests_refused(chl, command, words):
    """A request that does not fit the channel, or has bad operands, is refused unrecorded."""
    refused(chl, f"ZMQSC {command}", *words)
    assert chl.qmgr.catalog.channel_requests == {}


def test_start_sender_needs_its_transmission_queue(chl):
    """START of a sender whose XMITQ is missing or not a transmission queue is refused."""
    ok(chl, "ZMQSC DEF CHL-TO.LA CHLTYPE-SDR CONNAME-LA XMITQ-NO.SUCH.Q")
    refused(chl, "ZMQSC START CHL-TO.LA", "NO.SUCH.Q", "NOT DEFINED")
    ok(chl, "ZMQSC DEF QL-NO.SUCH.Q")
    refused(chl, "ZMQSC START CHL-TO.LA", "USAGE-XMITQ")


def test_channel_of_another_processor(chl):
    """A channel defined for another CPU is started there, not here."""
    other = "C" if chl.cpu != "C" else "D"
    ok(chl, f"ZMQSC DEF CHL-ELSEWHERE CHLTYPE-RCVR CPU-{other}")
    refused(chl, "ZMQSC START CHL-ELSEWHERE", f"CPU {other}")


def test_delete_drops_the_request(chl):
    """Deleting a channel forgets what was asked of it."""
    ok(chl, "ZMQSC START CHL-FROM.NY")
    ok(chl, "ZMQSC DEL CHL-FROM.NY")
    assert "FROM.NY" not in chl.qmgr.catalog.channel_requests


def test_display_generic_channels(chl):
    """DISP CHL-* shows every channel with its status."""
    response = ok(chl, "ZMQSC DISP CHL-*")
    assert "3 CHL OBJECT(S)" in response and response.count("INACTIVE") == 3


def test_profile_cannot_go_while_channels_exist(chl):
    """DEL MQP is refused while channels are defined."""
    refused(chl, "ZMQSC DEL MQP", "TO.NY")


def test_snapshot_and_restore_keep_channels(chl):
    """Channels survive the catalog's snapshot/restore round trip."""
    from tpfemu.qmgr.catalog import Catalog

    data = [d.to_dict() for d in chl.qmgr.catalog.snapshot()]
    copy = Catalog(chl.qmgr.name)
    copy.restore(data)
    assert copy.snapshot() == chl.qmgr.catalog.snapshot()
    assert copy.find_channel("TO.NY") == channel(chl, "TO.NY")
