"""The event journal: every queue-manager event, in size-rotated segments under the
system's home (schema: :mod:`tpfemu.journal.schema`, documented in docs/journal.md)."""
