"""Object definitions kept in the system's home: what ``ZMQSC DEF/ALT/DEL`` made survives
a restart.

On TPF the MQ definitions are kept in file records common to every processor of the
complex. Here they are one LMDB environment, ``<home>/definitions``, shared by every
process started with that home: one record per object, keyed by type and name, whose
value is the definition's :meth:`~tpfemu.qmgr.objects.ObjectDef.to_dict` as JSON. A
change is one write transaction, synced when it commits, so a definition the console
confirmed is on disk; a record is replaced whole, so none is ever half-written.

Every record carries the processor that wrote it last and a change counter
(:meth:`DefinitionStore.version`) rises with every write, so another processor of the
complex can tell that it must look again.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tpfemu import errors
from tpfemu.store.lmdbenv import LmdbEnv, MiB

__all__ = ["DefinitionStore"]

OBJECTS_DB, META_DB = b"objects", b"meta"
_VERSION = b"version"
_U64 = struct.Struct("<Q")


def _key(type_name: str, name: str) -> bytes:
    return type_name.encode("ascii") + b"\0" + name.encode("utf-8")


class DefinitionStore:
    """The definitions of a home, in ``<home>/definitions``."""

    def __init__(self, home: str | Path, *, max_map_size: int = 256 * MiB) -> None:
        self.path = Path(home) / "definitions"
        self._env = LmdbEnv(self.path, map_size=4 * MiB, max_map_size=max_map_size,
                            dbs=(OBJECTS_DB, META_DB))  # fmt: skip
        self._objects = self._env.db(OBJECTS_DB)
        self._meta = self._env.db(META_DB)

    def close(self) -> None:
        self._env.close()

    def __enter__(self) -> DefinitionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(self) -> list[dict[str, Any]]:
        """Every stored definition as a ``to_dict`` mapping (profile first, then by key).

        :raises ObjectDamaged: a record is not a readable definition (names the record).
        """
        out: list[dict[str, Any]] = []
        with self._env.read() as txn:
            for key, value in txn.cursor(db=self._objects):
                try:
                    record = json.loads(bytes(value))
                    definition = record["definition"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise errors.error_for(
                        2101, call="restore", obj=bytes(key).replace(b"\0", b" ").decode(
                            "utf-8", "replace"),
                    ) from exc
                out.append(definition)
        out.sort(key=lambda d: d.get("type") != "MQP")
        return out

    def save(self, definition: dict[str, Any], cpu: str) -> None:
        """Store (add or replace) one definition, written by processor ``cpu``."""
        key = _key(definition["type"], definition["name"])
        value = json.dumps({"cpu": cpu, "definition": definition},
                           sort_keys=True).encode()  # fmt: skip

        def put(txn) -> None:
            txn.put(key, value, db=self._objects)
            self._bump(txn)

        self._env.write(put, call="DEFINE", obj=definition["name"])

    def remove(self, type_name: str, name: str) -> None:
        """Forget one definition (no error if it is not stored)."""

        def delete(txn) -> None:
            txn.delete(_key(type_name, name), db=self._objects)
            self._bump(txn)

        self._env.write(delete, call="DELETE", obj=name, reclaim=True)

    def replace_all(self, definitions: Iterable[dict[str, Any]], cpu: str) -> None:
        """Make the stored set exactly ``definitions`` in one transaction."""
        items = [(_key(d["type"], d["name"]),
                  json.dumps({"cpu": cpu, "definition": d}, sort_keys=True).encode())
                 for d in definitions]  # fmt: skip

        def put(txn) -> None:
            txn.drop(self._objects, delete=False)
            for key, value in items:
                txn.put(key, value, db=self._objects)
            self._bump(txn)

        self._env.write(put, call="DEFINE", obj=str(self.path))

    def version(self) -> int:
        """A counter that rises with every change (cheap: one read)."""
        with self._env.read() as txn:
            raw = txn.get(_VERSION, db=self._meta)
        return _U64.unpack(raw)[0] if raw else 0

    def _bump(self, txn) -> None:
        raw = txn.get(_VERSION, db=self._meta)
        txn.put(_VERSION, _U64.pack((_U64.unpack(raw)[0] if raw else 0) + 1), db=self._meta)
