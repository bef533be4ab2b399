"""pymqi's ``CMQC`` module: IBM's MQ constants (defined once, in :mod:`tpfemu.mq.cmqc`).

As pymqi's, it also carries the channel names old client programs read from it
(``CMQC.MQCHT_CLNTCONN``, ``CMQC.MQXPT_TCP``), defined in :mod:`tpfemu.mq.cmqxc`.
"""

from tpfemu.mq import cmqxc as _cmqxc
from tpfemu.mq.cmqc import *  # noqa: F403 - the whole constant table, under pymqi's name

globals().update({_name: getattr(_cmqxc, _name) for _name in _cmqxc.LEGACY_CMQC_NAMES})
