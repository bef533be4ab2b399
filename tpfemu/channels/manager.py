"""The channels of one System: their agents, their status, and the operator's requests.

One :class:`ChannelManager` per System (``system.channels``), a service stopped with it.
It

- runs a :class:`~tpfemu.channels.sender.Sender` per started sender channel (``START
  CHL``) and a :class:`~tpfemu.channels.receiver.Receiver` per connection a remote
  sender makes (program CMQL, :meth:`ChannelManager.cmql`, entered by the Internet
  daemon's MQS server);
- keeps each channel's :class:`~tpfemu.channels.state.ChannelStatus` (DISP CHL) and, in
  memory, its latest synchronisation record (a batch of nonpersistent messages only is
  not written to the store: those messages do not outlive the process either);
- carries out START/STOP/RESET/RESOLVE CHL and refuses DEL CHL of a running channel,
  for the console (the console reaches it through its ``ChannelPort``): STOP CHL of a
  server-connection channel ends its client conversations and refuses new ones until
  START CHL (:func:`tpfemu.channels.svrconn.stop_conversations`).

What it needs of the System is :class:`ChannelHost`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Protocol

from ecb import Ecb, Programs
from tpfemu import errors
from tpfemu.channels import svrconn
from tpfemu.channels.ports import FastDelivery
from tpfemu.channels.receiver import Receiver
from tpfemu.channels.sender import Sender
from tpfemu.channels.state import ChannelStatus
from tpfemu.channels.syncstore import SyncRecord, SyncStore, ensure_syncq
from tpfemu.mqi import api as mqi
from tpfemu.qmgr.manager import QueueManager
from tpfemu.qmgr.objects import ChannelDef
from tpfemu.wire.link import Link

__all__ = ["CMQL", "ChannelHost", "ChannelManager"]

CMQL = "CMQL"
"""The receiver channel session-initiation program (seed 004)."""
MAX_SESSIONS = 256  # receiver sessions at once (more connections are closed at once)


class ChannelHost(Protocol):
    """What the channels need of their processor (a System is one)."""

    cpu: str
    qmgr: QueueManager
    @property
    def programs(self) -> Programs: ...

    services: list[Any]
    fast_delivery: FastDelivery | None

    def say(self, line: str) -> None:
        """Write one line to the system console."""


class ChannelManager:
    """The channels of one System (see the module docstring)."""

    def __init__(self, host: ChannelHost) -> None:
        self.host = host
        self.cpu = host.cpu
        self.qmgr_name = host.qmgr.name
        self.lock = threading.RLock()
        self._status: dict[str, ChannelStatus] = {}
        self._records: dict[str, SyncRecord] = {}
        self.senders: dict[str, Sender] = {}
        self.receivers: dict[str, Receiver] = {}
        self.sessions: set[Receiver] = set()
        #: receivers and SVRCONN channels stopped (by STOP CHL, or a receiver by an
        #: error): their connections are refused until START CHL
        self.stopped_channels: set[str] = set()
        self.closing = False
        self._unsubscribe: Any = None

    def install(self) -> ChannelManager:
        """Load CMQL into the program table, register as a service of the host, and
        follow the catalog's deletions (a deleted channel's status goes with it)."""
        self.host.programs.load(CMQL, self.cmql)
        self.host.services.append(self)
        self._unsubscribe = self.host.qmgr.catalog.subscribe(self._deleted)
        return self

    def _deleted(self, event: str, old: Any, new: Any) -> None:
        """DEL CHL (of a channel not running: the console refuses that): its live status
        and a stopped state go, so a channel defined again under the name starts
        INACTIVE, as IBM's DELETE CHANNEL removes the channel's status."""
        if event == "delete" and isinstance(old, ChannelDef):
            with self.lock:
                self.stopped_channels.discard(old.name)
                self._status.pop(old.name, None)

    # -- what the agents use -----------------------------------------------------------

    def say(self, line: str) -> None:
        self.host.say(line)

    def profile(self) -> Any:
        return self.host.qmgr.catalog.profile

    def offered_maxmsgl(self, definition: ChannelDef) -> int:
        """The maximum message length channel ``definition`` offers when it starts
        (:meth:`ChannelDef.offered_maxmsgl` with this queue manager's MAXMSGL, IBM's 4 MB
        while no profile is defined)."""
        profile = self.profile()
        return definition.offered_maxmsgl(profile.maxmsgl if profile is not None
                                          else 4 * 1024 * 1024)

    def definition(self, name: str) -> ChannelDef | None:
        return self.host.qmgr.catalog.find_channel(name)

    def event(self, kind: str, queue: str, **fields: Any) -> None:
        """Emit a channel event (channel-send, -receive, -commit, -backout) to the queue
        manager's event bus (the journal), when anyone listens."""
        events = self.host.qmgr.events
        if events.active:
            events.emit(kind, queue, time.time_ns() // 1000, **fields)

    def fast_delivery(self) -> FastDelivery | None:
        return getattr(self.host, "fast_delivery", None)

    def status(self, name: str) -> ChannelStatus:
        """The channel's live status (made on first use)."""
        with self.lock:
            status = self._status.get(name)
            if status is None:
                status = self._status[name] = ChannelStatus(name)
            return status

    def record(self, name: str, store: SyncStore) -> SyncRecord:
        """The channel's latest synchronisation record: this process's, else the store's."""
        with self.lock:
            record = self._records.get(name)
        if record is None:
            record = store.read(name)
            self.remember(name, record)
        return record

    def remember(self, name: str, record: SyncRecord) -> None:
        with self.lock:
            self._records[name] = record
        status = self.status(name)
        with status.lock:
            status.seq, status.luwid, status.indoubt = record.seq, record.luwid, record.indoubt

    def claim(self, name: str, receiver: Receiver) -> bool:
        """A receiver session wants channel ``name``: False if the channel is stopped.
        A session still running for it is ended first and its work backed out (its
        sender has reconnected: IBM's ADOPTMCA); False if it does not end in time."""
        with self.lock:
            current = self.receivers.get(name)
            if self.closing or name in self.stopped_channels:
                return False
        if current is not None and current is not receiver and current.running:
            self.say(f"CHNL0115I {self.cpu} CHL {name} A NEW CONNECTION ADOPTS THE CHANNEL:"
                     f" THE SESSION FROM {current.peer} IS ENDED")
            current.stop(timeout=10.0)
            if current.running:
                return False
        with self.lock:
            if self.closing or name in self.stopped_channels:
                return False
            self.receivers[name] = receiver
            return True

    def stopped(self, name: str, reason: str) -> None:
        """A receiver stops for an error: STOPPED until START CHL."""
        with self.lock:
            self.stopped_channels.add(name)
        self.status(name).set("STOPPED", reason)

    def ended(self, agent: Sender | Receiver) -> None:
        """An agent's thread is ending."""
        with self.lock:
            if isinstance(agent, Sender):
                if self.senders.get(agent.name) is agent:
                    del self.senders[agent.name]
                return
            self.sessions.discard(agent)
            if agent.name and self.receivers.get(agent.name) is agent:
                del self.receivers[agent.name]
                status = self.status(agent.name)
                if status.state in ("RUNNING", "STOPPING"):
                    status.set("STOPPED" if agent.name in self.stopped_channels
                               else "INACTIVE")

    # -- CMQL: a connection for a receiver ---------------------------------------------------

    def cmql(self, ecb: Ecb) -> None:
        """CMQL: take over the connection the Internet daemon handed to this entry, and
        run its receiver session as a thread of the system (so the entry ends now)."""
        connection = ecb.origin
        sock = getattr(connection, "socket", None)
        if not isinstance(sock, socket.socket):
            ecb.serrc(f"{CMQL} is entered only by the Internet daemon, origin {connection!r}")
            return
        peer = "{}:{}".format(*connection.peer)
        with self.lock:
            full = self.closing or len(self.sessions) >= MAX_SESSIONS
        if full:
            self.say(f"CHNL0114W {self.cpu} CONNECTION FROM {peer} CLOSED: "
                     f"{'CHANNELS STOPPING' if self.closing else 'TOO MANY SESSIONS'}")
            return  # the daemon closes it when this entry ends
        own = socket.socket(fileno=sock.detach())  # the daemon's close now leaves it alone
        own.settimeout(None)
        first = bytes(connection.data)
        if first[:1] == b"\x16":  # a TLS handshake: a client of a TLS channel (issue 26)
            from tpfemu.channels.svrconn_tls import start_session

            start_session(self, own, first, peer)
            return
        receiver = Receiver(self, Link(own, first=first), peer)
        with self.lock:
            self.sessions.add(receiver)
        receiver.start()

    # -- operator requests (the console's ChannelPort) --------------------------------------

    def is_running(self, name: str) -> bool:
        """The channel has a live agent, or (a SVRCONN) a client conversation: DEL CHL
        is refused."""
        with self.lock:
            agent: Any = self.senders.get(name) or self.receivers.get(name)
        return (agent is not None and agent.running) or svrconn.instances(self, name) > 0

    def rows(self, name: str) -> list[tuple[str, str]]:
        """DISP CHL's live rows for channel ``name``: a server-connection channel's are
        its state (RUNNING while a client is connected, STOPPED after STOP CHL, else
        INACTIVE), CONVS (the conversations running) and one CLIENT row each (address,
        user, application, connected since), as IBM's DIS CHSTATUS shows its instances."""
        definition = self.definition(name)
        if definition is None or definition.chltype != "SVRCONN":
            return self.status(name).rows()
        from tpfemu.qmgr.mqmd import date_time

        running = svrconn.conversations(self, name)
        status = self.status(name)
        with self.lock:
            stopped = name in self.stopped_channels
        state = "STOPPED" if stopped else "RUNNING" if running else "INACTIVE"
        rows = [("STATUS", state), ("CONVS", str(len(running)))]
        if stopped and status.reason:
            rows.append(("REASON", status.reason))
        for peer, user, appl, since_us in running:
            date, clock = date_time(since_us)
            rows.append(("CLIENT", f"{peer} USER {user or '-'} APPL {appl or '-'} SINCE "
                                   f"{date.decode()} {clock.decode()}"))
        return rows

    def start(self, name: str) -> str:
        """START CHL. :raises ValueError: it cannot start (the text says why)."""
        definition = self.definition(name)
        if definition is None:
            raise ValueError("IT IS NOT DEFINED")
        if definition.chltype in ("RCVR", "SVRCONN"):
            with self.lock:
                self.stopped_channels.discard(name)
            status = self.status(name)
            if status.state == "STOPPED":
                status.set("INACTIVE", "")
            if definition.chltype == "SVRCONN":
                return "SERVER-CONNECTION CHANNEL ENABLED - IT TAKES CLIENTS"
            return "RECEIVER ENABLED - IT RUNS WHEN ITS SENDER CONNECTS"
        if self.closing:
            raise ValueError("THE SYSTEM IS STOPPING")
        try:
            ensure_syncq(self.host.qmgr)
        except errors.TpfEmuError as exc:
            raise ValueError(f"THE SYNCHRONISATION QUEUE CANNOT BE DEFINED: {exc}") from exc
        with self.lock:
            current = self.senders.get(name)
            if current is not None and current.running:
                raise ValueError(f"IT IS ALREADY {self.status(name).state}")
            self.senders[name] = Sender(self, definition).start()
        return "SENDER STARTED"

    def stop_channel(self, name: str, mode: str, status: str = "STOPPED",
                     conname: str = "") -> str:
        """STOP CHL MODE-QUIESCE|FORCE; for a server-connection channel also STATUS and
        CONNAME (:meth:`_stop_svrconn`). :raises ValueError: it is stopped already (IBM's
        MQRCCF_CHANNEL_NOT_ACTIVE), or no conversation comes from CONNAME."""
        definition = self.definition(name)
        if definition is not None and definition.chltype == "SVRCONN":
            return self._stop_svrconn(name, mode, status, conname)
        with self.lock:
            sender = self.senders.get(name)
            receiver = self.receivers.get(name)
            live = (sender is not None and sender.running) or (
                receiver is not None and receiver.running)
            if not live and self.status(name).state == "STOPPED":
                raise ValueError("IT IS ALREADY STOPPED")
            if definition is not None and definition.chltype == "RCVR":
                self.stopped_channels.add(name)
        if sender is not None:
            sender.stop(mode)
            return f"SENDER STOPPED (MODE-{mode})"
        if receiver is not None:
            receiver.stop(mode)
            self.status(name).set("STOPPED", f"STOPPED BY OPERATOR (MODE-{mode})")
            return "RECEIVER STOPPED - CONNECTIONS ARE REFUSED UNTIL START"
        self.status(name).set("STOPPED", f"STOPPED BY OPERATOR (MODE-{mode})")
        return "IT WAS NOT RUNNING; NOW STOPPED"

    def _stop_svrconn(self, name: str, mode: str, status: str, conname: str) -> str:
        """STOP CHL of a server-connection channel: its conversations end (QUIESCE: each
        after the call it is serving; FORCE: now), only those from address ``conname``
        when given. STATUS STOPPED: it takes no client until START; INACTIVE: it goes on
        taking clients."""
        ended = svrconn.stop_conversations(self, name, mode, stop=status == "STOPPED",
                                           client=conname)
        if ended is None:
            raise ValueError("IT IS ALREADY STOPPED")
        # (the console shows at most 64 characters of it; mode and CONNAME are in its detail)
        if status == "STOPPED":
            self.status(name).set("STOPPED", f"STOPPED BY OPERATOR (MODE-{mode})")
            return f"{ended} CONVERSATION(S) ENDING; CLIENTS REFUSED UNTIL START"
        if conname and not ended:
            raise ValueError(f"NO CONVERSATION FROM {conname} RUNS ON IT")
        return f"{ended} CONVERSATION(S) ENDING; IT TAKES CLIENTS"

    def reset(self, name: str, seqnum: int) -> str:
        """RESET CHL SEQNUM-n: a sender sends message n next (its receiver learns it at
        the next start); a receiver expects n next."""
        if self.is_running(name):
            raise ValueError("IT IS RUNNING; STOP IT FIRST")
        with self._connected() as store:
            record = self.record(name, store)
            definition = self.definition(name)
            if definition is not None and definition.chltype == "SDR":
                new = replace(record, reset=seqnum)
            else:
                new = replace(record, seq=seqnum - 1, reset=0)
            store.save(new)
        self.remember(name, new)
        return f"NEXT SEQUENCE NUMBER {seqnum}"

    def resolve(self, name: str, action: str) -> str:
        """RESOLVE CHL ACTION-COMMIT|BACKOUT: settle a stopped sender's in-doubt batch."""
        if self.is_running(name):
            raise ValueError("IT IS RUNNING; STOP IT FIRST")
        definition = self.definition(name)
        assert definition is not None
        with self._connected() as store:
            record = self.record(name, store)
            if not record.indoubt:
                return "IT IS NOT IN DOUBT - NOTHING TO RESOLVE"
            removed = 0
            if action == "COMMIT":
                ids = (record.prior_ids if record.has_prior else ()) + record.msg_ids
                removed = Sender(self, definition).remove(store.qm, ids)
                new = record.settled(record.cur_seq, record.cur_luwid)
            else:
                new = record.settled()
            store.write(new)
            store.qm.commit()
        self.remember(name, new)
        if action == "COMMIT":
            return f"IN-DOUBT BATCH COMMITTED: {removed} MESSAGE(S) REMOVED"
        return "IN-DOUBT BATCH BACKED OUT: ITS MESSAGES ARE SENT AGAIN"

    @contextlib.contextmanager
    def _connected(self) -> Iterator[SyncStore]:
        ensure_syncq(self.host.qmgr)
        qm = mqi.connect(self.qmgr_name)
        store = SyncStore(qm)
        try:
            yield store
        finally:
            store.close()
            qm.backout()
            qm.disconnect()

    # -- the System's stop ----------------------------------------------------------------

    def stop(self) -> None:
        """Stop every agent (System.stop): senders after their batch, receivers now."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        with self.lock:
            self.closing = True
            senders = list(self.senders.values())
            receivers = list(self.sessions)
        for sender in senders:
            sender.stop("QUIESCE", timeout=0)
        for receiver in receivers:
            receiver.stop(timeout=0)
        agents: list[Sender | Receiver] = [*senders, *receivers]
        for agent in agents:
            agent.thread.join(5.0)

    def __repr__(self) -> str:
        return f"<ChannelManager {self.qmgr_name} {len(self.senders)} senders " \
               f"{len(self.sessions)} receivers>"
