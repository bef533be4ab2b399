"""IBM MQ channel constants with IBM's names and values (``cmqxc.h``), shaped as pymqi's
``CMQXC``: what a client program needs to describe its channel in an MQCD
(:class:`tpfemu.mq.connstructs.CD`).

::

    from tpfemu.mqi import CMQXC
    cd = mqi.CD(ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)

``MQCD_LENGTH_*`` are the lengths of the 4-byte-pointer layout that :class:`CD` packs, as
``MQOD_LENGTH_*`` in :mod:`tpfemu.mq.cmqc` (a 64-bit ``cmqxc.h`` pads the MQCD from
Version 4 on: 1568 bytes and more). pymqi's ``CMQC`` also carries the channel names that
old programs read from there (``CMQC.MQCHT_CLNTCONN``); :mod:`tpfemu.mqi.CMQC` re-exports
them from here, so each is defined once.
"""

from __future__ import annotations

# -- MQCD: structure version and length -----------------------------------------------------

MQCD_VERSION_1 = 1
MQCD_VERSION_2 = 2
MQCD_VERSION_3 = 3
MQCD_VERSION_4 = 4
MQCD_VERSION_5 = 5
MQCD_VERSION_6 = 6
MQCD_VERSION_7 = 7
MQCD_VERSION_8 = 8
MQCD_VERSION_9 = 9
MQCD_VERSION_10 = 10
MQCD_VERSION_11 = 11
MQCD_VERSION_12 = 12
MQCD_CURRENT_VERSION = 12
MQCD_LENGTH_1 = 984
MQCD_LENGTH_2 = 1312
MQCD_LENGTH_3 = 1480
MQCD_LENGTH_4 = 1540
MQCD_LENGTH_5 = 1552
MQCD_LENGTH_6 = 1648
MQCD_LENGTH_7 = 1748
MQCD_LENGTH_8 = 1840
MQCD_LENGTH_9 = 1864
MQCD_LENGTH_10 = 1876
MQCD_LENGTH_11 = 1940
MQCD_LENGTH_12 = 1944
MQCD_CURRENT_LENGTH = 1944

# -- channel types, transports ----------------------------------------------------------------

MQCHT_SENDER = 1
MQCHT_SERVER = 2
MQCHT_RECEIVER = 3
MQCHT_REQUESTER = 4
MQCHT_ALL = 5
MQCHT_CLNTCONN = 6
MQCHT_SVRCONN = 7
MQCHT_CLUSRCVR = 8
MQCHT_CLUSSDR = 9
MQCHT_MQTT = 10
MQCHT_AMQP = 11

MQXPT_ALL = -1
MQXPT_LOCAL = 0
MQXPT_LU62 = 1
MQXPT_TCP = 2
MQXPT_NETBIOS = 3
MQXPT_SPX = 4
MQXPT_DECNET = 5
MQXPT_UDP = 6

# -- other MQCD field values ------------------------------------------------------------------

MQPA_DEFAULT = 1
MQPA_CONTEXT = 2
MQPA_ONLY_MCA = 3
MQPA_ALTERNATE_OR_MCA = 4
MQCDC_SENDER_CONVERSION = 1
MQCDC_NO_SENDER_CONVERSION = 0
MQMCAT_PROCESS = 1
MQMCAT_THREAD = 2
MQNPMS_NORMAL = 1
MQNPMS_FAST = 2
MQSCA_REQUIRED = 0
MQSCA_OPTIONAL = 1
MQSCA_NEVER_REQUIRED = 2
MQKAI_AUTO = -1
MQCAFTY_NONE = 0
MQCAFTY_PREFERRED = 1
MQRCN_NO = 0
MQRCN_YES = 1
MQRCN_Q_MGR = 2
MQRCN_DISABLED = 3
MQCOMPRESS_NOT_AVAILABLE = -1
MQCOMPRESS_NONE = 0
MQCOMPRESS_RLE = 1
MQCOMPRESS_ZLIBFAST = 2
MQCOMPRESS_ZLIBHIGH = 4
MQCOMPRESS_SYSTEM = 8
MQCOMPRESS_ANY = 0x0FFFFFFF
MQSECPROT_NONE = 0
MQSECPROT_SSLV30 = 1
MQSECPROT_TLSV10 = 2
MQSECPROT_TLSV12 = 4
MQSECPROT_TLSV13 = 8
MQSPL_PASSTHRU = 0
MQSPL_REMOVE = 1
MQSPL_AS_POLICY = 2

#: The names pymqi's ``CMQC`` also carries (from its pre-1.0 days): re-exported there.
LEGACY_CMQC_NAMES: tuple[str, ...] = tuple(
    name for name in dir() if name.startswith(
        ("MQCD_", "MQCHT_", "MQXPT_", "MQPA_", "MQCDC_", "MQMCAT_", "MQNPMS_"))
)
