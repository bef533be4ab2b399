"""The SSLCIPH names that pin a TLS channel to one protocol version (IBM's CipherSpec
names, by the version they select), read by the server and by the client alike."""

from __future__ import annotations

__all__ = ["TLS12_ONLY", "TLS13_ONLY"]

TLS13_ONLY = ("ANY_TLS13", "ANY_TLS13_OR_HIGHER", "TLS_AES_128_GCM_SHA256",
              "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256")
TLS12_ONLY = ("ANY_TLS12", "TLS_RSA_WITH_AES_128_CBC_SHA256",
              "TLS_RSA_WITH_AES_256_GCM_SHA384", "ECDHE_RSA_AES_128_GCM_SHA256",
              "ECDHE_RSA_AES_256_GCM_SHA384")
