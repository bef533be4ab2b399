"""pymqi's ``CMQXC`` module: IBM's channel constants (defined once, in :mod:`tpfemu.mq.cmqxc`)."""

from tpfemu.mq.cmqxc import *  # noqa: F403 - the whole channel constant table, under pymqi's name
