"""The recovery log's replay at restart, in C (``tpf_log_replay``,
native/include/tpf/logrec.h): what :mod:`tpfemu.store.recovery` calls, in Python types.
"""

from __future__ import annotations

import struct

from tpfemu._lowlevel.compiled import ffi, lib

__all__ = ["log_pack", "log_replay"]

_EFFECT = struct.Struct("<QIIIII4x")  # tpf_log_effect_t: key, kind, qid, backouts, batch, offset
if _EFFECT.size != ffi.sizeof("tpf_log_effect_t"):  # pragma: no cover - a changed header
    raise ImportError("tpf_log_effect_t (native/include/tpf/logrec.h) is not "
                      f"{_EFFECT.format!r}: change them together")
_PTR = ffi.sizeof("void *")


def log_replay(batches: list, tops: list[int | None], froms: list[int], floor: int
               ) -> tuple[list[tuple[bytearray, bytearray] | None], list[tuple]]:
    """The recovery log's tail replayed at restart (``tpf_log_replay``,
    native/include/tpf/logrec.h, without the GIL), over ``batches``: (first LSN,
    incarnation, records) in LSN order, the records as LMDB holds them (views of the map).

    :param tops: per queue id, the highest key its checkpoint holds (None: no queue).
    :param froms: per queue id, its replay point; ``floor``: from here on no record is
        skipped.
    :returns: ``(tails, effects)``: per queue id None or (descriptors, addresses) of the
        tail's surviving messages above ``top`` (a packed chunk's count and descriptors,
        and one native pointer per message to its data in the map, for
        :meth:`CoreQueue.put_packed_gather`), and the effects on the checkpoint's
        messages in order: (kind, queue id, key, backout count, batch index, offset).
    :raises ValueError: ``(lsn, detail)`` for a record that is not readable.
    """
    nb, nq = len(batches), len(tops)
    cbatches = ffi.new("tpf_log_batch_t[]", max(nb, 1))
    held = []  # the buffers' cdata, alive until the call returns
    for b, (first, incarnation, records) in zip(cbatches, batches, strict=False):
        buf = ffi.from_buffer(records)
        held.append(buf)
        b.buf, b.len, b.first, b.incarnation = buf, len(buf), first, incarnation
    known = bytes(t is not None for t in tops) or b"\0"
    top = ffi.new("uint64_t[]", [t or 0 for t in tops] or [0])
    from_ = ffi.new("uint64_t[]", froms or [0])
    out = ffi.new("tpf_log_replay_t **")
    rc = lib.tpf_log_replay(cbatches, nb, top, from_, ffi.from_buffer("uint8_t[]", known), nq,
                            floor, out)
    r = ffi.gc(out[0], lib.tpf_log_replay_free) if out[0] != ffi.NULL else None
    if rc == lib.TPF_LOG_E_RECORD:
        lsn, kind = ffi.new("uint64_t *"), ffi.new("int *")
        detail = ffi.string(lib.tpf_log_replay_error(r, lsn, kind)).decode()
        raise ValueError(lsn[0], detail if kind[0] < 0 else f"{detail} {kind[0]}")
    if rc:
        raise MemoryError("log_replay: out of memory")
    counts = ffi.new("size_t[]", max(nq, 1))
    lib.tpf_log_replay_counts(r, counts)
    tails: list[tuple[bytearray, bytearray] | None] = [None] * nq
    descs = ffi.new("unsigned char *[]", max(nq, 1))
    addrs = ffi.new("const void **[]", max(nq, 1))
    for q in range(nq):
        if counts[q]:
            d, a = bytearray(4 + counts[q] * lib.TPF_MQ_PACKED_DESC), bytearray(counts[q] * _PTR)
            tails[q] = (d, a)
            descs[q] = held_d = ffi.from_buffer("unsigned char[]", d)
            addrs[q] = held_a = ffi.from_buffer("const void *[]", a)
            held += (held_d, held_a)
    if lib.tpf_log_replay_gather(r, descs, addrs):
        raise MemoryError("log_replay: out of memory")
    fx = ffi.new("tpf_log_effect_t **")
    n = lib.tpf_log_replay_effects(r, fx)
    effects = [(kind, qid, key, backouts, batch, offset) for key, kind, qid, backouts, batch,
               offset in _EFFECT.iter_unpack(ffi.buffer(fx[0], n * _EFFECT.size))] if n else []
    return tails, effects


def log_pack(descriptors, addresses) -> bytearray:
    """A tail of :func:`log_replay` as one packed chunk (``tpf_log_pack``): the
    descriptors, then each message's data copied from its address (which must still be
    mapped). :raises ValueError: the sizes do not agree with the count."""
    d = ffi.from_buffer(descriptors)
    size = lib.tpf_log_pack_size(d, len(d))
    if size == 0 or len(addresses) != int.from_bytes(bytes(descriptors[:4]), "little") * _PTR:
        raise ValueError(f"log_pack: {len(d)} bytes of descriptors and {len(addresses)} "
                         "bytes of addresses do not agree")
    out = bytearray(size)
    lib.tpf_log_pack(d, len(d), ffi.from_buffer("const void *[]", addresses),
                     ffi.from_buffer("unsigned char[]", out))
    return out
