"""The Internet daemon (ZINET): TCP listeners that hand each connection to a program.

:mod:`tpfemu.inetd.daemon` holds the daemon and its servers (one listener thread per
started server), :mod:`tpfemu.inetd.idcf` the server definitions and their file in the
home, :mod:`tpfemu.inetd.connection` what the entry a connection starts sees.

The package sits beside :mod:`tpfemu.console` in the layering (DESIGN.md §1) and imports
neither it nor the System: the daemon runs on a :class:`~tpfemu.inetd.daemon.DaemonHost`
(the System is one), and the console's ZINET command drives it through the host's
``internet_daemon()``.
"""
