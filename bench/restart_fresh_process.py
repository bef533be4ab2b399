"""Restart of 1 000 000 persistent 1 KB messages, each in a new process.

``bench_persist.py`` times restarts one after another in one process, where each round
reuses memory the previous one freed. A real restart is a new process that must obtain
every page of its slots. This script writes the messages once (under ``--home``, default
a temporary directory): as checkpoints, or with ``--source log`` as the recovery log
alone (units of work of 100, as ``bench_persist.py`` does). Then it runs the restart
``--runs`` times, each in a fresh interpreter, and prints each run's rate beside, from
the same process, a read of every byte of the same store through LMDB and a first write
of as much fresh memory as the restart's slots take (on this VM the kernel's zeroing of
fresh pages is most of a restart's time).

    .venv/bin/python bench/restart_fresh_process.py --runs 5 [--source log]
"""

from __future__ import annotations

import argparse
import ctypes
import mmap
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

N = 1_000_000
QUEUES = [f"BENCH.Q{q}" for q in range(4)]


def write_checkpoints(home: Path) -> None:
    from tpfemu.store import CheckpointStore, StoredMessage
    from tpfemu.store.message import NEVER

    payload, msg_id, per_queue = b"x" * 1024, bytes(range(24)), N // len(QUEUES)
    with CheckpointStore.open(home, map_size=2 << 30) as ckpt:
        for q, name in enumerate(QUEUES):
            keys = range(q * per_queue + 1, (q + 1) * per_queue + 1)
            ckpt.write(name, (StoredMessage(k, k.to_bytes(24, "big"), msg_id, k % 10, NEVER,
                                            k, 0, 0, payload) for k in keys), lsn=1)  # fmt: skip


def write_log(home: Path) -> None:
    from tpfemu.store import Commit, Put, RecoveryLog

    payload = b"x" * 1024
    with RecoveryLog(home, map_size=2 << 30) as log:
        for uow in range(1, N // 100 + 1):
            queue = QUEUES[uow % 4]
            ticket = log.append([*(Put(queue, payload, (uow * 100 + j).to_bytes(24, "big"),
                                       priority=j % 10, uow=uow) for j in range(100)),
                                 Commit(uow)])  # fmt: skip
            if uow % 50 == 0:
                ticket.wait()


def restart_once(home: Path, source: str) -> None:
    """One run, in this (fresh) process: print restarted messages/s and scan messages/s."""
    import lmdb

    from tpfemu.qmgr.localq import LocalQueue
    from tpfemu.qmgr.objects import LocalQueueDef
    from tpfemu.qmgr.persistence import QueuePersistence
    from tpfemu.store.checkpoint import CHUNKS_DB
    from tpfemu.store.log_records import LOG_DB
    from tpfemu.store.recovery import recovered

    queues = {name: LocalQueue(LocalQueueDef(name=name, maxdepth=0), b"BENCHP")
              for name in QUEUES}  # fmt: skip
    store, db = ("checkpoint", CHUNKS_DB) if source == "checkpoint" else ("recovery-log", LOG_DB)
    env = lmdb.open(str(home / store), readonly=True, lock=False, max_dbs=4)
    start = time.perf_counter()
    scanned = crc = 0
    with env.begin(buffers=True) as txn:  # reads every byte, as the restart must
        for _, value in txn.cursor(env.open_db(db, txn=txn)):
            crc = zlib.crc32(value, crc)
            scanned += len(value)
    scan = time.perf_counter() - start
    env.close()
    start = time.perf_counter()
    with recovered(home) as segments:
        count = sum(QueuePersistence._restore_queue(queues[name], segs)
                    for name, segs in segments.items())  # fmt: skip
    took = time.perf_counter() - start
    assert count == N and scanned > N * 1024
    slots = sum(q.core.stats()["slab_bytes"] for q in queues.values())
    touch = _first_touch(slots)  # while the restart's memory is still held: fresh pages
    print(f"restart from {source} {N / took / 1e6:.2f}M msgs/s ({took:.2f} s); reading the same "
          f"{store} through LMDB (crc32 of every chunk) {scan:.2f} s; first write of "
          f"{slots / 2**30:.2f} GiB of fresh memory (what the slots take) {touch:.2f} s")


def _first_touch(nbytes: int) -> float:
    """Seconds to write ``nbytes`` of fresh memory once, on huge pages as the core asks."""
    memory = mmap.mmap(-1, nbytes)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        memory.madvise(mmap.MADV_HUGEPAGE)
    start_at = ctypes.c_char.from_buffer(memory)
    start = time.perf_counter()
    ctypes.memset(ctypes.addressof(start_at), 1, nbytes)
    took = time.perf_counter() - start
    del start_at  # the mmap closes only once nothing points into it
    memory.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--source", choices=["checkpoint", "log"], default="checkpoint")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        restart_once(args.home, args.source)
        return
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp)
        if args.source == "checkpoint" and not (home / "checkpoint" / "data.mdb").exists():
            write_checkpoints(home)
        if args.source == "log" and not (home / "recovery-log" / "data.mdb").exists():
            write_log(home)
        for _ in range(args.runs):
            subprocess.run([sys.executable, __file__, "--child", "--home", str(home),
                            "--source", args.source], check=True)  # fmt: skip


if __name__ == "__main__":
    main()
