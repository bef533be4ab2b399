"""`tpfemu put`, `tpfemu get` and `tpfemu browse` (issue 26), like IBM's amqsput, amqsget
and amqsbcg, on a real home (LMDB files in a temporary directory).

amqsput: one message per line of standard input, ending at an empty line; amqsget: gets
and prints every message; amqsbcg: prints the MQMD of each message in full, then its data
in hex and as text, leaving the messages on the queue.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tpfemu import cli
from tpfemu.shelltools import hex_dump


@pytest.fixture
def home(tmp_path):
    """A home with the profile and a local queue APP.Q defined (by console commands)."""
    runner = CliRunner()
    for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-APP.Q"):
        result = runner.invoke(cli.main, ["cmd", command, "--home", str(tmp_path)])
        assert result.exit_code == 0, result.output
    return str(tmp_path)


def run(*args, stdin=None):
    """Invoke the tpfemu command with ``args``; the result."""
    return CliRunner().invoke(cli.main, list(args), input=stdin)


def test_put_from_stdin_then_get_prints_them_in_order(home):
    """put reads lines up to the empty one; get prints each message and removes them."""
    result = run("put", "APP.Q", "TPF1", "--home", home, "--persistent",
                 stdin="first line\nsecond line\n\nnot sent\n")
    assert result.exit_code == 0, result.output
    assert "2 message(s) put on APP.Q" in result.output
    result = run("get", "APP.Q", "--home", home)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["message <first line>", "message <second line>",
                                          "no more messages (2 got)"]
    assert "0 got" in run("get", "APP.Q", "--home", home).output


def test_put_messages_from_arguments(home):
    """Messages given as arguments are put one each, stdin unread."""
    result = run("put", "APP.Q", "TPF1", "one", "two", "--home", home, "--persistent",
                 stdin="ignored\n")
    assert "2 message(s)" in result.output
    assert "message <one>" in run("get", "APP.Q", "--home", home).output


def test_non_persistent_messages_do_not_outlive_the_command(home):
    """Without --persistent (queue DEFPSIST NO) the messages end with the system that the
    command started, as non-persistent messages end at a restart."""
    run("put", "APP.Q", "TPF1", "gone", "--home", home)
    assert "0 got" in run("get", "APP.Q", "--home", home).output


def test_browse_prints_full_mqmd_and_hex_and_leaves_messages(home):
    """browse prints every MQMD field and the data as hex and text; the messages stay."""
    run("put", "APP.Q", "TPF1", "Hello, TPF!", "--home", home, "--persistent",
        "--priority", "6")
    result = run("browse", "APP.Q", "--home", home)
    assert result.exit_code == 0, result.output
    out = result.output
    for field in ("StrucId", "MsgId", "CorrelId", "Priority", "Persistence", "PutApplName",
                  "PutDate", "GroupId", "OriginalLength"):
        assert f"  {field}" in out
    assert "  Priority          : 6" in out
    assert "  Format            : 'MQSTR   '" in out
    assert "48656C6C6F" in out.replace(" ", "")
    assert "'Hello, TPF!     '" in out
    assert "No more messages (1 browsed)" in out
    assert "message <Hello, TPF!>" in run("get", "APP.Q", "--home", home).output


def test_unknown_queue_exits_1_with_the_mnemonic(home):
    """A queue that is not defined: exit status 1, MQRC_UNKNOWN_OBJECT_NAME named."""
    result = run("get", "NO.SUCH.Q", "--home", home)
    assert result.exit_code == 1
    assert "MQRC_UNKNOWN_OBJECT_NAME" in result.output


@pytest.mark.parametrize("tool", ["put", "get", "browse"])
def test_client_option_goes_through_the_connect_function(tool, home):
    """--client CHANNEL/TCP/host(port) connects as a client through the TCP client: with
    no listener there it fails 2538 naming the channel and address, and starts no system."""
    result = run(tool, "APP.Q", "TPF1", "--client", "APP.SVRCONN/TCP/127.0.0.1(1414)")
    assert result.exit_code == 1
    assert "MQRC_HOST_NOT_AVAILABLE" in result.output
    assert "no listener for channel APP.SVRCONN at 127.0.0.1(1414)" in result.output


def test_bad_client_value_fails_cd_error():
    """A --client value that is not CHANNEL/TCP/host(port) fails 2277 naming the problem."""
    result = run("put", "APP.Q", "TPF1", "x", "--client", "APP.SVRCONN/TCP/host(port)")
    assert result.exit_code == 1
    assert "MQRC_CD_ERROR" in result.output and "port" in result.output


def test_hex_dump_layout():
    """hex_dump prints offset, byte pairs in hex and the printable text, 16 bytes a line."""
    lines = hex_dump(b"ABCDEFGHIJKLMNOPQ\x00")
    assert lines[0] == "00000000:  4142 4344 4546 4748 494A 4B4C 4D4E 4F50  'ABCDEFGHIJKLMNOP'"
    assert lines[1].startswith("00000010:  5100") and lines[1].endswith("'Q.              '")
