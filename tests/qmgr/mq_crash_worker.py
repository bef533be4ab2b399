"""The MQI workload the queue-manager crash tests kill with SIGKILL.

Run as ``python mq_crash_worker.py HOME RUN SEED``. It boots a system on HOME (restart
recovery happens there), prints ``READY`` and then one ``Q <data>`` line per persistent
message on APP.Q (browsed, before any work), then ``WORK``, then runs threads of MQPUT,
MQGET, MQCMIT and MQBACK until it is killed, printing (flushed, one line per event, so a
SIGKILL loses at most the line being written):

- ``c <data>``: about to commit a unit of work that put this message (or to put it
  outside syncpoint); ``C <data>``: the commit (or put) returned;
- ``g <data>``: about to commit a get of this message, or about to get it outside
  syncpoint (by its CorrelId, the data: an MQGET in progress at the kill may or may not
  have taken it); ``G <data>``: the commit (or the get) returned.

Checkpoints run every 0.1 s, so kills land before, during and after them and the log trims.
"""

from __future__ import annotations

import random
import sys
import threading

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

THREADS = 3
OPTIONS = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE


_out = threading.Lock()


def say(line: str) -> None:
    """Print one event line, whole and flushed (threads write them)."""
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _persistent_on_the_queue(q: pymqi.Queue) -> None:
    """Print ``Q <data>`` for each persistent message of the queue (browsed)."""
    options = CMQC.MQGMO_BROWSE_FIRST
    while True:
        md = pymqi.MD()
        try:
            data = q.get(None, md, pymqi.GMO(Options=options))
        except pymqi.MQMIError:
            break
        options = CMQC.MQGMO_BROWSE_NEXT
        if md.Persistence == CMQC.MQPER_PERSISTENT:
            say("Q " + data.decode())


class Worker:
    """One thread's random work on APP.Q, announced line by line (module docstring)."""

    def __init__(self, run: int, seed: int, thread_no: int) -> None:
        self.run, self.thread_no = run, thread_no
        self.rng = random.Random(seed * 100 + thread_no)
        self.conn = pymqi.connect("CRASHQM")
        self.q = pymqi.Queue(self.conn, "APP.Q", OPTIONS)
        self.n = 0
        self.mine: list[str] = []  # this thread's acknowledged persistent puts

    def next_name(self) -> str:
        self.n += 1
        return f"r{self.run}-t{self.thread_no}-{self.n}"

    def forever(self) -> None:
        rng = self.rng
        while True:
            action = rng.random()
            if action < 0.45:  # a unit of work of 1-3 puts, committed or backed out
                self.put_unit_of_work()
            elif action < 0.6:  # a persistent put outside syncpoint
                self.put_outside_syncpoint()
            elif action < 0.85:  # a get in syncpoint, committed or backed out
                self.get_in_syncpoint()
            elif self.mine:  # a get outside syncpoint, by CorrelId: final when it returns
                self.get_outside_syncpoint()

    def put_unit_of_work(self) -> None:
        rng, names = self.rng, []
        for _ in range(rng.randint(1, 3)):
            name = self.next_name()
            persistence = CMQC.MQPER_PERSISTENT if rng.random() < 0.8 \
                else CMQC.MQPER_NOT_PERSISTENT
            self.q.put(name.encode(), pymqi.MD(Persistence=persistence, CorrelId=name.encode()),
                       pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            if persistence == CMQC.MQPER_PERSISTENT:
                names.append(name)
        if rng.random() < 0.2:
            self.conn.backout()
            return
        for name in names:
            say("c " + name)
        self.conn.commit()
        for name in names:
            say("C " + name)
        self.mine += names

    def put_outside_syncpoint(self) -> None:
        name = self.next_name()
        say("c " + name)
        self.q.put(name.encode(), pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT,
                                           CorrelId=name.encode()))
        say("C " + name)
        self.mine.append(name)

    def get_in_syncpoint(self) -> None:
        md = pymqi.MD()
        try:
            data = self.q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        except pymqi.MQMIError:
            return
        if self.rng.random() < 0.25:
            self.conn.backout()
            return
        persistent = md.Persistence == CMQC.MQPER_PERSISTENT
        if persistent:
            say("g " + data.decode())
        self.conn.commit()
        if persistent:
            say("G " + data.decode())

    def get_outside_syncpoint(self) -> None:
        name = self.mine.pop(self.rng.randrange(len(self.mine)))
        say("g " + name)
        try:
            self.q.get(None, pymqi.MD(CorrelId=name.encode()),
                       pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
        except pymqi.MQMIError:
            return  # someone else got it
        say("G " + name)


def main(home: str, run: int, seed: int) -> None:
    system = tpfemu.System.start("CRASHQM", home, "B", journal="off", checkpoint_interval=0.1)
    if system.qmgr.catalog.profile is None:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-APP.Q")
    say("READY")
    conn = pymqi.connect("CRASHQM")
    q = pymqi.Queue(conn, "APP.Q", OPTIONS)  # kept open while the workers run, as before
    _persistent_on_the_queue(q)
    say("WORK")

    def worker(thread_no: int) -> None:
        Worker(run, seed, thread_no).forever()

    for t in range(THREADS):
        threading.Thread(target=worker, args=(t,), daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
