"""The traffic pipeline on Spark: ``analyze`` a journal, ``replay`` a capture into an
emulated system, ``compare`` expected against actual outbound messages.

Modules, one concept each: :mod:`.session` (the SparkSession), :mod:`.sources` (reading
journals and Parquet with a schema check), :mod:`.capture` (the capture format and which
messages are inbound or outbound), :mod:`.analyze`, :mod:`.report`, :mod:`.replay`,
:mod:`.compare`, :mod:`.output` (atomic output directories) and :mod:`.cli` (the click
commands). Documented in docs/pipeline.md.
"""
