"""The client's reading of an MQPUT or MQGET reply: a reply whose structures come back
at the StrucIds and Versions they were sent with is read at the request's offsets; any
other layout is read by message_parts, and the caller's structures end as unpack of the
reply's bytes gives them either way."""

import pytest
from svrconn_system import connect_client, serving

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC, client
from tpfemu.wire.fap import SegmentType as T
from tpfemu.wire.fap.verbs import API_HEADER_SIZE, message_segment, reply_parts

QUEUE = "LAYOUT.Q"
MD1, GMO1 = pymqi.MD().pack(), pymqi.GMO().pack()
DATA = b"the message"


def _body(md: bytes, gmo: bytes, data: bytes = DATA, length: int | None = None) -> bytes:
    """An MQGET reply body in our form (TSHM cut off) with these structures and data."""
    segment = message_segment(T.MQGET_REPLY, 3, 1, (0, 0, 0, 5), md + gmo,
                              len(data) if length is None else length, data)
    return segment[36:]


def _as_sent(body: bytes, md: bytes = MD1, gmo: bytes = GMO1) -> bool:
    return reply_parts(body, md, gmo) is not None


def test_a_reply_laid_out_as_sent_is_read_at_the_requests_offsets():
    """A reply with the sent StrucIds and Versions and a DataLength matching its data
    is taken as laid out as the request."""
    assert _as_sent(_body(MD1, GMO1))
    assert _as_sent(_body(MD1, GMO1, b""))


def test_a_reply_read_at_the_requests_offsets_gives_its_parts():
    """reply_parts gives the reply's CompCode and Reason, each structure that did not
    come back as sent (None for one that did) and the data."""
    md_back = pymqi.MD(Priority=7).pack()
    body = bytearray(_body(md_back, GMO1))
    body[4:12] = (1).to_bytes(4, "little") + (2079).to_bytes(4, "little")
    assert reply_parts(bytes(body), MD1, GMO1) == (1, 2079, md_back, None, DATA)
    assert reply_parts(_body(MD1, GMO1), MD1, GMO1) == (0, 0, None, None, DATA)
    with pytest.raises(TypeError):
        reply_parts(bytearray(body), MD1, GMO1)


@pytest.mark.parametrize("case", ["md version", "gmo version", "long data", "short data",
                                  "cut"])
def test_any_other_reply_layout_is_left_to_message_parts(case):
    """A reply whose MQMD or MQGMO came back at another Version, whose DataLength is not
    its data's length, or that ends inside its structures is not taken as laid out as
    the request (message_parts reads it, or refuses it)."""
    md2, gmo2 = pymqi.MD(Version=2).pack(), pymqi.GMO(Version=2).pack()
    body = {"md version": _body(md2, GMO1), "gmo version": _body(MD1, gmo2),
            "long data": _body(MD1, GMO1, length=len(DATA) + 1),
            "short data": _body(MD1, GMO1, length=len(DATA) - 1),
            "cut": _body(MD1, GMO1)[:API_HEADER_SIZE + len(MD1) + 8]}[case]
    assert not _as_sent(body)


@pytest.fixture
def client_queue():
    """A queue opened for put and get by a client over APP.SVRCONN (a System in this
    process, its listener on a loopback port)."""
    with serving("RL", QUEUE) as system:
        qm = connect_client(system)
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        yield q
        q.close()
        qm.disconnect()


def test_a_reply_md_of_another_version_fills_the_callers_md_as_unpack_gives_it(
        client_queue, monkeypatch):
    """An MQGET reply carrying its MQMD at Version 2 for a Version 1 request (another
    layout than the request's) still gives the message, and the caller's MD holds what
    unpack of the reply's MQMD gives: Version 2, the MsgId of the put."""
    put_md = pymqi.MD()
    client_queue.put(DATA, put_md)
    real = client.exchange_message
    seen = []

    def md_at_version_2(fd, kind, *args):
        got = real(fd, kind, *args)
        if kind != T.MQGET or type(got) is not bytes:
            return got
        md = pymqi.MD().unpack(got[API_HEADER_SIZE:API_HEADER_SIZE + len(MD1)])
        md.Version = 2
        upgraded = got[:API_HEADER_SIZE] + md.pack() + got[API_HEADER_SIZE + len(MD1):]
        seen.append(upgraded)
        return upgraded

    monkeypatch.setattr(client, "exchange_message", md_at_version_2)
    got_md, gmo = pymqi.MD(), pymqi.GMO()
    assert client_queue.get(None, got_md, gmo) == DATA
    assert len(seen) == 1
    md2_length = len(pymqi.MD(Version=2).pack())
    expected = pymqi.MD().unpack(seen[0][API_HEADER_SIZE:API_HEADER_SIZE + md2_length])
    assert got_md.Version == 2 and got_md == expected
    assert got_md.MsgId == put_md.MsgId
    assert gmo.ResolvedQName.rstrip() == QUEUE.encode()


def test_a_reply_laid_out_as_sent_fills_the_callers_structures_as_unpack_gives_them(
        client_queue, monkeypatch):
    """An MQGET reply laid out as its request fills the caller's MD and GMO with
    exactly what unpack of the reply's structures gives."""
    client_queue.put(DATA, pymqi.MD(Priority=4))
    real = client.exchange_message
    seen = []

    def kept(fd, kind, *args):
        got = real(fd, kind, *args)
        seen.append(got)
        return got

    monkeypatch.setattr(client, "exchange_message", kept)
    got_md, gmo = pymqi.MD(), pymqi.GMO()
    assert client_queue.get(None, got_md, gmo) == DATA
    opts_at = API_HEADER_SIZE + len(MD1)
    assert got_md == pymqi.MD().unpack(seen[0][API_HEADER_SIZE:opts_at])
    assert gmo == pymqi.GMO().unpack(seen[0][opts_at:opts_at + len(GMO1)])
    assert got_md.Priority == 4
