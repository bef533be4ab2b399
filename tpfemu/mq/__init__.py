"""MQ definitions every layer shares: IBM's constants (:mod:`tpfemu.mq.cmqc`) and the byte
layouts of the MQ structures (:mod:`tpfemu.mq.structs`, :mod:`tpfemu.mq.headers`).

They sit below the queue manager so that it can use them; applications reach them through
the MQI under pymqi's names (``from tpfemu.mqi import CMQC, MD``).
"""
