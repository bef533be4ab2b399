"""The workload the crash tests kill: units of work of persistent puts and gets, checkpoints
and trims, on several threads, as a queue manager would drive the store.

Run as ``python crash_worker.py HOME SEED``. It recovers HOME, prints ``READY``, then works
until it is killed, printing one line per event (flushed, so a SIGKILL loses at most the
line being written):

- ``C <queue> <key,...>``: about to commit a unit of work that put these messages;
- ``P <queue> <key,...>``: that commit returned: the puts are acknowledged;
- ``g <queue> <key>``: about to commit a unit of work that got this message;
- ``G <queue> <key>``: that commit returned: the get is acknowledged.

Every message's data is ``b"data-" + MsgId`` and its priority is its number modulo 10, so
the test can check that what comes back is undamaged.
"""

from __future__ import annotations

import random
import sys
import threading

from tpfemu.store import (
    Backout,
    Checkpointer,
    CheckpointStore,
    Commit,
    Get,
    Put,
    RecoveryLog,
    recover,
)

THREADS = 4


class Queue:
    """One queue as its worker thread sees it: committed messages, and the first LSN of the
    unit of work in flight (what a checkpoint's replay point must not pass)."""

    def __init__(self, name: str, messages) -> None:
        self.name = name
        self.lock = threading.Lock()
        self.present = {m.key: m for m in messages}
        self.in_flight: int | None = None


def main(home: str, seed: int) -> None:
    out = threading.Lock()

    def say(line: str) -> None:
        with out:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    log = RecoveryLog(home, map_size=8 << 20)
    ckpt = CheckpointStore.open(home, map_size=8 << 20)
    state = recover(home, log=log, checkpoints=ckpt)
    queues = [Queue(f"Q{t}", state.get(f"Q{t}", [])) for t in range(THREADS)]
    say("READY")
    for t, q in enumerate(queues):
        threading.Thread(target=work, args=(log, q, say, seed * 100 + t, t), daemon=True).start()
    def snapshot():
        for q in queues:
            with q.lock:
                messages = sorted(q.present.values())
                point = log.replay_point
                if q.in_flight is not None:
                    point = min(point, q.in_flight)
            yield q.name, messages, point

    Checkpointer(ckpt, log, snapshot, interval=0.02).start()
    threading.Event().wait()  # until killed


def work(log: RecoveryLog, q: Queue, say, seed: int, thread: int) -> None:
    rng = random.Random(seed)
    number = seed * 10_000_000
    uow = thread  # unit-of-work numbers are unique across the threads, as a queue manager's
    while True:
        uow += THREADS
        action = rng.random()
        if action < 0.5 or not q.present:
            ids = []
            for _ in range(rng.randint(1, 3)):
                number += 1
                ids.append((number % 10**24).to_bytes(24, "big"))
            records = [Put(q.name, b"data-" + i, i, priority=int.from_bytes(i, "big") % 10,
                           uow=uow) for i in ids]  # fmt: skip
            with q.lock:
                ticket = log.append(records)
                q.in_flight = ticket.lsn
            keys = ",".join(map(str, ticket.lsns))
            if rng.random() < 0.15:
                log.commit([Backout(uow)])
                with q.lock:
                    q.in_flight = None
                continue
            say(f"C {q.name} {keys}")
            log.commit([Commit(uow)])
            with q.lock:
                for lsn in ticket.lsns:
                    r = records[lsn - ticket.lsn]
                    q.present[lsn] = (lsn, r.msg_id, r.correl_id, r.priority, r.expiry,
                                      r.put_time, r.ctx_len, 0, r.data)  # fmt: skip
                q.in_flight = None
            say(f"P {q.name} {keys}")
        else:
            with q.lock:
                key = rng.choice(list(q.present))
                m = q.present[key]
                ticket = log.append([Get(q.name, key, uow=uow, backout_count=m[7])])
                q.in_flight = ticket.lsn
            if rng.random() < 0.2:
                log.commit([Backout(uow)])
                with q.lock:
                    q.present[key] = (*m[:7], m[7] + 1, m[8])
                    q.in_flight = None
                continue
            say(f"g {q.name} {key}")
            log.commit([Commit(uow)])
            with q.lock:
                del q.present[key]
                q.in_flight = None
            say(f"G {q.name} {key}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
