"""CMQC: IBM's names and numbers, defined once, and every reason code printable by name.

Expected values are typed here from the reference (shared/reference/mq-semantics.md, which
cites cmqc.h as transcribed in pymqi's CMQC.py), independently of tpfemu/mqi/CMQC.py.
"""

import ast
from pathlib import Path

import pytest

from tpfemu import _lowlevel, errors
from tpfemu.mq import cmqc as CMQC

# mq-semantics.md section 2: the reason codes an emulator must return
REFERENCE_REASONS = {
    "NONE": 0, "ALREADY_CONNECTED": 2002, "BACKED_OUT": 2003, "BUFFER_LENGTH_ERROR": 2005,
    "CONNECTION_BROKEN": 2009, "DATA_LENGTH_ERROR": 2010, "EXPIRY_ERROR": 2013,
    "FEEDBACK_ERROR": 2014, "GET_INHIBITED": 2016, "HANDLE_NOT_AVAILABLE": 2017,
    "HCONN_ERROR": 2018, "HOBJ_ERROR": 2019, "SYNCPOINT_LIMIT_REACHED": 2024,
    "MD_ERROR": 2026, "MISSING_REPLY_TO_Q": 2027, "MSG_TYPE_ERROR": 2029,
    "MSG_TOO_BIG_FOR_Q": 2030, "MSG_TOO_BIG_FOR_Q_MGR": 2031, "NO_MSG_AVAILABLE": 2033,
    "NO_MSG_UNDER_CURSOR": 2034, "NOT_AUTHORIZED": 2035, "NOT_OPEN_FOR_BROWSE": 2036,
    "NOT_OPEN_FOR_INPUT": 2037, "NOT_OPEN_FOR_INQUIRE": 2038, "NOT_OPEN_FOR_OUTPUT": 2039,
    "NOT_OPEN_FOR_SET": 2040, "OBJECT_CHANGED": 2041, "OBJECT_IN_USE": 2042,
    "OBJECT_TYPE_ERROR": 2043, "OD_ERROR": 2044, "OPTION_NOT_VALID_FOR_TYPE": 2045,
    "OPTIONS_ERROR": 2046, "PERSISTENCE_ERROR": 2047, "PERSISTENT_NOT_ALLOWED": 2048,
    "PRIORITY_EXCEEDS_MAXIMUM": 2049, "PRIORITY_ERROR": 2050, "PUT_INHIBITED": 2051,
    "Q_DELETED": 2052, "Q_FULL": 2053, "Q_NOT_EMPTY": 2055, "Q_SPACE_NOT_AVAILABLE": 2056,
    "Q_TYPE_ERROR": 2057, "Q_MGR_NAME_ERROR": 2058, "Q_MGR_NOT_AVAILABLE": 2059,
    "REPORT_OPTIONS_ERROR": 2061, "SELECTOR_ERROR": 2067, "SELECTOR_NOT_FOR_TYPE": 2068,
    "STORAGE_NOT_AVAILABLE": 2071, "SYNCPOINT_NOT_AVAILABLE": 2072,
    "TRIGGER_CONTROL_ERROR": 2075, "TRIGGER_DEPTH_ERROR": 2076,
    "TRIGGER_MSG_PRIORITY_ERR": 2077, "TRIGGER_TYPE_ERROR": 2078,
    "TRUNCATED_MSG_ACCEPTED": 2079, "TRUNCATED_MSG_FAILED": 2080,
    "UNKNOWN_ALIAS_BASE_Q": 2082, "UNKNOWN_OBJECT_NAME": 2085, "UNKNOWN_OBJECT_Q_MGR": 2086,
    "UNKNOWN_REMOTE_Q_MGR": 2087, "WAIT_INTERVAL_ERROR": 2090, "XMIT_Q_TYPE_ERROR": 2091,
    "XMIT_Q_USAGE_ERROR": 2092, "OBJECT_DAMAGED": 2101, "RESOURCE_PROBLEM": 2102,
    "FORMAT_ERROR": 2110, "NOT_CONVERTED": 2119, "CONVERTED_MSG_TOO_BIG": 2120,
    "TRUNCATED": 2120, "OUTCOME_MIXED": 2123, "OUTCOME_PENDING": 2124,
    "UOW_IN_PROGRESS": 2128, "DLH_ERROR": 2141, "OBJECT_NAME_ERROR": 2152,
    "Q_MGR_QUIESCING": 2161, "Q_MGR_STOPPING": 2162, "PMO_ERROR": 2173,
    "INCONSISTENT_PERSISTENCE": 2185, "GMO_ERROR": 2186, "TMC_ERROR": 2191,
    "STORAGE_MEDIUM_FULL": 2192, "PAGESET_FULL": 2192, "UNEXPECTED_ERROR": 2195,
    "UNKNOWN_XMIT_Q": 2196, "UNKNOWN_DEF_XMIT_Q": 2197, "MSG_ID_ERROR": 2206,
    "CORREL_ID_ERROR": 2207, "NO_MSG_LOCKED": 2209, "UNIT_OF_WORK_NOT_STARTED": 2232,
    "INVALID_MSG_UNDER_CURSOR": 2246, "MATCH_OPTIONS_ERROR": 2247,
    "WRONG_GMO_VERSION": 2256, "WRONG_MD_VERSION": 2257, "XQH_ERROR": 2260,
    "TM_ERROR": 2265, "BACKOUT_THRESHOLD_REACHED": 2362, "NOT_CONNECTED": 6124,
}  # fmt: skip

# mq-semantics.md sections 1, 3 and 4: options, descriptor values, selectors
REFERENCE_VALUES = {
    "MQCC_OK": 0, "MQCC_WARNING": 1, "MQCC_FAILED": 2, "MQCC_UNKNOWN": -1,
    "MQOO_INPUT_AS_Q_DEF": 0x1, "MQOO_INPUT_SHARED": 0x2, "MQOO_INPUT_EXCLUSIVE": 0x4,
    "MQOO_BROWSE": 0x8, "MQOO_OUTPUT": 0x10, "MQOO_INQUIRE": 0x20, "MQOO_SET": 0x40,
    "MQOO_SAVE_ALL_CONTEXT": 0x80, "MQOO_PASS_IDENTITY_CONTEXT": 0x100,
    "MQOO_PASS_ALL_CONTEXT": 0x200, "MQOO_SET_IDENTITY_CONTEXT": 0x400,
    "MQOO_SET_ALL_CONTEXT": 0x800, "MQOO_ALTERNATE_USER_AUTHORITY": 0x1000,
    "MQOO_FAIL_IF_QUIESCING": 0x2000, "MQOO_BIND_ON_OPEN": 0x4000,
    "MQOO_BIND_NOT_FIXED": 0x8000, "MQOO_CO_OP": 0x20000, "MQOO_RESOLVE_LOCAL_Q": 0x40000,
    "MQOO_NO_READ_AHEAD": 0x80000, "MQOO_READ_AHEAD": 0x100000,
    "MQOO_NO_MULTICAST": 0x200000, "MQOO_BIND_ON_GROUP": 0x400000,
    "MQCO_NONE": 0, "MQCO_DELETE": 1, "MQCO_DELETE_PURGE": 2, "MQCO_KEEP_SUB": 4,
    "MQCO_REMOVE_SUB": 8, "MQCO_QUIESCE": 0x20,
    "MQGMO_NO_WAIT": 0, "MQGMO_NONE": 0, "MQGMO_WAIT": 0x1, "MQGMO_SYNCPOINT": 0x2,
    "MQGMO_NO_SYNCPOINT": 0x4, "MQGMO_SET_SIGNAL": 0x8, "MQGMO_BROWSE_FIRST": 0x10,
    "MQGMO_BROWSE_NEXT": 0x20, "MQGMO_ACCEPT_TRUNCATED_MSG": 0x40,
    "MQGMO_MARK_SKIP_BACKOUT": 0x80, "MQGMO_MSG_UNDER_CURSOR": 0x100, "MQGMO_LOCK": 0x200,
    "MQGMO_UNLOCK": 0x400, "MQGMO_BROWSE_MSG_UNDER_CURSOR": 0x800,
    "MQGMO_SYNCPOINT_IF_PERSISTENT": 0x1000, "MQGMO_FAIL_IF_QUIESCING": 0x2000,
    "MQGMO_CONVERT": 0x4000, "MQGMO_LOGICAL_ORDER": 0x8000, "MQGMO_COMPLETE_MSG": 0x10000,
    "MQGMO_ALL_MSGS_AVAILABLE": 0x20000, "MQGMO_ALL_SEGMENTS_AVAILABLE": 0x40000,
    "MQGMO_MARK_BROWSE_HANDLE": 0x100000, "MQGMO_NO_PROPERTIES": 0x4000000,
    "MQWI_UNLIMITED": -1,
    "MQMO_NONE": 0, "MQMO_MATCH_MSG_ID": 0x1, "MQMO_MATCH_CORREL_ID": 0x2,
    "MQMO_MATCH_GROUP_ID": 0x4, "MQMO_MATCH_MSG_SEQ_NUMBER": 0x8, "MQMO_MATCH_OFFSET": 0x10,
    "MQMO_MATCH_MSG_TOKEN": 0x20,
    "MQPMO_NONE": 0, "MQPMO_SYNCPOINT": 0x2, "MQPMO_NO_SYNCPOINT": 0x4,
    "MQPMO_DEFAULT_CONTEXT": 0x20, "MQPMO_NEW_MSG_ID": 0x40, "MQPMO_NEW_CORREL_ID": 0x80,
    "MQPMO_PASS_IDENTITY_CONTEXT": 0x100, "MQPMO_PASS_ALL_CONTEXT": 0x200,
    "MQPMO_SET_IDENTITY_CONTEXT": 0x400, "MQPMO_SET_ALL_CONTEXT": 0x800,
    "MQPMO_ALTERNATE_USER_AUTHORITY": 0x1000, "MQPMO_FAIL_IF_QUIESCING": 0x2000,
    "MQPMO_NO_CONTEXT": 0x4000, "MQPMO_LOGICAL_ORDER": 0x8000,
    "MQPMO_ASYNC_RESPONSE": 0x10000, "MQPMO_SYNC_RESPONSE": 0x20000,
    "MQPMO_RESOLVE_LOCAL_Q": 0x40000, "MQPMO_RETAIN": 0x200000,
    "MQPMO_MD_FOR_OUTPUT_ONLY": 0x800000,
    "MQOT_Q": 1, "MQOT_NAMELIST": 2, "MQOT_PROCESS": 3, "MQOT_Q_MGR": 5, "MQOT_CHANNEL": 6,
    "MQQT_LOCAL": 1, "MQQT_MODEL": 2, "MQQT_ALIAS": 3, "MQQT_REMOTE": 6, "MQQT_CLUSTER": 7,
    "MQHC_DEF_HCONN": 0, "MQHC_UNUSABLE_HCONN": -1, "MQHO_NONE": 0, "MQHO_UNUSABLE_HOBJ": -1,
    "MQMT_REQUEST": 1, "MQMT_REPLY": 2, "MQMT_REPORT": 4, "MQMT_DATAGRAM": 8,
    "MQMT_APPL_FIRST": 65536, "MQMT_APPL_LAST": 999999999,
    "MQPER_NOT_PERSISTENT": 0, "MQPER_PERSISTENT": 1, "MQPER_PERSISTENCE_AS_Q_DEF": 2,
    "MQPRI_PRIORITY_AS_Q_DEF": -1, "MQPRI_PRIORITY_AS_PARENT": -2,
    "MQPRI_PRIORITY_AS_PUBLISHED": -3, "MQEI_UNLIMITED": -1,
    "MQENC_NATIVE": 546, "MQENC_NORMAL": 0x111, "MQENC_REVERSED": 0x222, "MQENC_S390": 0x311,
    "MQCCSI_Q_MGR": 0, "MQCCSI_DEFAULT": 0, "MQCCSI_INHERIT": -2, "MQCCSI_APPL": -3,
    "MQRO_NONE": 0, "MQRO_EXCEPTION": 0x01000000, "MQRO_EXCEPTION_WITH_DATA": 0x03000000,
    "MQRO_EXCEPTION_WITH_FULL_DATA": 0x07000000, "MQRO_EXPIRATION": 0x00200000,
    "MQRO_EXPIRATION_WITH_DATA": 0x00600000, "MQRO_EXPIRATION_WITH_FULL_DATA": 0x00E00000,
    "MQRO_COA": 0x100, "MQRO_COA_WITH_DATA": 0x300, "MQRO_COA_WITH_FULL_DATA": 0x700,
    "MQRO_COD": 0x800, "MQRO_COD_WITH_DATA": 0x1800, "MQRO_COD_WITH_FULL_DATA": 0x3800,
    "MQRO_PAN": 0x1, "MQRO_NAN": 0x2, "MQRO_ACTIVITY": 0x4, "MQRO_NEW_MSG_ID": 0,
    "MQRO_PASS_MSG_ID": 0x80, "MQRO_COPY_MSG_ID_TO_CORREL_ID": 0, "MQRO_PASS_CORREL_ID": 0x40,
    "MQRO_DEAD_LETTER_Q": 0, "MQRO_DISCARD_MSG": 0x08000000,
    "MQRO_PASS_DISCARD_AND_EXPIRY": 0x4000, "MQRO_REJECT_UNSUP_MASK": 0x101C0000,
    "MQRO_ACCEPT_UNSUP_MASK": 0xEFE000FF - (1 << 32),
    "MQRO_ACCEPT_UNSUP_IF_XMIT_MASK": 0x0003FF00,
    "MQFB_NONE": 0, "MQFB_QUIT": 256, "MQFB_EXPIRATION": 258, "MQFB_COA": 259,
    "MQFB_COD": 260, "MQFB_CHANNEL_COMPLETED": 262, "MQFB_CHANNEL_FAIL_RETRY": 263,
    "MQFB_CHANNEL_FAIL": 264, "MQFB_APPL_CANNOT_BE_STARTED": 265, "MQFB_TM_ERROR": 266,
    "MQFB_APPL_TYPE_ERROR": 267, "MQFB_STOPPED_BY_MSG_EXIT": 268,
    "MQFB_XMIT_Q_MSG_ERROR": 271, "MQFB_PAN": 275, "MQFB_NAN": 276,
    "MQFB_SYSTEM_FIRST": 1, "MQFB_SYSTEM_LAST": 65535, "MQFB_APPL_FIRST": 65536,
    "MQFB_APPL_LAST": 999999999,
    "MQAT_UNKNOWN": -1, "MQAT_NO_CONTEXT": 0, "MQAT_CICS": 1, "MQAT_ZOS": 2, "MQAT_IMS": 3,
    "MQAT_UNIX": 6, "MQAT_QMGR": 7, "MQAT_OS400": 8, "MQAT_WINDOWS": 9,
    "MQAT_WINDOWS_NT": 11, "MQAT_TPF": 23, "MQAT_USER": 25, "MQAT_JAVA": 28, "MQAT_DQM": 29,
    "MQAT_CHANNEL_INITIATOR": 30, "MQAT_DEFAULT": 6,  # MQAT_UNIX on Linux
    "MQMF_NONE": 0, "MQOL_UNDEFINED": -1,
    "MQIA_DEF_PERSISTENCE": 5, "MQIA_DEF_PRIORITY": 6, "MQIA_MAX_Q_DEPTH": 15,
    "MQIA_MAX_MSG_LENGTH": 13, "MQIA_MSG_DELIVERY_SEQUENCE": 16, "MQIA_TRIGGER_CONTROL": 24,
    "MQIA_TRIGGER_TYPE": 28, "MQIA_TRIGGER_DEPTH": 29, "MQIA_TRIGGER_MSG_PRIORITY": 26,
    "MQIA_USAGE": 12, "MQIA_INHIBIT_GET": 9, "MQIA_INHIBIT_PUT": 10,
    "MQIA_CURRENT_Q_DEPTH": 3, "MQIA_OPEN_INPUT_COUNT": 17, "MQIA_OPEN_OUTPUT_COUNT": 18,
    "MQIA_Q_DEPTH_HIGH_LIMIT": 40, "MQIA_Q_DEPTH_HIGH_EVENT": 43,
    "MQIA_Q_DEPTH_LOW_LIMIT": 41, "MQIA_Q_DEPTH_LOW_EVENT": 44, "MQIA_Q_DEPTH_MAX_EVENT": 42,
    "MQIA_BACKOUT_THRESHOLD": 22, "MQIA_HARDEN_GET_BACKOUT": 8, "MQIA_DEF_BIND": 61,
    "MQIA_DEF_INPUT_OPEN_OPTION": 4, "MQIA_SHAREABILITY": 23, "MQIA_DEFINITION_TYPE": 7,
    "MQIA_Q_TYPE": 20, "MQIA_TRIGGER_INTERVAL": 25, "MQIA_EXPIRY_INTERVAL": 39,
    "MQIA_MAX_UNCOMMITTED_MSGS": 33, "MQIA_MAX_PRIORITY": 14, "MQIA_MAX_HANDLES": 11,
    "MQIA_SYNCPOINT": 30, "MQIA_CODED_CHAR_SET_ID": 2, "MQIA_COMMAND_LEVEL": 31,
    "MQIA_APPL_TYPE": 1,
    "MQCA_Q_NAME": 2016, "MQCA_INITIATION_Q_NAME": 2008, "MQCA_PROCESS_NAME": 2012,
    "MQCA_TRIGGER_DATA": 2023, "MQCA_BACKOUT_REQ_Q_NAME": 2019, "MQCA_Q_DESC": 2013,
    "MQCA_BASE_Q_NAME": 2002, "MQCA_XMIT_Q_NAME": 2024, "MQCA_REMOTE_Q_NAME": 2018,
    "MQCA_REMOTE_Q_MGR_NAME": 2017, "MQCA_DEAD_LETTER_Q_NAME": 2006,
    "MQCA_Q_MGR_NAME": 2015, "MQCA_APPL_ID": 2001, "MQCA_ENV_DATA": 2007,
    "MQCA_USER_DATA": 2021, "MQCA_PROCESS_DESC": 2011,
    "MQMDS_PRIORITY": 0, "MQMDS_FIFO": 1, "MQTC_OFF": 0, "MQTC_ON": 1, "MQTT_NONE": 0,
    "MQTT_FIRST": 1, "MQTT_EVERY": 2, "MQTT_DEPTH": 3, "MQUS_NORMAL": 0,
    "MQUS_TRANSMISSION": 1, "MQQA_GET_ALLOWED": 0, "MQQA_GET_INHIBITED": 1,
    "MQQA_PUT_ALLOWED": 0, "MQQA_PUT_INHIBITED": 1, "MQQA_SHAREABLE": 1,
    "MQQA_NOT_SHAREABLE": 0, "MQQA_BACKOUT_HARDENED": 1, "MQQA_BACKOUT_NOT_HARDENED": 0,
    "MQBND_BIND_ON_OPEN": 0, "MQBND_BIND_NOT_FIXED": 1, "MQBND_BIND_ON_GROUP": 2,
    "MQSP_AVAILABLE": 1,
    "MQ_Q_NAME_LENGTH": 48, "MQ_Q_MGR_NAME_LENGTH": 48, "MQ_PROCESS_NAME_LENGTH": 48,
    "MQ_PROCESS_APPL_ID_LENGTH": 256, "MQ_PROCESS_ENV_DATA_LENGTH": 128,
    "MQ_PROCESS_USER_DATA_LENGTH": 128, "MQ_TRIGGER_DATA_LENGTH": 64, "MQ_FORMAT_LENGTH": 8,
    "MQ_MSG_ID_LENGTH": 24, "MQ_CORREL_ID_LENGTH": 24, "MQ_GROUP_ID_LENGTH": 24,
    "MQ_CHANNEL_NAME_LENGTH": 20, "MQ_PUT_APPL_NAME_LENGTH": 28,
    "MQMD_VERSION_1": 1, "MQMD_VERSION_2": 2, "MQMD_CURRENT_VERSION": 2,
    "MQGMO_VERSION_4": 4, "MQPMO_VERSION_3": 3, "MQOD_VERSION_4": 4, "MQTM_VERSION_1": 1,
    "MQXQH_VERSION_1": 1, "MQDLH_VERSION_1": 1,
    "MQMD_LENGTH_1": 324, "MQMD_LENGTH_2": 364, "MQTM_LENGTH_1": 684,
    "MQTMC2_LENGTH_1": 684, "MQTMC2_LENGTH_2": 732, "MQXQH_LENGTH_1": 428,
    "MQDLH_LENGTH_1": 172, "MQGMO_LENGTH_1": 72, "MQGMO_LENGTH_2": 80,
    "MQGMO_LENGTH_3": 100, "MQGMO_LENGTH_4": 112, "MQPMO_LENGTH_1": 128,
    "MQPMO_LENGTH_2": 152, "MQPMO_LENGTH_3": 176, "MQOD_LENGTH_1": 168,
    "MQOD_LENGTH_2": 200, "MQOD_LENGTH_3": 336, "MQOD_LENGTH_4": 400,
}  # fmt: skip

REFERENCE_BYTES = {
    "MQMD_STRUC_ID": b"MD  ", "MQGMO_STRUC_ID": b"GMO ", "MQPMO_STRUC_ID": b"PMO ",
    "MQOD_STRUC_ID": b"OD  ", "MQTM_STRUC_ID": b"TM  ", "MQTMC_STRUC_ID": b"TMC ",
    "MQXQH_STRUC_ID": b"XQH ", "MQDLH_STRUC_ID": b"DLH ", "MQCNO_STRUC_ID": b"CNO ",
    "MQTMC_VERSION_1": b"   1", "MQTMC_VERSION_2": b"   2",
    "MQFMT_NONE": b"        ", "MQFMT_STRING": b"MQSTR   ", "MQFMT_TRIGGER": b"MQTRIG  ",
    "MQFMT_XMIT_Q_HEADER": b"MQXMIT  ", "MQFMT_DEAD_LETTER_HEADER": b"MQDEAD  ",
    "MQMI_NONE": b"\0" * 24, "MQCI_NONE": b"\0" * 24, "MQGI_NONE": b"\0" * 24,
    "MQACT_NONE": b"\0" * 32, "MQCI_NEW_SESSION": b"AMQ!NEW_SESSION_CORRELID",
}  # fmt: skip

CORE_TABLES = {"MQRC": _lowlevel.MQRC, "MQGMO": _lowlevel.MQGMO, "MQMO": _lowlevel.MQMO,
               "other": _lowlevel.MQ_OTHER}


@pytest.mark.parametrize("name", sorted(REFERENCE_REASONS))
def test_reference_reason_codes(name):
    """Every reason code of the reference table exists with IBM's number."""
    assert getattr(CMQC, "MQRC_" + name) == REFERENCE_REASONS[name]


@pytest.mark.parametrize("name", sorted(REFERENCE_VALUES))
def test_reference_values(name):
    """Options, descriptor values, selectors, versions and lengths have IBM's numbers."""
    assert getattr(CMQC, name) == REFERENCE_VALUES[name]


@pytest.mark.parametrize("name", sorted(REFERENCE_BYTES))
def test_character_constants_are_bytes(name):
    """Identifiers, formats and null ids are bytes of their exact field length, as pymqi."""
    value = getattr(CMQC, name)
    assert type(value) is bytes and value == REFERENCE_BYTES[name]


def test_every_format_fills_the_format_field():
    """Each MQFMT_* is 8 bytes, blank-padded ASCII, and MQFMT_NONE is all blanks."""
    formats = {n: v for n, v in vars(CMQC).items() if n.startswith("MQFMT_")}
    assert len(formats) > 15
    for name, value in formats.items():
        assert len(value) == CMQC.MQ_FORMAT_LENGTH, name
        assert value.decode("ascii") == value.decode("ascii").rstrip().ljust(8), name


@pytest.mark.parametrize("table", sorted(CORE_TABLES))
def test_core_constants_agree(table):
    """Every constant the compiled core defines is in CMQC with the core's value."""
    core = CORE_TABLES[table]
    assert core, f"the core exports no {table} constants"
    for name, value in core.items():
        assert getattr(CMQC, name) == value, name


def _names_in_source() -> list[str]:
    """Every name CMQC's source defines: assignments and the entries of _define tables."""
    names = []
    for node in ast.walk(ast.parse(Path(CMQC.__file__).read_text())):
        if isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_define":
            prefix, table = node.args
            if isinstance(table, ast.Dict):
                names += [prefix.value + key.value for key in table.keys]
    return names


def test_core_constants_are_not_redefined():
    """CMQC's source never spells a core constant again: the core defines it, once."""
    names = set(_names_in_source())
    assert "MQRC_Q_MGR_NAME_ERROR" in names and "MQGMO_WAIT" in names  # the parse sees tables
    for table in CORE_TABLES.values():
        assert not names & set(table)


def test_no_constant_is_defined_twice():
    """Every name appears once in CMQC's source."""
    names = [n for n in _names_in_source() if n.startswith("MQ")]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


def test_conflicting_redefinition_is_refused():
    """Defining a known name with another number fails instead of shadowing IBM's value."""
    with pytest.raises(RuntimeError, match="MQRC_Q_FULL"):
        CMQC._define("MQRC_", {"Q_FULL": 9999})
    assert CMQC.MQRC_Q_FULL == 2053


def test_every_reason_code_prints_its_mnemonic():
    """Each MQRC_* number is registered: errors name it with an MQRC mnemonic of that value."""
    reasons = {n: v for n, v in vars(CMQC).items() if n.startswith("MQRC_")}
    reasons.pop("MQRC_APPL_FIRST")
    reasons.pop("MQRC_APPL_LAST")
    assert len(reasons) > 250
    for name, value in reasons.items():
        mnemonic = errors.reason_name(value)
        assert mnemonic.startswith("MQRC_"), name
        assert getattr(CMQC, mnemonic) == value, name
    assert set(CMQC.REASONS) == set(reasons)


def test_aliases_print_the_primary_mnemonic():
    """Numbers with two names print IBM's primary one."""
    assert errors.reason_name(2120) == "MQRC_CONVERTED_MSG_TOO_BIG"
    assert errors.reason_name(2192) == "MQRC_STORAGE_MEDIUM_FULL"
    assert "MQRC_Q_FULL" in str(errors.error_for(CMQC.MQRC_Q_FULL, call="MQPUT"))


def test_errors_print_mnemonics_of_codes_the_core_never_returns():
    """An MQMIError for a reason only CMQC knows prints its name, not a bare number."""
    error = errors.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME, call="MQOPEN")
    assert "Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME" in str(error)
    assert error.errorAsString().endswith("FAILED: MQRC_UNKNOWN_OBJECT_NAME")


def test_pymqi_style_import():
    """``import tpfemu.mqi as pymqi`` exposes CMQC and the structures by pymqi's names."""
    import tpfemu.mqi as pymqi

    public = {k: v for k, v in vars(CMQC).items() if k.startswith("MQ")}
    assert public and all(getattr(pymqi.CMQC, k) == v for k, v in public.items())
    assert {"MD", "GMO", "PMO", "OD", "TM", "TMC2", "XQH", "DLH", "MQMIError"} <= set(
        pymqi.__all__
    )
    assert pymqi.MQMIError is errors.MQMIError
