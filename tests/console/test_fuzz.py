"""Fuzzing the console: over 10 000 random and mutated ZMQSC lines.

Whatever the line, the console answers (it never raises), every response line is a console
message (``^[A-Z]{4}\\d{4}[IWE] [A-Z] ``), no line is an internal error, and a refused
command (one with an E line) leaves the catalog — definitions, swings and channel
requests — exactly as it was.
"""

from __future__ import annotations

import random
import string
import time

from console_helpers import LINE
from hypothesis import given, settings
from hypothesis import strategies as st

from tpfemu.console import messages as m
from tpfemu.console.parser import VERB_OBJECTS, VERBS
from tpfemu.qmgr.objects import DEFINITION_TYPES
from tpfemu.system import System

NAMES = ["A", "B", "APP.IN", "XQ1", "XQ2", "A", "B", "XQ1", "'low.case'", "ALL",
         "DEAD.LETTER.QUEUE", "Q" * 49]
QUEUES = ["A", "B", "APP.IN", "XQ1", "XQ2"]


def _value(spec, rng: random.Random) -> str:
    """A value for an attribute: mostly good, sometimes past the edges."""
    wrong = rng.random() < 0.08
    if spec.kind in ("int", "appltype") and (spec.kind == "int" or rng.random() < 0.3):
        if wrong:
            return rng.choice([str(spec.high + 1), "TEN", str(spec.low - 1)])
        return str(rng.choice([spec.low, (spec.low + spec.high) // 2, min(spec.high, 9)]))
    if spec.kind in ("enum", "appltype"):
        return "BOGUS" if wrong else rng.choice(spec.values).lower()
    if spec.kind == "text":
        if wrong:
            return "'" + "x" * (spec.max_len + 1) + "'"
        return rng.choice(["''", "'Mixed text'", "PLAIN", "QZZ1"])
    return "A#B" if wrong else rng.choice(QUEUES + ["APP.PROC", "''", "QM2"])


def valid_line(rng: random.Random) -> str:
    """A plausible ZMQSC command: right shape, values mostly right."""
    roll = rng.random()
    if roll < 0.04:
        return rng.choice(["ZMQSC DEF MQP", "ZMQSC DEF MQP REPLACE QDT-5", "ZMQSC DEL MQP",
                           "ZMQSC DISP QMGR", "ZMQSC STOP QMGR", "ZMQSC START QMGR"])
    if roll < 0.10:
        source, target = rng.choice(QUEUES), rng.choice(QUEUES)
        return rng.choice([f"ZMQSC SWQ QL-{source} QL-{target}", f"ZMQSC SWQ QL-{source}"])
    if roll < 0.16:
        verb = rng.choice(["START", "STOP", "RESET", "RESOLVE"])
        extra = rng.choice(["", "MODE-FORCE", "SEQNUM-7", "ACTION-COMMIT", "SEQNUM-0"])
        return f"ZMQSC {verb} CHL-{rng.choice(['C1', 'C2', 'C3'])} {extra}"
    if roll < 0.22:
        return f"ZMQSC CLEAR QL-{rng.choice(QUEUES)}"
    obj = rng.choice(["QL", "QL", "QA", "QR", "PROC", "CHL"])
    name = rng.choice(["C1", "C2", "C3"]) if obj == "CHL" else rng.choice(NAMES)
    verb = rng.choice(["DEF", "DEF", "ALT", "DEL", "DISP", "DEFINE", "DISPLAY"])
    if verb in ("DISP", "DISPLAY"):
        return f"ZMQSC {verb} {rng.choice([obj, 'Q'])}-{rng.choice([name, '*', 'A*', 'X*Y', 'Z*'])}"
    if verb == "DEL":
        return f"ZMQSC DEL {obj}-{name}"
    required = {"QA": ["TARGQ-APP.IN"], "QR": ["RQMNAME-QM2"], "PROC": ["APPLID-QZZ1"],
                "CHL": ["CHLTYPE-SDR", "CONNAME-H", "XMITQ-XQ1"]}.get(obj, [])
    specs = [spec for spec in DEFINITION_TYPES[obj].ATTRS.values()
             if not any(r.startswith(spec.keyword + "-") for r in required)
             and spec.keyword not in ("CPU", "APPLTYPE")]
    chosen = rng.sample(specs, k=min(len(specs), rng.randint(0, 3)))
    operands = ([] if verb == "ALT" else required) + [
        f"{spec.keyword}-{_value(spec, rng)}" for spec in chosen]
    if obj == "QL" and rng.random() < 0.2:
        operands.append(rng.choice(["TRIGGER", "NOTRIGGER"]))
    if verb != "ALT" and rng.random() < 0.5:
        operands.append("REPLACE")
    return f"ZMQSC {verb} {obj}-{name} " + " ".join(operands)


_NOISE = string.printable + "'-*'' ÄЖ\u2028\x00\x7f"


def mutate(line: str, rng: random.Random) -> str:
    """The line with one to three random edits (characters, tokens, case, cuts)."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8)
        pos = rng.randrange(len(line) + 1)
        if op == 0:
            line = line[:pos] + rng.choice(_NOISE) + line[pos:]
        elif op == 1 and line:
            line = line[:pos] + line[pos + 1:]
        elif op == 2:
            line = line[:pos]
        elif op == 3:
            words = line.split()
            rng.shuffle(words)
            line = " ".join(words)
        elif op == 4:
            words = line.split()
            if words:
                words.insert(rng.randrange(len(words) + 1), rng.choice(words))
            line = " ".join(words)
        elif op == 5:
            line = line.swapcase()
        elif op == 6:
            line = line.replace("-", rng.choice(["", "--", " - ", "-'", "("]), 1)
        else:
            line = line[:pos] + rng.choice(["'", "''", " ", "-", "*"]) + line[pos:]
    return line


def state(system) -> tuple:
    """What a refused command must not change."""
    catalog = system.qmgr.catalog
    return (catalog.snapshot(), dict(catalog.xmitq_routes), dict(catalog.channel_requests))


def check(system, line: str) -> str:
    """Run one line through the console and check the rules; return the response."""
    before = state(system)
    response = system.console(line)
    lines = response.split("\n")
    assert lines and all(LINE.match(one) for one in lines), (line, response)
    assert not any(one.startswith(m.INTERNAL.id) for one in lines), (line, response)
    if any(one[8] == "E" for one in lines):
        assert state(system) == before, (line, response)
    return response


def test_ten_thousand_mutated_lines():
    """10 500 valid and mutated command lines: no exception, well-formed answers, and no
    refused command changes the catalog."""
    rng = random.Random(20240611)
    started = time.monotonic()
    severities = {"I": 0, "W": 0, "E": 0}
    with System.start(name="FUZZ1") as system:
        system.console("ZMQSC DEF MQP")
        for count in range(10_500):
            if count % 700 == 0:  # messages, so CLEAR, SWQ and DELETE meet full queues
                for name in QUEUES:
                    queue = system.qmgr.queues.get(name)
                    if queue is not None and not queue.deleted:
                        for _ in range(rng.randint(0, 3)):
                            queue.core.put(b"fuzz")
            line = valid_line(rng)
            if rng.random() < 0.7:
                line = mutate(line, rng)
            response = check(system, line)
            severities[response.split("\n")[0][8]] += 1
    assert time.monotonic() - started < 15
    # The mix reaches every outcome, so the rules above were tested on each.
    assert min(severities.values()) > 50, severities


_verbs = st.sampled_from(sorted(VERBS))
_objects = st.sampled_from(sorted({o for objs in VERB_OBJECTS.values() for o in objs}))
_keywords = st.sampled_from(sorted({spec.keyword for cls in DEFINITION_TYPES.values()
                                    for spec in cls.ATTRS.values()} | {"TRIGGER", "REPLACE"}))
_values = st.one_of(st.text(alphabet=string.ascii_letters + string.digits + ".*'%/ -", max_size=12),
                    st.integers(-5, 10**10).map(str))
_operand = st.one_of(_keywords, st.tuples(_keywords, _values).map(lambda kv: f"{kv[0]}-{kv[1]}"))
_structured = st.tuples(_verbs, _objects, st.sampled_from(["", "-A", "-XQ1", "-*", "-'q'"]),
                        st.lists(_operand, max_size=4)).map(
    lambda t: f"ZMQSC {t[0]} {t[1]}{t[2]} " + " ".join(t[3]))


def test_hypothesis_lines():
    """Hypothesis-made lines — free text and keyword soup — obey the same rules."""
    with System.start(name="FUZZ2") as system:
        system.console("ZMQSC DEF MQP")

        @settings(max_examples=1500, deadline=None, database=None)
        @given(st.one_of(_structured, st.text(max_size=60).map(lambda s: "ZMQSC " + s)))
        def run(line: str) -> None:
            check(system, line)

        run()
