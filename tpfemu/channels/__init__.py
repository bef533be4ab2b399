"""Message channels: MQ's wire format (:mod:`tpfemu.wire.fap`) and the agents that use it.

The wire format is pure code from bytes to structures and back; the message channel agents
(sender, receiver, server-connection) own the sockets and call it.
"""
