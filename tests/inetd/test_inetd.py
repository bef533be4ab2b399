"""The Internet daemon over real loopback TCP: entries per connection, models, limits, stop."""

import contextlib
import socket
import threading

import pytest
from inetd_helpers import connect, console_has, recv_all, started, wait_for

from ecb import Level
from tpfemu.inetd.connection import Connection, Descriptor
from tpfemu.inetd.daemon import ACTIVATOR, InternetDaemon


def echo(ecb):
    """ECHO: read one message from the connection and send it back prefixed."""
    connection = ecb.origin
    connection.send(b"ECHO:" + connection.recv(100))


def test_start_accepts_a_connection_and_runs_the_program(system):
    """ZINET START listens; a client's bytes reach the loaded program, whose reply comes back."""
    system.programs.load("ECHO", echo)
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")
    with connect(port) as client:
        client.sendall(b"hello")
        assert recv_all(client) == b"ECHO:hello"
    server = system.inetd.servers["ECHO"]
    assert wait_for(lambda: server.active == 0)
    assert (server.accepted, server.entries, server.errors) == (1, 1, 0)
    assert system.dispatcher.stats().calls.get("ECHO") == 1


def test_the_origin_and_ebw000_describe_the_connection(system):
    """ecb.origin is the Connection (socket, peer, server) and EBW000 holds its descriptor."""
    seen = {}

    def look(ecb):
        seen["origin"] = ecb.origin
        seen["descriptor"] = Descriptor.unpack(ecb.ebw)
        seen["programs"] = ecb.programs
        ecb.origin.send(b"ok")

    system.programs.load("LOOK", look)
    port = started(system, "S-LOOK PORT-0 PGM-LOOK")
    with connect(port) as client:
        local_port = client.getsockname()[1]
        assert recv_all(client) == b"ok"
    origin, descriptor = seen["origin"], seen["descriptor"]
    assert isinstance(origin, Connection)
    assert origin.server is system.inetd.servers["LOOK"]
    assert origin.peer == ("127.0.0.1", local_port)
    assert isinstance(origin.socket, socket.socket)
    assert (descriptor.server, descriptor.program, descriptor.number) == ("LOOK", "LOOK", 1)
    assert (descriptor.local_port, descriptor.peer_port) == (port, local_port)
    assert str(descriptor.peer_address) == "127.0.0.1" and descriptor.length == 0
    assert seen["programs"] == ("LOOK",)  # INTD transferred with ENTNC


def test_the_connection_is_closed_when_the_entry_ends(system):
    """A program that never closes its socket still leaves a closed connection at exit."""
    system.programs.load("MUTE", lambda ecb: None)
    port = started(system, "S-MUTE PORT-0 PGM-MUTE")
    with connect(port) as client:
        assert client.recv(10) == b""
    assert wait_for(lambda: system.inetd.servers["MUTE"].active == 0)


def test_a_failing_program_still_closes_its_connection(system):
    """An exception in the program dumps the entry, and the client sees end of file."""

    def fail(ecb):
        raise RuntimeError("boom")

    system.programs.load("FAIL", fail)
    port = started(system, "S-FAIL PORT-0 PGM-FAIL")
    with connect(port) as client:
        assert client.recv(10) == b""
    assert wait_for(lambda: system.dispatcher.stats().failed == 1)


def test_aor_passes_the_first_data_on_d0(system):
    """MODEL-AOR creates the entry when data arrives, with up to AORL bytes on D0."""
    seen = {}

    def cmql(ecb):
        block = ecb.block(Level.D0)
        length = Descriptor.unpack(ecb.ebw).length
        seen["d0"] = bytes(block[:length])
        rest = ecb.origin.recv_exactly(4)
        ecb.origin.send(b"D0=" + seen["d0"] + b" REST=" + rest)

    system.programs.load("CMQL", cmql)
    port = started(system, "S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8")
    with connect(port) as client:
        assert wait_for(lambda: system.inetd.servers["MQS"].accepted == 1)
        assert system.inetd.servers["MQS"].entries == 0  # no entry before data arrives
        client.sendall(b"TSHM0001ABCD")
        assert recv_all(client) == b"D0=TSHM0001 REST=ABCD"
    assert seen["d0"] == b"TSHM0001"


def test_aor_peer_that_closes_before_data_costs_no_entry(system):
    """An AOR connection closed before any data arrives is closed without an entry."""
    system.programs.load("CMQL", echo)
    port = started(system, "S-MQS MODEL-AOR PORT-0 PGM-CMQL AORL-8")
    connect(port).close()
    server = system.inetd.servers["MQS"]
    assert wait_for(lambda: console_has(system, "INET0106I"))
    assert (server.accepted, server.entries, server.active) == (1, 0, 0)


def test_a_program_not_loaded_gets_a_console_error_and_a_clean_close(system):
    """A connection for an unloaded PGM is closed cleanly (recv gives b"") with INET0101E."""
    port = started(system, "S-NONE PORT-0 PGM-ZZZ9")
    with connect(port) as client:
        assert client.recv(10) == b""
    assert wait_for(lambda: console_has(system, "INET0101E B SERVER NONE PROGRAM ZZZ9 NOT LOADED"))
    server = system.inetd.servers["NONE"]
    assert (server.entries, server.errors) == (0, 1)
    assert system.dispatcher.stats().created == 0


def test_aor_with_a_program_not_loaded_closes_after_data(system):
    """MODEL-AOR checks the program when data arrives too: an unloaded one closes cleanly."""
    system.programs.load("CMQL", echo)
    port = started(system, "S-MQS MODEL-AOR PORT-0 PGM-CMQL AORL-8")
    with connect(port) as client:
        assert wait_for(lambda: system.inetd.servers["MQS"].accepted == 1)
        system.programs.unload("CMQL")
        client.sendall(b"12345678")
        assert client.recv(10) == b""
    assert console_has(system, "PROGRAM CMQL NOT LOADED")
    assert system.inetd.servers["MQS"].entries == 0


def _blocking_program(system, name):
    """Load ``name`` as a program that replies only once the returned event is set."""
    release = threading.Event()

    def hold(ecb):
        release.wait(3.0)
        ecb.origin.send(b"done")

    system.programs.load(name, hold)
    return release


def test_maxproc_refuses_connections_beyond_the_limit(system):
    """MODEL-NOWAIT MAXPROC-1: a second connection while one runs is refused with INET0102W."""
    release = _blocking_program(system, "HOLD")
    port = started(system, "S-HOLD PORT-0 PGM-HOLD MAXPROC-1")
    server = system.inetd.servers["HOLD"]
    first = connect(port)
    try:
        assert wait_for(lambda: server.active == 1)
        with connect(port) as second:
            assert second.recv(10) == b""
        assert console_has(system, "INET0102W B SERVER HOLD MAXPROC-1 REACHED")
        release.set()
        assert recv_all(first) == b"done"
    finally:
        first.close()
    assert wait_for(lambda: server.active == 0)
    with connect(port) as third:
        assert recv_all(third) == b"done"
    assert (server.accepted, server.entries, server.refused) == (3, 2, 1)


def test_wait_model_serves_one_connection_at_a_time(system):
    """MODEL-WAIT leaves the next connection in the backlog until the running entry ends."""
    release = _blocking_program(system, "ITER")
    port = started(system, "S-ITER MODEL-WAIT PORT-0 PGM-ITER")
    server = system.inetd.servers["ITER"]
    first, second = connect(port), connect(port)
    try:
        assert wait_for(lambda: server.active == 1)
        assert not wait_for(lambda: server.accepted > 1, timeout=0.3)
        release.set()
        assert recv_all(first) == b"done"
        assert recv_all(second) == b"done"
    finally:
        first.close()
        second.close()
    assert (server.accepted, server.entries, server.refused) == (2, 2, 0)


def test_concurrent_clients_each_get_their_own_entry(system):
    """Several clients at once are each served by a separate entry (NOWAIT)."""
    system.programs.load("ECHO", echo)
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")
    clients = [connect(port) for _ in range(5)]
    try:
        for number, client in enumerate(clients):
            client.sendall(b"c%d" % number)
        replies = [recv_all(client) for client in clients]
    finally:
        for client in clients:
            client.close()
    assert replies == [b"ECHO:c%d" % number for number in range(5)]
    assert system.inetd.servers["ECHO"].entries == 5


def test_stop_closes_the_listener(system):
    """After ZINET STOP a new connection is refused."""
    system.programs.load("ECHO", echo)
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")
    assert system.console("ZINET STOP S-ECHO").startswith("INET0005I B SERVER ECHO STOPPED")
    with pytest.raises(ConnectionRefusedError):
        connect(port)


def test_stop_ends_the_conversation_of_a_running_entry(system):
    """STOP shuts down served sockets: a program waiting in recv gets b"" and ends normally."""
    got = []

    def wait_data(ecb):
        got.append(ecb.origin.recv(10))

    system.programs.load("WAIT", wait_data)
    port = started(system, "S-W PORT-0 PGM-WAIT")
    with connect(port) as client:
        assert wait_for(lambda: system.inetd.servers["W"].active == 1)
        system.console("ZINET STOP S-W")
        assert wait_for(lambda: got == [b""])
        assert client.recv(10) == b""
    assert system.dispatcher.stats().failed == 0


def test_system_stop_stops_every_server(system):
    """System.stop() stops the daemon's listeners (it registers in system.services)."""
    system.programs.load("ECHO", echo)
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")
    assert system.inetd in system.services
    system.stop(timeout=2.0)
    with pytest.raises(ConnectionRefusedError):
        connect(port)


def test_alter_pgm_of_an_active_server_applies_to_the_next_connection(system):
    """ALTER PGM- while started: the next accepted connection runs the new program."""
    system.programs.load("ECHO", echo)
    system.programs.load("OTHR", lambda ecb: ecb.origin.send(b"other"))
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")
    assert system.console("ZINET ALTER S-ECHO PGM-OTHR").startswith("INET0002I")
    with connect(port) as client:
        assert recv_all(client) == b"other"


def test_the_activator_name_taken_by_another_program_refuses_start(system):
    """START is refused (INET0026E) when INTD is loaded by something else."""
    system.programs.load(ACTIVATOR, lambda ecb: None)
    system.console("ZINET ADD S-X PORT-0 PGM-ECHO")
    assert system.console("ZINET START S-X").startswith("INET0026E B SERVER X NOT STARTED")
    assert "X" not in system.inetd.servers


def test_ipv6_loopback_bind(system):
    """IP-::1 binds the IPv6 loopback; DISPLAY shows the bracketed bound address."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("no IPv6 loopback")
    system.programs.load("ECHO", echo)
    port = started(system, "S-SIX PORT-0 PGM-ECHO IP-::1")
    with connect(port, "::1") as client:
        client.sendall(b"v6")
        assert recv_all(client) == b"ECHO:v6"
    assert f"BOUND-[::1]:{port}" in system.console("ZINET DISPLAY S-SIX")


def test_daemon_of_returns_one_daemon_per_system(system):
    """InternetDaemon.of and System.internet_daemon give the system's one daemon on every
    call."""
    daemon = InternetDaemon.of(system)
    assert InternetDaemon.of(system) is daemon is system.inetd is system.internet_daemon()


def test_timeout_sets_the_program_socket_timeout(system):
    """TIMEOUT-n is the timeout of the program's socket calls; TIMEOUT-0 means none."""
    seen = []
    system.programs.load("TIME", lambda ecb: seen.append(ecb.origin.socket.gettimeout()))
    for name, timeout in (("T5", 5), ("T0", 0)):
        port = started(system, f"S-{name} PORT-0 PGM-TIME TIMEOUT-{timeout}")
        with connect(port) as client:
            assert client.recv(10) == b""
    assert seen == [5.0, None]


def test_an_entry_that_cannot_be_created_closes_the_connection(system, monkeypatch):
    """If the create macro is refused, INET0103E is written and the client sees end of file."""
    from ecb import DispatcherStopped

    def refuse(name, params=b"", *, origin=None):
        raise DispatcherStopped("CREMC", name, "the dispatcher is quiescing")

    system.programs.load("ECHO", echo)
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")
    monkeypatch.setattr(system.dispatcher, "cremc", refuse)
    with connect(port) as client:
        assert client.recv(10) == b""
    assert console_has(system, "INET0103E B SERVER ECHO ENTRY FOR ECHO NOT CREATED")
    server = system.inetd.servers["ECHO"]
    assert (server.entries, server.errors, server.active) == (0, 1, 0)


def test_a_failed_listener_is_reported_and_can_be_restarted(system):
    """A listener that fails says INET0105E, shows INACTIVE, and ZINET START works again."""
    system.programs.load("ECHO", echo)
    port = started(system, "S-ECHO PORT-0 PGM-ECHO")

    def broken(listener, selector):
        raise RuntimeError("injected")

    system.inetd.servers["ECHO"]._accept = broken
    with contextlib.suppress(ConnectionResetError):  # the failing listener may reset it
        connect(port).close()
    assert wait_for(lambda: console_has(system, "INET0105E B SERVER ECHO LISTENER FAILED"))
    assert wait_for(lambda: not system.inetd.servers["ECHO"].running)
    assert "SERVER ECHO  INACTIVE" in system.console("ZINET DISPLAY S-ECHO")
    assert system.console("ZINET START S-ECHO").startswith("INET0004I")
    with connect(system.inetd.servers["ECHO"].port) as client:
        client.sendall(b"again")
        assert recv_all(client) == b"ECHO:again"
