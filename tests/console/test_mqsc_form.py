"""MQSC-style commands (runmqsc's syntax) answered with their ZMQSC form
(tpfemu.console.mqsc)."""

from __future__ import annotations

import pytest
from console_helpers import ids, ok

from tpfemu.console.mqsc import zmqsc_form


@pytest.mark.parametrize(("mqsc", "form"), [
    ("DEFINE QLOCAL(APP.IN) MAXDEPTH(100) DESCR('Payroll input')",
     "ZMQSC DEF QL-APP.IN MAXDEPTH-100 DESCR-'Payroll input'"),
    ("DIS QL(APP.*)", "ZMQSC DISP QL-APP.*"),
    ("dis q(app.in)", "ZMQSC DISP Q-APP.IN"),
    ("ALTER QLOCAL(A) NOTRIGGER", "ZMQSC ALT QL-A NOTRIGGER"),
    ("DELETE QALIAS(A)", "ZMQSC DEL QA-A"),
    ("DELETE QLOCAL(A) PURGE", "ZMQSC DEL QL-A PURGE"),
    ("DEFINE PROCESS(P) APPLID(QZZ1) REPLACE", "ZMQSC DEF PROC-P APPLID-QZZ1 REPLACE"),
    ("DEFINE CHANNEL(TO.NY) CHLTYPE(SDR) CONNAME('ny(1414)') XMITQ(XQ)",
     "ZMQSC DEF CHL-TO.NY CHLTYPE-SDR CONNAME-'ny(1414)' XMITQ-XQ"),
    ("STA CHANNEL(TO.NY)", "ZMQSC START CHL-TO.NY"),
    ("DISPLAY QMGR", "ZMQSC DISPLAY QMGR"),
    ("ALTER QMGR DEADQ(DLQ)", "ZMQSC ALT MQP DEADQ-DLQ"),
    ("CLEAR QLOCAL(A)", "ZMQSC CLEAR QL-A"),
    ("ZMQSC DIS QL(A)", "ZMQSC DISP QL-A"),
    ("disp ql-app.in", "ZMQSC disp ql-app.in"),
    ("DEF QL-A DESCR-'x y'", "ZMQSC DEF QL-A DESCR-'x y'"),
    ("DEF QL-A MAXDEPTH-5", "ZMQSC DEF QL-A MAXDEPTH-5"),
])
def test_mqsc_commands_translate_to_their_zmqsc_form(mqsc, form):
    """Each MQSC form maps onto the ZMQSC verb, object type and KEYWORD-value operands."""
    assert zmqsc_form(mqsc) == form


@pytest.mark.parametrize("text", ["HELLO WORLD", "DEFINE", "DEFINE FOO(X)", "DIS QL(A",
                                  "", "ZMQSC"])
def test_text_that_is_not_mqsc_has_no_form(text):
    """Unknown verbs or object types, and unbalanced parentheses, give no translation."""
    assert zmqsc_form(text) is None


def test_an_mqsc_command_is_answered_not_run_and_its_form_does_the_same(mqp):
    """The console refuses the MQSC form with the ZMQSC command, changing nothing; that
    command, entered, defines what the MQSC one asked for."""
    response = mqp.console("DEFINE QLOCAL(APP.IN) MAXDEPTH(100)")
    assert ids(response) == ["CONS0003E"]
    assert mqp.qmgr.catalog.find_queue("APP.IN") is None
    form = response.split("THE ZMQSC FORM IS: ", 1)[1]
    ok(mqp, form)
    assert mqp.qmgr.catalog.get("QL", "APP.IN").maxdepth == 100


@pytest.mark.parametrize(("mqsc", "attribute", "value"), [
    ("DEFINE PROCESS(P) APPLICID(QZZ1) ENVRDATA('env x')", "applid", "QZZ1"),
    ("DEFINE PROCESS(P) APPLICID(QZZ1) ENVRDATA('env x')", "envdata", "env x"),
    ("DEFINE QALIAS(AL) TARGET(APP.IN)", "targq", "APP.IN"),
    ("DEFINE CHANNEL(TO.NY) CHLTYPE(SDR) CONNAME(NY) XMITQ(XQ) NPMSPEED(FAST)",
     "speed", "FAST"),
])
def test_mqsc_keyword_spellings_become_the_zmqsc_keywords(mqp, mqsc, attribute, value):
    """IBM MQSC's APPLICID, ENVRDATA (DEFINE PROCESS), TARGET (DEFINE QALIAS) and NPMSPEED
    (DEFINE CHANNEL) are the attributes ZMQSC calls APPLID, ENVDATA, TARGQ and SPEED: the
    hint names those, and entered it defines what the MQSC command asked for."""
    response = mqp.console(mqsc)
    assert ids(response) == ["CONS0003E"]
    form = response.split("THE ZMQSC FORM IS: ", 1)[1]
    ok(mqp, form)
    obj, name = form.split()[2].split("-", 1)
    assert getattr(mqp.qmgr.catalog.get(obj, name), attribute) == value


def test_a_zmqsc_command_written_with_parentheses_gets_the_hint_after_its_error(mqp):
    """ZMQSC DIS QL(X): the syntax error, then the ZMQSC form on a second line."""
    response = mqp.console("ZMQSC DIS QL(X)")
    assert ids(response) == ["MQSC0004E", "CONS0003E"]
    assert response.endswith("ZMQSC DISP QL-X")
