"""MQ's wire format and its framing over a socket, shared by both ends of a conversation.

- :mod:`tpfemu.wire.fap`: the FAP's segments and structures as pure functions (no
  sockets): TSH framing, the ID exchange, message data, control flows, client verbs.
- :mod:`tpfemu.wire.link`: whole segments over one socket (reassembly, heartbeats).
- :mod:`tpfemu.wire.tls`: the cipher-name tables both ends of a TLS channel read.

The message channel agents and the SVRCONN server (:mod:`tpfemu.channels`) and the MQI's
TCP client (:mod:`tpfemu.mqi.client`) stand on it; it stands on the MQ structures
(:mod:`tpfemu.mq`) only.
"""
