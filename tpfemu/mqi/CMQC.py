"""pymqi's ``CMQC`` module: IBM's MQ constants (defined once, in :mod:`tpfemu.mq.cmqc`)."""

from tpfemu.mq.cmqc import *  # noqa: F403 - the whole constant table, under pymqi's name
