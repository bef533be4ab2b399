"""Helpers of the C program tests (their fixtures are in conftest.py)."""

from __future__ import annotations

from pathlib import Path

#: The C sources of the test programs.
PROGRAMS = Path(__file__).parent / "programs"


def long_at(data: bytes, offset: int) -> int:
    """The MQLONG at ``offset`` (MQENC_NATIVE: little-endian)."""
    return int.from_bytes(data[offset:offset + 4], "little", signed=True)


def blank(text: str, width: int) -> bytes:
    """``text`` as an MQCHARn field: blank-padded to ``width``."""
    return text.encode().ljust(width, b" ")
