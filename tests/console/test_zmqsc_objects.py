"""ZMQSC verbs on every object type: DEFINE, ALTER, DELETE, DISPLAY, CLEAR, START/STOP QMGR."""

from __future__ import annotations

import pytest
from console_helpers import ids, ok, refused, severity

import tpfemu.mqi as pymqi
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC

# type -> (name, DEFINE operands, ALTER operands, (attribute, value after ALTER))
OBJECTS = {
    "QL": ("APP.IN", "MAXDEPTH-100", "MAXDEPTH-200", ("maxdepth", 200)),
    "QA": ("APP.ALIAS", "TARGQ-APP.IN", "PUT-DISABLED", ("put", "DISABLED")),
    "QR": ("APP.REMOTE", "RNAME-R RQMNAME-QM2", "RNAME-OTHER", ("rname", "OTHER")),
    "PROC": ("APP.PROC", "APPLID-QZZ1", "APPLID-QZZ2", ("applid", "QZZ2")),
    "CHL": ("TO.NY", "CHLTYPE-SDR CONNAME-NY XMITQ-XQ", "BATCHSZ-7", ("batchsz", 7)),
}


@pytest.mark.parametrize("obj", list(OBJECTS))
def test_define_alter_display_delete(mqp, obj):
    """Each object type can be defined, altered, displayed and deleted, in turn."""
    name, define, alter, (attr, value) = OBJECTS[obj]
    assert ids(ok(mqp, f"ZMQSC DEF {obj}-{name} {define}")) == [m.DEFINED.id]
    assert ids(ok(mqp, f"ZMQSC ALT {obj}-{name} {alter}")) == [m.ALTERED.id]
    assert getattr(mqp.qmgr.catalog.get(obj, name), attr) == value
    shown = ok(mqp, f"ZMQSC DISP {obj}-{name}")
    assert ids(shown)[0] == m.DISPLAY_HEAD.id and f"{obj} {name}" in shown.splitlines()[0]
    assert ids(ok(mqp, f"ZMQSC DEL {obj}-{name}")) == [m.DELETED.id]
    refused(mqp, f"ZMQSC DISP {obj}-{name}", "NOT FOUND")


@pytest.mark.parametrize("obj", list(OBJECTS))
def test_long_verbs_work_too(mqp, obj):
    """DEFINE, ALTER, DISPLAY and DELETE spelled out do what DEF, ALT, DISP and DEL do."""
    name, define, alter, _ = OBJECTS[obj]
    ok(mqp, f"ZMQSC DEFINE {obj}-{name} {define}")
    ok(mqp, f"ZMQSC ALTER {obj}-{name} {alter}")
    ok(mqp, f"ZMQSC DISPLAY {obj}-{name}")
    ok(mqp, f"ZMQSC DELETE {obj}-{name}")
    assert [d.name for d in mqp.qmgr.catalog.snapshot()] == [
        mqp.qmgr.name, "DEAD.LETTER.QUEUE", "SPECIAL.RECOVERY.QUEUE"]


@pytest.mark.parametrize("obj", list(OBJECTS))
def test_object_commands_need_the_profile(system, obj):
    """Before ZMQSC DEF MQP every object command is refused, saying to define the MQP."""
    name, define, _, _ = OBJECTS[obj]
    refused(system, f"ZMQSC DEF {obj}-{name} {define}", "MQP")


@pytest.mark.parametrize("obj", list(OBJECTS))
def test_define_twice_and_replace(mqp, obj):
    """DEFINE of an existing object is refused; with REPLACE it is redefined."""
    name, define, _, _ = OBJECTS[obj]
    ok(mqp, f"ZMQSC DEF {obj}-{name} {define}")
    refused(mqp, f"ZMQSC DEF {obj}-{name} {define}", "REPLACE")
    assert ids(ok(mqp, f"ZMQSC DEF {obj}-{name} {define} REPLACE")) == [m.REPLACED.id]


@pytest.mark.parametrize("obj", list(OBJECTS))
def test_unknown_objects_are_not_found(mqp, obj):
    """ALTER, DELETE and DISPLAY of an object that does not exist say it is not found."""
    name, _, alter, _ = OBJECTS[obj]
    for command in (f"ALT {obj}-NOPE {alter}", f"DEL {obj}-NOPE", f"DISP {obj}-NOPE"):
        assert ids(refused(mqp, f"ZMQSC {command}", "NOPE", "NOT FOUND")) == [m.NOT_FOUND.id]


def test_not_found_names_the_real_type(mqp):
    """Addressing a queue with the wrong type says what it is."""
    ok(mqp, "ZMQSC DEF QA-ALIAS TARGQ-X")
    refused(mqp, "ZMQSC DISP QL-ALIAS", "IS A QA")
    refused(mqp, "ZMQSC DEL QR-ALIAS", "IS A QA")


def test_queue_types_share_one_namespace(mqp):
    """A QA cannot take the name of a QL."""
    ok(mqp, "ZMQSC DEF QL-SAME")
    refused(mqp, "ZMQSC DEF QA-SAME TARGQ-X", "QA", "SAME")


def test_mqp_verbs(system):
    """DEF MQP creates the two TPF queues; ALT/DISP MQP work; DEL MQP only when alone."""
    response = ok(system, "ZMQSC DEF MQP QDT-5 DESCR-'Test profile'")
    assert ids(response) == [m.PROFILE_DEFINED.id]
    assert {d.name for d in system.qmgr.catalog.list("QL")} == {
        "DEAD.LETTER.QUEUE", "SPECIAL.RECOVERY.QUEUE"}
    ok(system, "ZMQSC ALT MQP QDT-7")
    assert system.qmgr.catalog.profile.qdt == 7
    shown = ok(system, "ZMQSC DISP MQP")
    assert "QDT" in shown and "'Test profile'" in shown
    ok(system, "ZMQSC DEF QL-APP")
    refused(system, "ZMQSC DEL MQP", "APP")
    ok(system, "ZMQSC DEL QL-APP")
    assert ids(ok(system, "ZMQSC DEL MQP")) == [m.DELETED.id]
    assert system.qmgr.catalog.snapshot() == []
    refused(system, "ZMQSC DISP MQP", "DEF MQP")


def test_mqp_is_named_like_the_queue_manager(system):
    """DEF MQP-name is accepted only with the queue manager's own name."""
    refused(system, f"ZMQSC DEF MQP-{system.qmgr.name}X", "MQP")
    ok(system, f"ZMQSC DEF MQP-{system.qmgr.name}")


def test_profile_queues_cannot_be_deleted(mqp):
    """DEAD.LETTER.QUEUE cannot be deleted while the profile exists."""
    refused(mqp, "ZMQSC DEL QL-DEAD.LETTER.QUEUE", "DEAD.LETTER.QUEUE")


def test_alter_needs_a_keyword(mqp):
    """ALTER without any keyword is refused, listing the valid keywords."""
    ok(mqp, "ZMQSC DEF QL-A")
    refused(mqp, "ZMQSC ALT QL-A", "NOTHING TO CHANGE", "MAXDEPTH")


def test_delete_takes_no_operands(mqp):
    """DELETE with a keyword is refused."""
    ok(mqp, "ZMQSC DEF QL-A")
    refused(mqp, "ZMQSC DEL QL-A MAXDEPTH-5", "MAXDEPTH")


def test_delete_refused_with_messages_on_the_queue(mqp):
    """A local queue holding messages cannot be deleted; CLEAR it first."""
    ok(mqp, "ZMQSC DEF QL-A")
    mqp.qmgr.queues["A"].core.put(b"x")
    refused(mqp, "ZMQSC DEL QL-A", "1 message")
    ok(mqp, "ZMQSC CLEAR QL-A")
    ok(mqp, "ZMQSC DEL QL-A")


def test_delete_refused_while_open(mqp):
    """A queue open by an application cannot be deleted."""
    ok(mqp, "ZMQSC DEF QL-A")
    qm = pymqi.connect(mqp.qmgr.name)
    queue = pymqi.Queue(qm, "A", CMQC.MQOO_OUTPUT)
    refused(mqp, "ZMQSC DEL QL-A", "open")
    queue.close()
    qm.disconnect()
    ok(mqp, "ZMQSC DEL QL-A")


def test_clear_removes_messages(mqp):
    """CLEAR QL removes every committed message and says how many."""
    ok(mqp, "ZMQSC DEF QL-A")
    for _ in range(3):
        mqp.qmgr.queues["A"].core.put(b"x")
    response = ok(mqp, "ZMQSC CLEAR QL-A")
    assert ids(response) == [m.CLEARED.id] and "3 MESSAGE" in response
    assert mqp.qmgr.queues["A"].core.depth == 0


def test_clear_leaves_uncommitted_messages(mqp):
    """Messages inside a unit of work survive CLEAR: it is refused and removes nothing
    (tests/console/test_zmqsc_clear.py has every case)."""
    ok(mqp, "ZMQSC DEF QL-A")
    qm = pymqi.connect(mqp.qmgr.name)
    queue = pymqi.Queue(qm, "A", CMQC.MQOO_OUTPUT)
    queue.put(b"done")
    queue.put(b"pending", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    queue.close()
    response = refused(mqp, "ZMQSC CLEAR QL-A", "1 UNCOMMITTED PUT")
    assert ids(response) == [m.CLEAR_REFUSED.id]
    assert mqp.qmgr.queues["A"].core.depth == 2
    qm.commit()
    assert mqp.qmgr.queues["A"].core.depth == 2
    qm.disconnect()


def test_clear_of_other_types_and_unknown_queues(mqp):
    """CLEAR applies to local queues only, and to defined ones."""
    ok(mqp, "ZMQSC DEF QA-AL TARGQ-X")
    refused(mqp, "ZMQSC CLEAR QL-AL", "IS A QA")
    refused(mqp, "ZMQSC CLEAR QL-NONE", "NOT FOUND")
    assert ids(refused(mqp, "ZMQSC CLEAR QA-AL")) == [m.UNKNOWN_OBJECT.id]


def test_display_qmgr(mqp):
    """DISPLAY QMGR shows the name, CPU, status, object counts and the profile."""
    shown = ok(mqp, "ZMQSC DISP QMGR")
    assert f"QMGR {mqp.qmgr.name}" in shown
    for word in ("CPU", "STATUS", "ACTIVE", "MAXMSGL", "QDT", "BATCHSZ", "TRIGINT", "EXPRYINT"):
        assert word in shown


def test_display_qmgr_without_profile(system):
    """DISPLAY QMGR works before DEF MQP and says the profile is not defined."""
    assert "NOT DEFINED" in ok(system, "ZMQSC DISP QMGR")


def test_stop_and_start_qmgr(mqp):
    """STOP QMGR records the stop for the CLI; START QMGR cancels it; both say so."""
    assert not getattr(mqp, "stop_requested", False)
    assert ids(ok(mqp, "ZMQSC STOP QMGR")) == [m.QMGR_STOPPING.id]
    assert mqp.stop_requested is True
    assert "STOP REQUESTED" in ok(mqp, "ZMQSC DISP QMGR")
    response = ok(mqp, "ZMQSC START QMGR")
    assert ids(response) == [m.QMGR_ACTIVE.id] and "CANCELLED" in response
    assert mqp.stop_requested is False
    assert "CANCELLED" not in ok(mqp, "ZMQSC START QMGR")


def test_stopped_queue_manager_refuses_changes(mqp):
    """Once the queue manager has stopped, changing commands are refused; DISPLAY works."""
    mqp.qmgr.stop()
    refused(mqp, "ZMQSC DEF QL-A", "STOPPED")
    refused(mqp, "ZMQSC START QMGR", "STOPPED")
    assert "STOPPED" in ok(mqp, "ZMQSC DISP QMGR")


def test_qmgr_verbs_take_no_operands(mqp):
    """START/STOP QMGR with an operand are refused."""
    refused(mqp, "ZMQSC STOP QMGR NOW")
    assert not getattr(mqp, "stop_requested", False)


def test_unquoted_names_are_upper_cased_and_quoted_keep_case(mqp):
    """An unquoted name is upper-cased; a quoted one keeps its case, and is another object."""
    ok(mqp, "ZMQSC DEF QL-app.in")
    ok(mqp, "ZMQSC DEF QL-'app.in'")
    names = {d.name for d in mqp.qmgr.catalog.list("QL")}
    assert {"APP.IN", "app.in"} <= names


@pytest.mark.parametrize("name", ["ALL", "A" * 49, "A*", "A#B"])
def test_bad_names_refused(mqp, name):
    """The reserved ALL, names over 48 characters and bad characters are refused."""
    refused(mqp, f"ZMQSC DEF QL-{name}", "QL ACCEPTS")


def test_name_of_48_and_lower_case_all(mqp):
    """48 characters are accepted, and a quoted lower-case 'all' is not the reserved ALL."""
    ok(mqp, f"ZMQSC DEF QL-{'Q' * 48}")
    ok(mqp, "ZMQSC DEF QL-'all'")


def test_trigger_switches(mqp):
    """TRIGGER/NOTRIGGER and TRIGGER-YES/-NO switch triggering; TRIGTYPE other than NONE
    turns it on unless NOTRIGGER is given, and TRIGTYPE-NONE turns it off."""
    trigger = lambda: mqp.qmgr.catalog.get("QL", "T").trigger  # noqa: E731
    ok(mqp, "ZMQSC DEF QL-T")
    assert trigger() == "NO"
    ok(mqp, "ZMQSC ALT QL-T TRIGGER")
    assert trigger() == "YES"
    ok(mqp, "ZMQSC ALT QL-T NOTRIGGER")
    assert trigger() == "NO"
    ok(mqp, "ZMQSC ALT QL-T TRIGGER-YES")
    assert trigger() == "YES"
    ok(mqp, "ZMQSC ALT QL-T TRIGGER-NO")
    assert trigger() == "NO"
    ok(mqp, "ZMQSC ALT QL-T TRIGTYPE-EVERY")
    assert trigger() == "YES"
    ok(mqp, "ZMQSC ALT QL-T TRIGTYPE-NONE")
    assert trigger() == "NO"
    ok(mqp, "ZMQSC ALT QL-T TRIGTYPE-DEPTH NOTRIGGER")
    assert trigger() == "NO" and mqp.qmgr.catalog.get("QL", "T").trigtype == "DEPTH"
    ok(mqp, "ZMQSC DEF QL-T2 TRIGTYPE-FIRST")
    assert mqp.qmgr.catalog.get("QL", "T2").trigger == "YES"


@pytest.mark.parametrize(
    ("operands", "words"),
    [
        ("TRIGGER NOTRIGGER", ("NOTRIGGER", "CONFLICTS")),
        ("TRIGGER TRIGGER", ("TRIGGER", "TWICE")),
        ("TRIGGER-YES NOTRIGGER", ("CONFLICTS",)),
        ("NOTRIGGER TRIGGER-YES", ("CONFLICTS",)),
        ("MAXDEPTH-5 MAXDEPTH-6", ("MAXDEPTH", "TWICE")),
        ("REPLACE REPLACE", ("REPLACE", "TWICE")),
        ("MAXDEPTH", ("MAXDEPTH", "NEEDS A VALUE", "0 to 999999999")),
        ("COLOUR-RED", ("COLOUR", "VALID KEYWORDS", "MAXDEPTH", "TRIGGER")),
    ],
)
def test_operand_errors(mqp, operands, words):
    """Contradictory, repeated, valueless and unknown operands are refused and named."""
    refused(mqp, f"ZMQSC DEF QL-T {operands}", *words)


def test_switches_belong_to_their_objects(mqp):
    """TRIGGER is a QL switch, and REPLACE a DEFINE switch."""
    refused(mqp, "ZMQSC DEF QA-A TARGQ-X TRIGGER", "TRIGGER", "VALID KEYWORDS")
    ok(mqp, "ZMQSC DEF QL-A")
    refused(mqp, "ZMQSC ALT QL-A REPLACE", "REPLACE")


def test_every_response_line_is_a_console_message(mqp):
    """Every line of every response starts with an identifier and the processor ID."""
    commands = ["DEF QL-A", "DISP QL-*", "DISP Q", "DISP QMGR", "DISP MQP", "ALT QL-A GET-X",
                "CLEAR QL-A", "DEL QL-A", "SWQ QL-A QL-B", "START CHL-X"]
    for command in commands:
        ids(mqp.console(f"ZMQSC {command}"))


def test_internal_errors_are_answered(mqp, monkeypatch):
    """A defect inside a verb is answered with MQSC0099E rather than raised."""
    monkeypatch.setattr(mqp.qmgr.catalog, "list", lambda *a: 1 / 0)
    response = mqp.console("ZMQSC DISP QL-*")
    assert ids(response) == [m.INTERNAL.id] and "ZeroDivisionError" in response
    assert severity(response) == "E"
