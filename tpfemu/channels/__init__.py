"""Channels: tpfemu's network endpoints.

Today: the Internet daemon (:mod:`tpfemu.channels.inetd`), which listens on the TCP ports
of the servers defined with ZINET (:mod:`tpfemu.channels.idcf` holds the definitions) and
gives each connection to a new entry running the server's program. Still to come: the
message channel agents (SDR, RCVR, SVRCONN over TCP).

This package sits beside :mod:`tpfemu.console` in the layering; the console's ZINET
command drives the daemon through :meth:`InternetDaemon.of(system)
<tpfemu.channels.inetd.InternetDaemon.of>`.
"""
