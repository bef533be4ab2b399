"""The SVRCONN agent's one-call MQPUT/MQGET (``tpfemu._exchange``,
native/python/exchange.c): ``exchange_setup`` takes the message verbs' layout from
:mod:`tpfemu.wire.fap.verbs` (which calls it at import, checked against cmqc.h's sizes),
and ``serve_verb(frame, handles, rooms, longest) -> bytes | None`` answers an MQPUT or
MQGET in our form by its handle's plan through the plans' raw entry, or returns None
having done nothing; ``client_exchange`` sends a client's MQPUT or MQGET request and
reads its reply (see verbs.exchange_message); ``serve_frames`` reads a conversation's
requests and sends the answers its serve function gives (see verbs.serve_frames);
``reply_parts`` reads a client's MQPUT or MQGET reply at its request's offsets (see
verbs.reply_parts)."""

from __future__ import annotations

from tpfemu._lowlevel.compiled import _fastpath  # noqa: F401 - the plans' capsule first

try:
    from tpfemu import _exchange
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError("tpfemu._exchange is not built: run `make native`") from exc

__all__ = ["client_exchange", "exchange_setup", "reply_parts", "serve_frames", "serve_verb"]

exchange_setup = _exchange.setup
serve_verb = _exchange.serve_verb
client_exchange = _exchange.client_exchange
serve_frames = _exchange.serve_frames
reply_parts = _exchange.reply_parts
