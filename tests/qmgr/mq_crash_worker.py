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


def main(home: str, run: int, seed: int) -> None:
    out = threading.Lock()

    def say(line: str) -> None:
        with out:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    system = tpfemu.System.start("CRASHQM", home, "B", journal="off", checkpoint_interval=0.1)
    if system.qmgr.catalog.profile is None:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-APP.Q")
    say("READY")
    conn = pymqi.connect("CRASHQM")
    q = pymqi.Queue(conn, "APP.Q", OPTIONS)
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
    say("WORK")

    def worker(thread_no: int) -> None:
        rng = random.Random(seed * 100 + thread_no)
        conn = pymqi.connect("CRASHQM")
        q = pymqi.Queue(conn, "APP.Q", OPTIONS)
        n = 0
        mine: list[str] = []  # this thread's acknowledged persistent puts
        while True:
            action = rng.random()
            if action < 0.45:  # a unit of work of 1-3 puts, committed or backed out
                names = []
                for _ in range(rng.randint(1, 3)):
                    n += 1
                    name = f"r{run}-t{thread_no}-{n}"
                    persistence = CMQC.MQPER_PERSISTENT if rng.random() < 0.8 \
                        else CMQC.MQPER_NOT_PERSISTENT
                    q.put(name.encode(), pymqi.MD(Persistence=persistence, CorrelId=name.encode()),
                          pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
                    if persistence == CMQC.MQPER_PERSISTENT:
                        names.append(name)
                if rng.random() < 0.2:
                    conn.backout()
                    continue
                for name in names:
                    say("c " + name)
                conn.commit()
                for name in names:
                    say("C " + name)
                mine += names
            elif action < 0.6:  # a persistent put outside syncpoint
                n += 1
                name = f"r{run}-t{thread_no}-{n}"
                say("c " + name)
                q.put(name.encode(), pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT,
                                              CorrelId=name.encode()))
                say("C " + name)
                mine.append(name)
            elif action < 0.85:  # a get in syncpoint, committed or backed out
                md = pymqi.MD()
                try:
                    data = q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
                except pymqi.MQMIError:
                    continue
                if rng.random() < 0.25:
                    conn.backout()
                    continue
                persistent = md.Persistence == CMQC.MQPER_PERSISTENT
                if persistent:
                    say("g " + data.decode())
                conn.commit()
                if persistent:
                    say("G " + data.decode())
            elif mine:  # a get outside syncpoint, by CorrelId: final when it returns
                name = mine.pop(rng.randrange(len(mine)))
                say("g " + name)
                try:
                    q.get(None, pymqi.MD(CorrelId=name.encode()),
                          pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
                except pymqi.MQMIError:
                    continue  # someone else got it
                say("G " + name)

    for t in range(THREADS):
        threading.Thread(target=worker, args=(t,), daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
