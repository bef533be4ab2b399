"""ZINET: parsing, every verb and keyword, message format, persistence in the home."""

import itertools
import re
import socket

import pytest

import tpfemu
from tpfemu.console.zinet import start_auto

_names = itertools.count(1)
_LINE = re.compile(r"INET\d{4}[IWE] [A-Z] +\S.*")
SAMPLE = "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-1414 PGM-CMQL AORL-8"


def _start(home=None, cpu="B"):
    return tpfemu.System.start(name=f"ZINET{next(_names)}", home=home, cpu=cpu)


@pytest.fixture
def system():
    """A started System (unique name, no home), stopped afterwards."""
    running = _start()
    yield running
    running.stop(timeout=2.0)


def run(system, command):
    """Run a console command, check every response line's format, return the text."""
    response = system.console(command)
    for line in response.splitlines():
        assert _LINE.fullmatch(line), line
    return response


def display(system, name):
    """The DISPLAY text of one server."""
    return run(system, f"ZINET DISPLAY S-{name}")


def test_the_sample_command_is_accepted_as_written(system):
    """The issue's ZINET ADD example is accepted and DISPLAY shows every value it set."""
    assert run(system, SAMPLE) == "INET0001I B SERVER MQS ADDED"
    shown = display(system, "MQS")
    assert shown.splitlines()[0] == "INET0006I B SERVER MQS  INACTIVE"
    for cell in ("P-TCP", "MODEL-AOR", "PORT-1414", "PGM-CMQL", "AORL-8", "IP-127.0.0.1",
                 "PROCID-B", "ACT-OPER", "STATE-NORM", "MAXPROC-999", "BOUND--"):
        assert cell in shown
    assert shown.splitlines()[-1] == "INET0007I B 1 SERVER(S) DISPLAYED"


def test_display_block_is_aligned(system):
    """DISPLAY puts the KEYWORD-value cells of each server in aligned columns."""
    run(system, SAMPLE)
    rows = display(system, "MQS").splitlines()[1:-1]
    starts = {tuple(m.start() for m in re.finditer(r"(?<=  )[A-Z]+-", row)) for row in rows}
    columns = {positions[1] for positions in starts if len(positions) > 1}
    assert len(columns) == 1


def test_input_is_upper_cased_and_verbs_abbreviate(system):
    """Unquoted text is upper-cased; ALT, DEL and DISP are the short verbs."""
    assert run(system, "zinet add s-mqs port-1 pgm-cmql model-nowait").endswith("ADDED")
    assert "PGM-CMQL" in run(system, "ZINET DISP S-MQS")
    assert run(system, "ZINET ALT S-MQS PGM-CMQ2").endswith("ALTERED")
    assert run(system, "ZINET DEL S-MQS").endswith("DELETED")


@pytest.mark.parametrize(
    ("command", "code", "token"),
    [
        ("ZINET", "0010", "VERB MISSING"),
        ("ZINET FROB S-X", "0010", "'FROB'"),
        ("ZINET ADD S-X PORT1 PGM-ABCD", "0011", "'PORT1'"),
        ("ZINET ADD S-X PORT- PGM-ABCD", "0011", "'PORT-'"),
        ("ZINET ADD S-X PORT-1 PGM-ABCD COLOR-RED", "0012", "'COLOR-RED'"),
        ("ZINET DELETE S-X PORT-1", "0013", "'PORT-1'"),
        ("ZINET ADD S-X PORT-1 PORT-2 PGM-ABCD", "0014", "'PORT-2'"),
        ("ZINET ADD PORT-1 PGM-ABCD", "0016", "S- (SERVER NAME) REQUIRED"),
        ("ZINET ADD S-X PGM-ABCD", "0016", "PORT- REQUIRED"),
        ("ZINET ADD S-X PORT-1", "0016", "PGM- REQUIRED"),
        ("ZINET START", "0016", "S- (SERVER NAME) REQUIRED"),
    ],
)
def test_malformed_commands_name_the_problem(system, command, code, token):
    """Bad verbs, tokens, keywords and missing keywords are refused, naming what is wrong."""
    response = run(system, command)
    assert response.startswith(f"INET{code}E B ")
    assert token in response
    assert "0 SERVER(S)" in run(system, "ZINET DISPLAY")


@pytest.mark.parametrize(
    "token",
    [
        "S-ABCDEFGHIJK", "S-A.B", "P-UDP", "P-SNA", "MODEL-AOA", "PORT-65536", "PORT-ABC",
        "PORT--1", "PGM-1ABC", "PGM-ABCDE", "PGM-AB", "AORL-0", "AORL-32768", "PROCID-1",
        "PROCID-AB", "ACT-ON", "STATE-ACT", "STATE-X", "MAXPROC-0", "MAXPROC-1000",
        "MAXPROC-1X", "IP-256.0.0.1", "IP-LOCALHOST", "TIMEOUT-86401",
    ],
)
def test_bad_values_are_refused_naming_the_token(system, token):
    """Each out-of-range or malformed value is refused with INET0015E quoting the token."""
    base = {"S": "S-GOOD", "PORT": "PORT-1", "PGM": "PGM-ABCD", "MODEL": "MODEL-AOR"}
    keyword = token.partition("-")[0]
    base[keyword] = token
    if keyword not in ("AORL", "MODEL"):
        base.pop("MODEL")
    response = run(system, "ZINET ADD " + " ".join(base.values()))
    assert response.startswith("INET0015E B BAD VALUE '" + token + "'"), response
    assert "0 SERVER(S)" in run(system, "ZINET DISPLAY")


def test_udp_is_refused_with_a_clear_message(system):
    """P-UDP says that only TCP servers are emulated."""
    response = run(system, "ZINET ADD S-U P-UDP PORT-53 PGM-ABCD")
    assert "P-UDP NOT SUPPORTED - ONLY TCP SERVERS ARE EMULATED" in response


@pytest.mark.parametrize(
    "tokens",
    [
        "S-A PORT-1 PGM-A000", "S-ABCDEFGHIJ PORT-65535 PGM-Z999", "S-1 PORT-0 PGM-ABCD",
        "S-X PORT-1 PGM-ABCD MODEL-AOR AORL-1", "S-X PORT-1 PGM-ABCD MODEL-AOR AORL-32767",
        "S-X PORT-1 PGM-ABCD MAXPROC-1", "S-X PORT-1 PGM-ABCD MAXPROC-999",
        "S-X PORT-1 PGM-ABCD PROCID-Z ACT-AUTO STATE-CRAS",
        "S-X PORT-1 PGM-ABCD IP-ANY TIMEOUT-0", "S-X PORT-1 PGM-ABCD IP-::1 TIMEOUT-86400",
        "SERVER-X PROTOCOL-TCP PORT-1 PGM-ABCD ACTIVATION-OPER PROC-C",
    ],
)
def test_boundary_values_are_accepted(system, tokens):
    """Values at the edges of each range (and the long keyword forms) are accepted."""
    assert run(system, f"ZINET ADD {tokens}").startswith("INET0001I B SERVER ")


def test_ip_any_binds_all_addresses(system):
    """IP-ANY is stored as 0.0.0.0."""
    run(system, "ZINET ADD S-X PORT-1 PGM-ABCD IP-ANY")
    assert "IP-0.0.0.0" in display(system, "X")


def test_aor_defaults_aorl_and_other_models_refuse_it(system):
    """MODEL-AOR without AORL- gets 4095; AORL- with another model is refused."""
    run(system, "ZINET ADD S-A PORT-1 PGM-ABCD MODEL-AOR")
    assert "AORL-4095" in display(system, "A")
    response = run(system, "ZINET ADD S-B PORT-1 PGM-ABCD AORL-8")
    assert response.startswith("INET0015E B BAD VALUE 'AORL-8' - AORL- IS VALID ONLY")


def test_wait_forces_maxproc_to_one_with_a_warning(system):
    """MODEL-WAIT with MAXPROC other than 1 is added with MAXPROC-1 and an INET0008W."""
    response = run(system, "ZINET ADD S-W PORT-1 PGM-ABCD MODEL-WAIT MAXPROC-5")
    assert response.splitlines() == [
        "INET0001I B SERVER W ADDED", "INET0008W B MAXPROC-5 FORCED TO 1 FOR MODEL-WAIT"]
    assert "MAXPROC-1 " in display(system, "W") + " "


def test_add_of_a_defined_server_is_refused(system):
    """ADD of a name already defined is INET0018E and leaves the definition alone."""
    run(system, "ZINET ADD S-X PORT-1 PGM-ABCD")
    assert run(system, "ZINET ADD S-X PORT-2 PGM-ABCD").startswith("INET0018E B SERVER X")
    assert "PORT-1 " in display(system, "X")


def test_alter_changes_only_what_it_names(system):
    """ALTER replaces the named keywords and keeps the others."""
    run(system, SAMPLE)
    assert run(system, "ZINET ALTER S-MQS PORT-1415 ACT-AUTO") == "INET0002I B SERVER MQS ALTERED"
    shown = display(system, "MQS")
    assert all(c in shown for c in ("PORT-1415", "ACT-AUTO", "AORL-8", "PGM-CMQL"))


def test_alter_model_adjusts_aorl_and_maxproc(system):
    """Leaving AOR drops AORL; leaving WAIT restores the default MAXPROC."""
    run(system, SAMPLE)
    run(system, "ZINET ALTER S-MQS MODEL-WAIT")
    shown = display(system, "MQS")
    assert "AORL-" not in shown and "MAXPROC-1 " in shown + " "
    run(system, "ZINET ALTER S-MQS MODEL-NOWAIT")
    assert "MAXPROC-999" in display(system, "MQS")


def test_rejected_alter_changes_nothing(system):
    """An ALTER with one bad token leaves every value as it was."""
    run(system, SAMPLE)
    before = display(system, "MQS")
    assert run(system, "ZINET ALTER S-MQS PGM-NEW1 PORT-99999").startswith("INET0015E")
    assert run(system, "ZINET ALTER S-MQS MODEL-NOWAIT AORL-9").startswith("INET0015E")
    assert display(system, "MQS") == before


def test_alter_needs_something_and_a_defined_server(system):
    """ALTER with only S- is INET0025E; ALTER of an unknown server is INET0017E."""
    run(system, SAMPLE)
    assert run(system, "ZINET ALTER S-MQS").startswith("INET0025E B NOTHING TO ALTER")
    assert run(system, "ZINET ALTER S-NONE PORT-2") == "INET0017E B SERVER NONE NOT DEFINED"


def test_alter_of_an_active_server_refuses_listener_keywords(system):
    """While started, PORT-/MODEL-/IP-/P-/PROCID- need a STOP first; PGM- and MAXPROC- do not."""
    run(system, "ZINET ADD S-X PORT-0 PGM-ABCD")
    run(system, "ZINET START S-X")
    for token in ("PORT-5", "MODEL-WAIT", "IP-::1", "P-TCP", "PROCID-C"):
        response = run(system, f"ZINET ALTER S-X {token}")
        assert response == (
            f"INET0019E B SERVER X IS ACTIVE - ZINET STOP IT BEFORE ALTERING '{token}'")
    assert run(system, "ZINET ALTER S-X PGM-EFGH MAXPROC-3").startswith("INET0002I")


def test_delete(system):
    """DELETE removes an inactive server; unknown names are INET0017E."""
    run(system, SAMPLE)
    assert run(system, "ZINET DELETE S-MQS") == "INET0003I B SERVER MQS DELETED"
    assert run(system, "ZINET DELETE S-MQS") == "INET0017E B SERVER MQS NOT DEFINED"


def test_delete_of_an_active_server_is_refused(system):
    """DELETE of a started server is INET0019E until it is stopped."""
    run(system, "ZINET ADD S-X PORT-0 PGM-ABCD")
    run(system, "ZINET START S-X")
    assert run(system, "ZINET DELETE S-X") == "INET0019E B SERVER X IS ACTIVE - ZINET STOP IT FIRST"
    run(system, "ZINET STOP S-X")
    assert run(system, "ZINET DELETE S-X").startswith("INET0003I")


def test_start_and_stop_report_and_display_the_state(system):
    """START reports the bound address; DISPLAY shows ACTIVE with the real port and counters."""
    run(system, "ZINET ADD S-X PORT-0 PGM-ABCD")
    response = run(system, "ZINET START S-X")
    port = system.inetd.servers["X"].port
    assert response == f"INET0004I B SERVER X STARTED - LISTENING ON 127.0.0.1:{port}"
    shown = display(system, "X")
    assert "SERVER X  ACTIVE" in shown and f"BOUND-127.0.0.1:{port}" in shown
    assert all(c in shown for c in ("ACCEPTED-0", "ENTRIES-0", "REFUSED-0", "ERRORS-0"))
    assert run(system, "ZINET START S-X") == "INET0021E B SERVER X IS ALREADY ACTIVE"
    assert run(system, "ZINET STOP S-X").startswith("INET0005I B SERVER X STOPPED - 0 CONN")
    assert run(system, "ZINET STOP S-X") == "INET0020E B SERVER X IS NOT ACTIVE"
    assert "SERVER X  INACTIVE" in display(system, "X")


def test_start_of_an_unknown_server(system):
    """START and STOP of an undefined server are INET0017E."""
    assert run(system, "ZINET START S-NONE") == "INET0017E B SERVER NONE NOT DEFINED"
    assert run(system, "ZINET STOP S-NONE") == "INET0017E B SERVER NONE NOT DEFINED"


def test_start_on_a_port_in_use_fails_cleanly(system):
    """A port already bound gives INET0022E and the server stays inactive."""
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        run(system, f"ZINET ADD S-X PORT-{port} PGM-ABCD")
        response = run(system, "ZINET START S-X")
    assert response.startswith(f"INET0022E B SERVER X CANNOT LISTEN ON 127.0.0.1:{port}")
    assert "SERVER X  INACTIVE" in display(system, "X")


def test_start_of_another_processors_server_is_refused(system):
    """A server defined with PROCID-C cannot start on processor B."""
    run(system, "ZINET ADD S-X PORT-0 PGM-ABCD PROCID-C")
    assert run(system, "ZINET START S-X") == (
        "INET0023E B SERVER X IS DEFINED FOR PROCESSOR C, NOT B")


def test_start_on_a_stopped_system_is_refused():
    """START after System.stop() is INET0024E."""
    stopped = _start()
    stopped.stop(timeout=2.0)
    run(stopped, "ZINET ADD S-X PORT-0 PGM-ABCD")
    assert run(stopped, "ZINET START S-X").startswith("INET0024E B SYSTEM IS NOT RUNNING")


def test_display_all_and_by_state(system):
    """DISPLAY lists every server by name; STATE-ACT / STATE-INACT select by run state."""
    run(system, "ZINET ADD S-B PORT-0 PGM-ABCD")
    run(system, "ZINET ADD S-A PORT-0 PGM-ABCD")
    run(system, "ZINET START S-B")
    shown = run(system, "ZINET DISPLAY")
    headers = [line for line in shown.splitlines() if "SERVER " in line and "-" not in line[12:]]
    assert [h.split()[3] for h in headers] == ["A", "B"]
    assert "SERVER B  ACTIVE" in run(system, "ZINET DISPLAY STATE-ACT")
    assert "SERVER A" not in run(system, "ZINET DISPLAY STATE-ACT")
    assert "1 SERVER(S)" in run(system, "ZINET DISPLAY STATE-INACT")
    assert run(system, "ZINET DISPLAY S-Q") == "INET0017E B SERVER Q NOT DEFINED"
    assert run(system, "ZINET DISPLAY STATE-CRAS").startswith("INET0015E")


def test_definitions_persist_in_the_home(tmp_path):
    """ADD/ALTER/DELETE are written to <home>/zinet.json and a new System reloads them."""
    with _start(home=tmp_path) as first:
        run(first, SAMPLE)
        run(first, "ZINET ADD S-GONE PORT-2 PGM-ABCD")
        run(first, "ZINET ALTER S-MQS MAXPROC-7")
        run(first, "ZINET DELETE S-GONE")
        before = display(first, "MQS")
    assert (tmp_path / "zinet.json").exists()
    with _start(home=tmp_path) as second:
        assert display(second, "MQS") == before
        assert run(second, "ZINET DISPLAY S-GONE").startswith("INET0017E")


def test_an_unwritable_definitions_file_rejects_the_change(tmp_path):
    """If the definitions cannot be saved the command is INET0027E and changes nothing."""
    with _start(home=tmp_path) as system:
        run(system, "ZINET ADD S-X PORT-1 PGM-ABCD")
        (tmp_path / "zinet.json").unlink()
        (tmp_path / "zinet.json").mkdir()  # os.replace onto a non-empty directory fails
        (tmp_path / "zinet.json" / "keep").write_text("")
        response = run(system, "ZINET ADD S-Y PORT-1 PGM-ABCD")
        assert response.startswith("INET0027E B ZINET DEFINITIONS NOT SAVED")
        assert run(system, "ZINET ALTER S-X PORT-2").startswith("INET0027E")
        assert run(system, "ZINET DELETE S-X").startswith("INET0027E")
        assert run(system, "ZINET DISPLAY S-Y").startswith("INET0017E")
        assert "PORT-1 " in display(system, "X")
        # no temporary file left beside it (the home's stores are directories of their own)
        assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == []
        assert [p.name for p in tmp_path.iterdir() if "zinet" in p.name] == ["zinet.json"]


def test_start_auto_starts_only_auto_servers_of_this_processor(tmp_path):
    """A system booting on a home starts its ACT-AUTO servers for this CPU (start_auto);
    OPER ones and other CPUs' stay down."""
    with _start(home=tmp_path) as first:
        run(first, "ZINET ADD S-AUTO PORT-0 PGM-ABCD ACT-AUTO")
        run(first, "ZINET ADD S-OPER PORT-0 PGM-ABCD ACT-OPER")
        run(first, "ZINET ADD S-OTHER PORT-0 PGM-ABCD ACT-AUTO PROCID-C")
    with _start(home=tmp_path) as second:
        assert any(line.startswith("INET0004I B SERVER AUTO STARTED") for line in second.log)
        assert sorted(second.inetd.servers) == ["AUTO"]
        assert start_auto(second) == "INET0009I B NO AUTO SERVERS TO START"


@pytest.mark.parametrize("token", ["USER-ME", "SERVETIME-5"])
def test_keywords_not_implemented_are_refused(system, token):
    """USER- and SERVETIME are not implemented: ADD with one is refused as an unknown
    keyword and defines nothing (docs/deviations.md)."""
    response = run(system, f"ZINET ADD S-X PORT-5000 PGM-ABCD {token}")
    assert f"UNKNOWN KEYWORD '{token}'" in response
    assert "INET0001I" in run(system, "ZINET ADD S-X PORT-5000 PGM-ABCD")  # not defined before
