"""The ZMQSC console messages: every message identifier, defined once.

A TPF console message starts with its identifier — four letters, four digits and a
severity letter (``I`` information, ``W`` warning, ``E`` error: the command was refused
and nothing changed) — then the processor ID, then the text::

    MQSC0010I B QL APP.IN DEFINED
    MQSC0012E B DEFINE QL A REFUSED: MAXDEPTH 'TEN' is not valid. MAXDEPTH ACCEPTS 0 to 999999999

Each message is a :class:`Msg` in :data:`MESSAGES`, made with :func:`_msg`, which refuses
a number used twice. ``docs/console.md`` lists them all (a test checks that it does).
TPF's own identifiers for these responses were not found (tpf-facts §2.1); the ``MQSC``
prefix and the numbers are ours. Numbers 0900-0999 belong to messages the queue manager
itself writes to the console (expiry scan, dead letters, triggers, trigger monitor); they
are listed in the documentation but defined where they are issued.

Fixed text is upper case, as on TPF; values the operator typed are shown as typed
(quoted text keeps its case). Control characters in values are shown as ``?`` so that a
message is always one line, and a value longer than 64 characters is shortened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MESSAGES", "Msg", "MESSAGE_ID", "shorten"]

PREFIX = "MQSC"
#: What every response line starts with: the identifier and the processor ID.
MESSAGE_ID = re.compile(r"^[A-Z]{4}\d{4}[IWE] [A-Z] ")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")
_MAX_VALUE = 64
_MAX_DETAIL = 200  # the "detail" field: a sentence that may quote a value
#: Fields that are lists the console makes itself (never operator text): shown whole.
_WHOLE = frozenset({"verbs", "objects", "valid", "accepted", "accepts", "types", "row"})

MESSAGES: dict[str, Msg] = {}  # identifier -> message
_NUMBERS: set[int] = set()


def shorten(value: object, limit: int = _MAX_VALUE) -> str:
    """``value`` as one short line: control characters as ``?``, at most ``limit`` chars."""
    text = _CONTROL.sub("?", str(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Msg:
    """One console message: identifier, severity, text template and what it means.

    ``template`` is a :meth:`str.format` template; every field is shortened by
    :func:`shorten` before it is put in (``detail`` to 200 characters, others to 64),
    except lists the console makes itself (valid keywords, accepted values, display rows).
    """

    number: int
    severity: str
    template: str
    explanation: str

    @property
    def id(self) -> str:
        """The identifier, e.g. ``MQSC0012E``."""
        return f"{PREFIX}{self.number:04d}{self.severity}"

    def line(self, cpu: str, /, **fields: object) -> str:
        """The message as one console line for processor ``cpu``."""
        values = {
            key: _CONTROL.sub("?", str(v)) if key in _WHOLE
            else shorten(v, _MAX_DETAIL if key == "detail" else _MAX_VALUE)
            for key, v in fields.items()
        }
        return f"{self.id} {cpu} {self.template.format(**values)}"


def _msg(number: int, severity: str, template: str, explanation: str) -> Msg:
    if number in _NUMBERS:
        raise ValueError(f"console message number {number} is defined twice")
    if severity not in ("I", "W", "E"):
        raise ValueError(f"severity must be I, W or E, not {severity!r}")
    msg = Msg(number, severity, template, explanation)
    _NUMBERS.add(number)
    MESSAGES[msg.id] = msg
    return msg


# -- the command line ------------------------------------------------------------------------

EMPTY = _msg(1, "E", "NO ZMQSC COMMAND GIVEN - ENTER ZMQSC <VERB> <OBJECT>-<NAME> ...; "
             "VERBS ARE {verbs}",
             "ZMQSC was entered without a verb.")
UNKNOWN_VERB = _msg(2, "E", "UNKNOWN VERB {verb} - VERBS ARE {verbs}",
                    "The first word after ZMQSC is not a verb (or abbreviation) ZMQSC knows.")
UNKNOWN_OBJECT = _msg(3, "E", "{verb} CANNOT ACT ON {obj} - {verb} TAKES {objects}",
                      "The object type is unknown, or the verb does not apply to it.")
SYNTAX = _msg(4, "E", "SYNTAX ERROR AT {token} - {problem}",
              "A token could not be read: an unterminated quote, text after a closing "
              "quote, a keyword with no value, a control character. The token is shown "
              "as typed.")
UNKNOWN_KEYWORD = _msg(5, "E", "{keyword} IS NOT A {verb} {obj} KEYWORD - VALID KEYWORDS "
                       "ARE {valid}",
                       "The keyword does not belong to this verb and object type.")
DUPLICATE = _msg(6, "E", "{keyword} IS GIVEN TWICE",
                 "A keyword (or a switch like TRIGGER/NOTRIGGER) appears more than once.")
NAME_NEEDED = _msg(7, "E", "{verb} {obj} NEEDS A NAME: {obj}-<NAME> ({rule})",
                   "The object was given without a name where one is required.")
NOTHING = _msg(8, "E", "{verb} {obj} {name} HAS NOTHING TO CHANGE - GIVE KEYWORD-VALUE; "
               "VALID KEYWORDS ARE {valid}",
               "ALTER was entered without any keyword.")
CONFLICT = _msg(9, "E", "{keyword} CONFLICTS WITH {other}",
                "Two operands contradict each other (e.g. TRIGGER and NOTRIGGER).")
VALUE_NEEDED = _msg(19, "E", "{keyword} NEEDS A VALUE: {keyword}-<VALUE> ({accepted})",
                    "A keyword was given without its value.")
NO_NAME_ALLOWED = _msg(25, "E", "{verb} {obj} TAKES NO NAME ({token})",
                       "QMGR takes no name (the queue manager is the one running here).")

# -- definitions -------------------------------------------------------------------------------

DEFINED = _msg(10, "I", "{obj} {name} DEFINED", "DEFINE made the object.")
ALTERED = _msg(11, "I", "{obj} {name} ALTERED", "ALTER changed the object.")
REFUSED = _msg(12, "E", "{verb} {obj} {name} REFUSED: {detail}{accepts}",
               "The catalog refused the command; the text names the keyword at fault and "
               "what it accepts. Nothing was changed.")
DELETED = _msg(13, "I", "{obj} {name} DELETED", "DELETE removed the object.")
DELETED_PURGED = _msg(26, "I", "QL {name} DELETED - {count} MESSAGE(S) PURGED",
                      "DELETE QL ... PURGE removed the queue and the committed messages it "
                      "held.")
REPLACED = _msg(14, "I", "{obj} {name} REPLACED",
                "DEFINE ... REPLACE redefined an existing object (attributes not given take "
                "their defaults; a local queue keeps its messages).")
NOT_FOUND = _msg(15, "E", "{obj} {name} NOT FOUND{hint}",
                 "No object of that type and name is defined (MQRC_UNKNOWN_OBJECT_NAME).")
NOT_DONE = _msg(16, "E", "{verb} {obj} {name} NOT DONE: {detail}",
                "The queue manager refused the change (for example the object is in use). "
                "Nothing was changed.")
PROFILE_DEFINED = _msg(17, "I", "MQP {name} DEFINED - DEAD.LETTER.QUEUE AND "
                       "SPECIAL.RECOVERY.QUEUE CREATED",
                       "The profile was defined, and with it the two queues TPF creates.")
DONE_WITH_ERROR = _msg(18, "W", "{verb} {obj} {name} DONE, BUT {detail}",
                       "The change was made but a component reacting to it failed.")
IN_SWING = _msg(24, "E", "{verb} {obj} {name} REFUSED: {detail}",
                "The queue takes part in a transmission-queue swing (SWQ); end the swing "
                "first (ZMQSC SWQ QL-<name>).")

# -- display -----------------------------------------------------------------------------------

DISPLAY_HEAD = _msg(20, "I", "{obj} {name}", "First line of one object's display.")
DISPLAY_ROW = _msg(21, "I", "  {row}", "One row of a display: attribute names and values, "
                   "aligned in two columns; long values have a row of their own.")
DISPLAY_COUNT = _msg(22, "I", "{count} {obj} OBJECT(S) DISPLAYED",
                     "Last line of a generic DISPLAY: how many objects matched.")
NONE_MATCH = _msg(23, "W", "NO {obj} MATCHES {pattern}",
                  "A generic DISPLAY matched no object.")

# -- CLEAR -------------------------------------------------------------------------------------

CLEARED = _msg(30, "I", "QL {name} CLEARED - {count} MESSAGE(S) REMOVED",
               "CLEAR QL removed every committed message not held by a unit of work.")
CLEARED_PART = _msg(31, "W", "QL {name} CLEARED - {count} MESSAGE(S) REMOVED, {left} LEFT "
                    "(HELD BY UNITS OF WORK)",
                    "Messages inside open units of work cannot be cleared. CLEAR is refused "
                    "(MQSC0032E) while any is held, so this appears only when another "
                    "processor starts one on a shared queue while the CLEAR runs.")
CLEAR_REFUSED = _msg(32, "E", "CLEAR QL {name} REFUSED ({reason}): {detail}",
                     "The queue is in use, as IBM refuses CLEAR QLOCAL: a handle has it "
                     "open (MQRC_OBJECT_IN_USE; a browse lock belongs to such a handle), or "
                     "a unit of work holds a put or a get of it (MQRC_Q_NOT_EMPTY). Nothing "
                     "was removed.")

# -- the queue manager -------------------------------------------------------------------------

QMGR_ACTIVE = _msg(40, "I", "QUEUE MANAGER {name} IS ACTIVE ON CPU {cpu}{note}",
                   "START QMGR: the queue manager runs (a pending stop request is cancelled).")
QMGR_STOPPING = _msg(41, "I", "STOP QMGR ACCEPTED - QUEUE MANAGER {name} STOPS WHEN THIS "
                     "CONSOLE SESSION ENDS",
                     "STOP QMGR was recorded; the tpfemu command line ends the session and "
                     "stops the system.")
QMGR_DOWN = _msg(42, "E", "QUEUE MANAGER {name} IS STOPPED - START THE SYSTEM AGAIN",
                 "The queue manager has stopped; it is restarted with the system.")

# -- SWQ -----------------------------------------------------------------------------------------

SWUNG = _msg(50, "I", "SWQ {source} TO {target} - {count} MESSAGE(S) MOVED; NEW PUTS FOR "
             "{source} GO TO {target}",
             "Every message of the first transmission queue was moved to the second, in "
             "order, and puts that resolve to the first now go to the second.")
SWUNG_PART = _msg(51, "W", "SWQ {source} TO {target} - {count} MESSAGE(S) MOVED, {left} LEFT "
                  "ON {source}: {reason}",
                  "Some messages could not be moved yet (inside units of work, or the target "
                  "is full); they are moved when they can be, while the swing lasts.")
SWQ_REFUSED = _msg(52, "E", "SWQ {source} REFUSED: {detail}",
                   "The swing was refused; nothing was moved or routed.")
SWQ_ENDED = _msg(53, "I", "SWQ {source} ENDED - PUTS FOR {source} NO LONGER GO TO {target}",
                 "ZMQSC SWQ QL-<name> with one queue ends that queue's swing.")

# -- channels ------------------------------------------------------------------------------------

CHL_RECORDED = _msg(60, "I", "CHL {name} {verb} REQUEST RECORDED{detail} - NO CHANNEL AGENTS "
                    "RUN ON THIS PROCESSOR",
                    "The channel request was validated and recorded, but this console's "
                    "processor runs no channel agents to carry it out (a queue manager "
                    "without a System); the console says so rather than pretend.")
CHL_WRONG_TYPE = _msg(61, "E", "{verb} CHL {name} REFUSED: NOT VALID FOR CHLTYPE {chltype} - "
                      "{verb} IS FOR {types}",
                      "The verb does not apply to this type of channel.")
CHL_REFUSED = _msg(62, "E", "{verb} CHL {name} REFUSED: {detail}",
                   "The channel request failed validation (transmission queue, processor, "
                   "operands); nothing was recorded.")
CHL_DONE = _msg(63, "I", "CHL {name} {verb}{detail}: {result}",
                "START/STOP/RESET/RESOLVE CHL was carried out by the channel's agent.")

# -- depth monitor -------------------------------------------------------------------------------

DEPTH_HIGH = _msg(70, "W", "QL {name} DEPTH {depth} IS ABOVE QDEPTHHI {percent}% OF MAXDEPTH "
                  "{maxdepth} ({limit}) - THE QUEUE MAY BE STALLED",
                  "A processor-unique queue's depth passed QDEPTHHI percent of MAXDEPTH; "
                  "repeated every QDT seconds while it stays above.")
DEPTH_OK = _msg(71, "I", "QL {name} DEPTH {depth} IS BACK AT OR BELOW QDEPTHHI {percent}% OF "
                "MAXDEPTH {maxdepth} ({limit})",
                "The queue's depth dropped back; the warnings stop.")
MONITOR_FAILED = _msg(72, "E", "DEPTH MONITOR CHECK FAILED: {detail}",
                      "An unexpected error in the depth monitor; it keeps running.")

# -- last resort -----------------------------------------------------------------------------------

TRIGMON_STARTED = _msg(80, "I", "TRIGGER MONITOR FOR INITIATION QUEUE {name} STARTED",
                       "START TRIGMON: a trigger monitor now serves the initiation queue "
                       "(IBM's runmqtrm): it starts the process programs, or CUIR, as entries.")
TRIGMON_STOPPED = _msg(81, "I", "TRIGGER MONITOR FOR INITIATION QUEUE {name} STOPPED - "
                       "{count} ENTRIES STARTED",
                       "STOP TRIGMON: the monitor closed the initiation queue.")
TRIGMON_REFUSED = _msg(82, "E", "{verb} TRIGMON {name} REFUSED: {detail}",
                       "The initiation queue cannot be opened, a monitor already serves it, "
                       "or none does.")
TRIGMON_LIST = _msg(83, "I", "TRIGMON {name} RUNNING - {count} ENTRIES STARTED",
                    "DISPLAY TRIGMON: one line per running trigger monitor.")
TRIGMON_NONE = _msg(84, "I", "NO TRIGGER MONITOR IS RUNNING",
                    "DISPLAY TRIGMON when none runs.")
# -- ZBRDG: the ROUTC bridge's LNIATA table and WGTA (ours; docs/bridge.md) --------------------

BRIDGE_SYNTAX = _msg(140, "E", "ZBRDG {problem} - VERBS ARE {verbs}",
                     "The ZBRDG command could not be read: no verb, an unknown verb or "
                     "keyword, a token that is not KEYWORD-VALUE, a keyword given twice. "
                     "Nothing changed.")
BRIDGE_REFUSED = _msg(141, "E", "ZBRDG {verb} REFUSED: {detail}",
                      "A value is not valid (the text names it), or the table could not be "
                      "saved. Nothing changed.")
BRIDGE_DEFINED = _msg(142, "I", "LNIATA {lniata} DEFINED",
                      "DEF made (or redefined) the terminal's WGTA entry.")
BRIDGE_ALTERED = _msg(143, "I", "LNIATA {lniata} ALTERED", "ALT changed the terminal.")
BRIDGE_DELETED = _msg(144, "I", "LNIATA {lniata} DELETED",
                      "DEL removed the terminal, its routes and its log.")
BRIDGE_NOT_FOUND = _msg(145, "E", "LNIATA {lniata} NOT FOUND",
                        "No terminal has that LNIATA in the WGTA.")
BRIDGE_ROW = _msg(146, "I", "  {row}", "One row of a ZBRDG display.")
BRIDGE_COUNT = _msg(147, "I", "{count} TERMINAL(S) DISPLAYED",
                    "Last line of ZBRDG DISP: how many terminals the WGTA holds.")
BRIDGE_POOL = _msg(148, "I", "POOL FIRST-{first} COUNT-{count} APPL-{application} - "
                   "{allocated} ALLOCATED",
                   "The default allocation CUIW uses when no route matches.")
BRIDGE_LOG = _msg(149, "I", "TERMINAL {lniata} LOG - {count} MESSAGE(S)",
                  "ZBRDG LOG: the messages ROUTC sent to an ordinary terminal follow, one "
                  "row each, oldest first, as EBCDIC text.")
BRIDGE_LOG_CLEARED = _msg(150, "I", "TERMINAL {lniata} LOG CLEARED - {count} MESSAGE(S) "
                          "REMOVED", "ZBRDG LOG ... CLEAR-YES emptied the terminal's log.")
BRIDGE_DOWN = _msg(151, "E", "THE ROUTC BRIDGE IS NOT RUNNING - START THE SYSTEM",
                   "The system has not started (or has stopped) its bridge.")
BRIDGE_TERMINAL = _msg(152, "I", "LNIATA {lniata}",
                       "First line of one terminal's display; rows follow.")
INTERNAL = _msg(99, "E", "COMMAND FAILED ON AN INTERNAL ERROR: {detail}",
                "A defect in tpfemu; the command may not have been carried out. Please "
                "report it with the command.")

#: Messages the queue manager writes itself (defined where they are issued): id -> meaning.
QMGR_MESSAGES = {
    "MQSC0900E": "the expiry scan failed (it keeps running)",
    "MQSC0901W": "an undeliverable message (report) could not be dead-lettered and was dropped",
    "MQSC0910E": "a trigger message could not be put on the initiation queue",
    "MQSC0911E": "a trigger could not start its program: no dispatcher",
    "MQSC0912E": "a trigger could not start its program: the program is not loaded",
    "MQSC0920E": "the trigger monitor failed to start a program",
    "MQSC0921W": "the trigger monitor found a message that is not an MQTM (dead-lettered)",
    "MQSC0930E": "the SWQ forwarder failed to move messages of a swung queue (it keeps running)",
    # the ROUTC bridge (tpfemu.bridge.bridge.MESSAGES)
    "MQSC0940E": "the ROUTC bridge refused a message too long for one AM0SG block",
    "MQSC0941E": "CUIW failed; the bridged message went to the dead-letter queue",
    "MQSC0942E": "CUIW assigned no LNIATA; the message went to the dead-letter queue",
    "MQSC0943E": "COA4 found no application; the message went to the dead-letter queue",
    "MQSC0944E": "a ROUTC reply could not be put; it went to the dead-letter queue",
    "MQSC0945E": "a bridged message or reply could not be dead-lettered and is lost",
    "MQSC0946E": "the ROUTC bridge refused a persistent message",
    "MQSC0947E": "the ROUTC bridge's table (with its counts) could not be saved at stop",
}
