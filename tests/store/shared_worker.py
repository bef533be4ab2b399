"""Another processor of the complex, for the shared-queue tests (run as a script).

``python tests/store/shared_worker.py <mode> <home> <cpu> [args]``; it prints ``ready`` when
it has done its set-up, and its result as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time

from tpfemu import errors
from tpfemu.store.shared import SharedQueueStore


def wait_for(path: str) -> None:
    while not os.path.exists(path):
        time.sleep(0.001)


def main() -> None:
    mode, home, cpu, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    with SharedQueueStore.open(home, cpu, durable=False) as space:
        q = space.queue("SHARED.Q")
        if mode == "consume":  # get under units of work until the queue stays empty
            go = args[0]
            print("ready", flush=True)
            wait_for(go)
            got, uow, idle = [], 0, 0
            while idle < 200:
                uow += 1
                try:
                    msg = q.get_message(uow=uow)
                except errors.NoMessageAvailable:
                    idle += 1
                    time.sleep(0.001)
                    continue
                idle = 0
                if uow % 5 == 0:  # back some out: another getter may then take them
                    q.backout(uow)
                    continue
                q.commit(uow)
                got.append(msg.data.decode())
            print(json.dumps(got), flush=True)
        elif mode == "hold":  # work in flight when the process is killed
            q.put(b"in-flight put", 3, 7)  # uow 7 of this incarnation
            taken = q.get_message(uow=8)  # claims the first committed message
            cursor = q.cursor()
            locked = cursor.first(lock=True)
            print(json.dumps([taken.data.decode(), locked.data.decode()]), flush=True)
            print("ready", flush=True)
            time.sleep(600)
        elif mode == "put-then-commit":  # an uncommitted put, committed on request
            go = args[0]
            q.put(b"from " + cpu.encode(), 0, 1)
            print("ready", flush=True)
            wait_for(go)
            q.commit(1)
            print(json.dumps("committed"), flush=True)
        elif mode == "wait-get":  # MQGET with wait across processes: poll the version
            deadline = time.monotonic() + float(args[0])
            print("ready", flush=True)
            while True:
                seen = q.version()
                try:
                    msg = q.get_message()
                    break
                except errors.NoMessageAvailable:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        print(json.dumps(None), flush=True)
                        return
                    q.wait_for_change(seen, left)
            print(json.dumps(msg.data.decode()), flush=True)
        else:
            raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
