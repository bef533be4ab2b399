"""The operator's client user table: who may connect on a CHCKCLNT(REQUIRED) channel.

A SVRCONN channel defined with ``CHCKCLNT-REQUIRED`` accepts a client only when the
client gives a user and password that this table holds. The table is a text file, one
user a line, ``user:salt:hash`` with the password hashed by PBKDF2-HMAC-SHA256
(:data:`ROUNDS` rounds, a 16-byte random salt, both in hexadecimal); no password is
stored. Lines starting with ``#`` and blank lines are ignored.

Where it is: ``$TPFEMU_CLIENT_USERS`` when set, else ``clientusers`` in the System's home;
a System without a home and without the variable has no table, and every client on a
CHCKCLNT(REQUIRED) channel is refused. The file is read at each connection, so an
operator's change applies to the next client.

The operator maintains it with::

    python -m tpfemu.channels.svrconn_users set FILE USER      # asks for the password
    python -m tpfemu.channels.svrconn_users delete FILE USER
    python -m tpfemu.channels.svrconn_users list FILE
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import os
import sys
from pathlib import Path

__all__ = ["ROUNDS", "UserTable", "hash_password", "table_path"]

ROUNDS = 100_000  #: PBKDF2 rounds (a check costs ~50 ms on one core)
USER_MAX = 64  #: the longest user id (IBM's long user id)


def hash_password(password: str, salt: bytes) -> bytes:
    """PBKDF2-HMAC-SHA256 of ``password`` (UTF-8) with ``salt``."""
    return hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ROUNDS)


def table_path(home: Path | None) -> Path | None:
    """The table's file: ``$TPFEMU_CLIENT_USERS``, else ``home/clientusers``, else None."""
    env = os.environ.get("TPFEMU_CLIENT_USERS", "").strip()
    if env:
        return Path(env)
    return home / "clientusers" if home is not None else None


class UserTable:
    """The user table in file ``path`` (see the module docstring)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def _entries(self) -> dict[str, tuple[bytes, bytes]]:
        entries: dict[str, tuple[bytes, bytes]] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return entries
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(":")
            try:
                user, salt, digest = parts[0], bytes.fromhex(parts[1]), bytes.fromhex(parts[2])
            except (IndexError, ValueError):
                raise ValueError(f"{self.path} line {number}: not user:salt:hash") from None
            entries[user] = (salt, digest)
        return entries

    def check(self, user: str, password: str) -> bool:
        """True when ``user`` is in the table with ``password``."""
        entry = self._entries().get(user)
        if entry is None:
            hash_password(password, b"\0" * 16)  # the same time for an unknown user
            return False
        salt, digest = entry
        return hmac.compare_digest(hash_password(password, salt), digest)

    def users(self) -> list[str]:
        """The users in the table, sorted."""
        return sorted(self._entries())

    def set(self, user: str, password: str) -> None:
        """Add ``user`` with ``password``, or change its password.

        :raises ValueError: a user id that is empty, too long, or holds ``:`` or spaces.
        """
        if not user or len(user) > USER_MAX or ":" in user or any(c.isspace() for c in user):
            raise ValueError(f"user id {user!r} must be 1 to {USER_MAX} characters without "
                             "':' or spaces")
        entries = self._entries()
        salt = os.urandom(16)
        entries[user] = (salt, hash_password(password, salt))
        self._write(entries)

    def delete(self, user: str) -> bool:
        """Remove ``user``; False if it was not there."""
        entries = self._entries()
        if entries.pop(user, None) is None:
            return False
        self._write(entries)
        return True

    def _write(self, entries: dict[str, tuple[bytes, bytes]]) -> None:
        lines = ["# tpfemu client user table: user:salt:pbkdf2-sha256 (docs/clients.md)"]
        lines += [f"{u}:{s.hex()}:{d.hex()}" for u, (s, d) in sorted(entries.items())]
        tmp = self.path.with_name(self.path.name + ".new")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
        os.replace(tmp, self.path)


def main(argv: list[str]) -> int:
    """``set FILE USER`` (password from the terminal, or stdin's first line), ``delete
    FILE USER``, ``list FILE``."""
    usage = "usage: python -m tpfemu.channels.svrconn_users set|delete FILE USER | list FILE"
    if len(argv) < 2 or argv[0] not in ("set", "delete", "list"):
        print(usage, file=sys.stderr)
        return 2
    table = UserTable(argv[1])
    if argv[0] == "list":
        print("\n".join(table.users()))
        return 0
    if len(argv) != 3:
        print(usage, file=sys.stderr)
        return 2
    if argv[0] == "delete":
        return 0 if table.delete(argv[2]) else 1
    password = getpass.getpass() if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
    table.set(argv[2], password)
    return 0


if __name__ == "__main__":  # pragma: no cover - the operator's command
    raise SystemExit(main(sys.argv[1:]))
