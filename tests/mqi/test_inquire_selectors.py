"""MQINQ with a list of selectors, MQSET with a dict, and the selectors IBM documents for
MQINQ that TPF's definitions do not hold (issue 26).

Facts (IBM MQINQ, q101840_; ibmmq's mqinq.py): a list of selectors returns a dict
selector -> value; MQSET takes a dict {selector: value} (or one pair); MQSET changes all
or nothing; a character value longer than the attribute is MQRC_CHAR_ATTR_LENGTH_ERROR
(2006). Queue-manager selectors MQCA_VERSION (MQ_VERSION_LENGTH 8, digits VVRRMMFF),
MQIA_COMMAND_LEVEL, MQIA_PLATFORM, MQIA_CODED_CHAR_SET_ID; queue selectors
MQCA_BACKOUT_REQ_Q_NAME and MQIA_BACKOUT_THRESHOLD (local queues: blank and 0 by
default), MQIA_DEF_BIND (every queue type), and a local-only one on an alias completes
MQCC_WARNING 2068.
"""

from __future__ import annotations

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr.attributes import version_string


def test_queue_manager_documented_selectors(qm, qmgr):
    """The queue manager answers MQCA_VERSION, COMMAND_LEVEL, PLATFORM, CCSID and the
    event switches (no longer 2067)."""
    attrs = qm.inquire([CMQC.MQCA_VERSION, CMQC.MQIA_COMMAND_LEVEL, CMQC.MQIA_PLATFORM,
                        CMQC.MQIA_CODED_CHAR_SET_ID, CMQC.MQIA_INHIBIT_EVENT,
                        CMQC.MQIA_DIST_LISTS, CMQC.MQCA_Q_MGR_IDENTIFIER])
    assert attrs == {
        CMQC.MQCA_VERSION: version_string().encode(),
        CMQC.MQIA_COMMAND_LEVEL: CMQC.MQCMDL_LEVEL_530,
        CMQC.MQIA_PLATFORM: CMQC.MQPL_TPF,
        CMQC.MQIA_CODED_CHAR_SET_ID: 1208,
        CMQC.MQIA_INHIBIT_EVENT: CMQC.MQEVR_DISABLED,
        CMQC.MQIA_DIST_LISTS: CMQC.MQDL_NOT_SUPPORTED,
        CMQC.MQCA_Q_MGR_IDENTIFIER: qmgr.name.encode().ljust(48),
    }


def test_version_string_is_ibm_shaped():
    """MQCA_VERSION is eight digits VVRRMMFF from tpfemu's version (0.1.0: 00010000)."""
    import tpfemu

    text = version_string()
    assert len(text) == 8 and text.isdigit()
    major, minor, patch = (int(p) for p in tpfemu.__version__.split(".")[:3])
    assert text == f"{major:02d}{minor:02d}{patch:02d}00"


def test_queue_documented_selectors_on_a_local_queue(qm, local_queue):
    """A local queue answers its backout, shareability and binding selectors with IBM's
    defaults."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert q.inquire([CMQC.MQCA_BACKOUT_REQ_Q_NAME, CMQC.MQIA_BACKOUT_THRESHOLD,
                      CMQC.MQIA_HARDEN_GET_BACKOUT, CMQC.MQIA_SHAREABILITY,
                      CMQC.MQIA_DEF_INPUT_OPEN_OPTION, CMQC.MQIA_DEF_BIND,
                      CMQC.MQIA_DEFINITION_TYPE]) == {
        CMQC.MQCA_BACKOUT_REQ_Q_NAME: b" " * 48,
        CMQC.MQIA_BACKOUT_THRESHOLD: 0,
        CMQC.MQIA_HARDEN_GET_BACKOUT: CMQC.MQQA_BACKOUT_NOT_HARDENED,
        CMQC.MQIA_SHAREABILITY: CMQC.MQQA_SHAREABLE,
        CMQC.MQIA_DEF_INPUT_OPEN_OPTION: CMQC.MQOO_INPUT_SHARED,
        CMQC.MQIA_DEF_BIND: CMQC.MQBND_BIND_ON_OPEN,
        CMQC.MQIA_DEFINITION_TYPE: CMQC.MQQDT_PREDEFINED,
    }
    q.close()


def test_local_only_documented_selector_on_alias_warns_2068(qmgr, qm, local_queue):
    """MQCA_BACKOUT_REQ_Q_NAME on an alias completes MQCC_WARNING 2068; MQIA_DEF_BIND,
    which aliases have, is answered."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    q = pymqi.Queue(qm, "AQ", CMQC.MQOO_INQUIRE)
    assert q.inquire(CMQC.MQIA_DEF_BIND) == CMQC.MQBND_BIND_ON_OPEN
    with raises_mq(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, comp=CMQC.MQCC_WARNING):
        q.inquire(CMQC.MQCA_BACKOUT_REQ_Q_NAME)
    q.close()


def test_queue_manager_selector_on_queue_still_fails_2067(qm, local_queue):
    """MQCA_VERSION is the queue manager's: on a queue it fails 2067."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        q.inquire([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_VERSION])
    q.close()


def test_inquire_empty_list_fails_selector_count(qm, local_queue):
    """An empty list of selectors fails MQRC_SELECTOR_COUNT_ERROR (2065)."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    with raises_mq(CMQC.MQRC_SELECTOR_COUNT_ERROR):
        q.inquire([])
    q.close()


def test_set_dict_is_one_change(qmgr, qm, local_queue, monkeypatch):
    """set({...}) with trigger type, depth and data changes the definition once (one ALTER
    of the catalog), all of them."""
    alters = []
    real_alter = qmgr.catalog.alter

    def counting_alter(*args, **kwargs):
        alters.append(kwargs)
        return real_alter(*args, **kwargs)

    monkeypatch.setattr(qmgr.catalog, "alter", counting_alter)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    q.set({CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_DEPTH, CMQC.MQIA_TRIGGER_DEPTH: 5,
           CMQC.MQCA_TRIGGER_DATA: "hello"})
    q.close()
    d = qmgr.catalog.get("QL", local_queue)
    assert (d.trigtype, d.trigdpth, d.trigdata) == ("DEPTH", 5, "hello")
    assert alters == [{"trigtype": "DEPTH", "trigdpth": 5, "trigdata": "hello"}]


@pytest.mark.parametrize(("bad", "reason"), [
    ({CMQC.MQIA_TRIGGER_DEPTH: 0}, CMQC.MQRC_TRIGGER_DEPTH_ERROR),
    ({CMQC.MQIA_MAX_Q_DEPTH: 9}, CMQC.MQRC_SELECTOR_ERROR),
    ({CMQC.MQCA_TRIGGER_DATA: b"x" * 65}, CMQC.MQRC_CHAR_ATTR_LENGTH_ERROR),
])
def test_set_dict_with_one_bad_entry_changes_nothing(qmgr, qm, local_queue, bad, reason):
    """One refused selector or value in a set({...}) fails with its reason and leaves every
    attribute as it was, the good ones included."""
    before = qmgr.catalog.get("QL", local_queue)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    with raises_mq(reason):
        q.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED, **bad})
    q.close()
    assert qmgr.catalog.get("QL", local_queue) == before


def test_set_dict_with_a_value_too_is_a_type_error(qm, local_queue):
    """set({...}, value) mixes the two forms: a TypeError, nothing set."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    with pytest.raises(TypeError):
        q.set({CMQC.MQIA_INHIBIT_PUT: 1}, 1)
    q.close()
