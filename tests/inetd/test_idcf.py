"""Server definitions (tpfemu's IDCF): value rules, model combinations, the JSON file."""

import json

import pytest

from tpfemu.inetd import idcf
from tpfemu.inetd.idcf import ServerDef, check_field


def test_defaults_of_a_definition():
    """A definition needs a name, port and program; the rest defaults (NOWAIT, loopback)."""
    d = ServerDef("MQS", 1414, "CMQL")
    assert (d.protocol, d.model, d.aorl, d.act, d.state) == ("TCP", "NOWAIT", None, "OPER", "NORM")
    assert (d.ip, d.maxproc, d.timeout) == ("127.0.0.1", idcf.DEFAULT_MAXPROC, 60)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "", "S- is 1-10"),
        ("name", "ABCDEFGHIJK", "S- is 1-10"),
        ("name", "A.B", "S- is 1-10"),
        ("protocol", "UDP", "UDP servers are not supported"),
        ("model", "AOA", "MODEL- is WAIT or NOWAIT or AOR"),
        ("port", -1, "PORT- is a number 0-65535"),
        ("port", 65536, "PORT- is a number 0-65535"),
        ("port", "1414", "PORT- is a number"),
        ("pgm", "1ABC", "PGM- is a 4-character"),
        ("pgm", "ABC", "PGM- is a 4-character"),
        ("aorl", 0, "AORL- is a number 1-32767"),
        ("aorl", 32768, "AORL- is a number 1-32767"),
        ("procid", "AB", "PROCID- is a processor ID"),
        ("act", "ON", "ACT- is AUTO or OPER"),
        ("state", "ACT", "STATE- is CRAS or NORM"),
        ("maxproc", 0, "MAXPROC- is a number 1-999"),
        ("maxproc", 1000, "MAXPROC- is a number 1-999"),
        ("ip", "256.1.1.1", "IP- is an IPv4 or IPv6 address"),
        ("timeout", 86401, "TIMEOUT- is a number 0-86400"),
    ],
)
def test_check_field_rejects_with_the_rule(field, value, message):
    """Every out-of-range or malformed value is refused with the keyword's rule."""
    with pytest.raises(ValueError, match=message):
        check_field(field, value)


def test_check_field_normalises_ip_addresses():
    """IP addresses are kept in canonical form (IPv6 compressed and lower-case)."""
    assert check_field("ip", "0:0:0:0:0:0:0:1") == "::1"
    assert check_field("ip", "127.0.0.1") == "127.0.0.1"


def test_model_combinations_are_checked():
    """AORL- is required with and only valid with MODEL-AOR; MODEL-WAIT has MAXPROC 1."""
    with pytest.raises(ValueError, match="AORL- is required"):
        ServerDef("S", 1, "PGMA", model="AOR")
    with pytest.raises(ValueError, match="only with MODEL-AOR"):
        ServerDef("S", 1, "PGMA", aorl=8)
    with pytest.raises(ValueError, match="MAXPROC- is 1 with MODEL-WAIT"):
        ServerDef("S", 1, "PGMA", model="WAIT", maxproc=2)
    assert ServerDef("S", 1, "PGMA", model="WAIT", maxproc=1).maxproc == 1


def test_save_and_load_round_trip(tmp_path):
    """Definitions written by save() are read back equal by load(), with no temp files left."""
    path = tmp_path / idcf.FILE_NAME
    servers = {
        "MQS": ServerDef("MQS", 1414, "CMQL", model="AOR", aorl=8, act="AUTO"),
        "WEB": ServerDef("WEB", 8080, "WEB1", ip="::1", maxproc=5, procid="C"),
    }
    idcf.save(path, servers)
    assert idcf.load(path, print, "B") == servers
    assert sorted(p.name for p in tmp_path.iterdir()) == [idcf.FILE_NAME]
    assert json.loads(path.read_text())["format"] == "tpfemu-zinet"


def test_load_of_a_missing_file_is_empty(tmp_path):
    """No file means no definitions and no console message."""
    said = []
    assert idcf.load(tmp_path / "zinet.json", said.append, "B") == {}
    assert said == []


def test_a_corrupt_file_is_reported_and_kept_aside(tmp_path):
    """An unusable file is reported (INET0091E) and renamed .corrupt, not overwritten later."""
    path = tmp_path / idcf.FILE_NAME
    path.write_text("{not json")
    said = []
    assert idcf.load(path, said.append, "B") == {}
    assert said and said[0].startswith("INET0091E B")
    assert (tmp_path / "zinet.json.corrupt").read_text() == "{not json"
    assert not path.exists()


def test_an_invalid_entry_is_skipped(tmp_path):
    """One invalid server in the file is reported (INET0092E) and the others load."""
    path = tmp_path / idcf.FILE_NAME
    good = ServerDef("GOOD", 1, "PGMA").to_json()
    bad = {**good, "name": "BAD", "port": 70000}
    path.write_text(json.dumps({"format": "tpfemu-zinet", "version": 1, "servers": [good, bad]}))
    said = []
    assert list(idcf.load(path, said.append, "B")) == ["GOOD"]
    assert len(said) == 1 and said[0].startswith("INET0092E B")
