"""Without the ``pipeline`` extra the queue manager still runs, and each pipeline command
says what to install instead of failing with a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: Runs the tpfemu CLI with the extra's modules made unimportable (None in sys.modules
#: makes ``import pyspark`` raise ModuleNotFoundError, as on a machine without it).
_WRAPPER = textwrap.dedent("""
    import sys
    for name in {blocked!r}:
        sys.modules[name] = None
    from tpfemu.cli import main
    sys.argv = ["tpfemu", *sys.argv[1:]]
    main()
""")


def run_without(blocked: tuple[str, ...], *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI with ``blocked`` modules missing, in a fresh interpreter."""
    return subprocess.run([sys.executable, "-c", _WRAPPER.format(blocked=blocked), *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "args",
    [
        ("analyze", "journal-home", "--out", "report"),
        ("compare", "expected", "actual", "--out", "diff"),
        ("replay", "capture", "--home", "home"),
    ],
    ids=lambda a: a[0],
)
def test_a_pipeline_command_without_spark_says_what_to_install(tmp_path, args):
    """analyze, compare and replay without pyspark exit 1 naming pyspark and the extra to
    install, with no traceback and nothing written."""
    result = run_without(("pyspark",), *args)
    assert result.returncode == 1, result.stderr
    assert f"tpfemu {args[0]}: error: the pipeline needs pyspark" in result.stderr
    assert "pip install 'tpfemu[pipeline]'" in result.stderr
    assert "Java 17" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_every_missing_module_of_the_extra_is_named():
    """With pyspark, pandas and matplotlib all missing, the message names the three."""
    result = run_without(("pyspark", "pandas", "matplotlib"), "analyze", "j", "--out", "o")
    assert result.returncode == 1, result.stderr
    assert "the pipeline needs pyspark, pandas, matplotlib, which are not installed" \
        in result.stderr


def test_the_queue_manager_runs_without_the_extra():
    """tpfemu cmd boots a system and answers a console command with the extra missing."""
    result = run_without(("pyspark", "pandas", "matplotlib"), "cmd", "ZMQSC DISP QMGR")
    assert result.returncode == 0, result.stderr
    assert "STATUS" in result.stdout and "ACTIVE" in result.stdout


def test_a_pipeline_command_with_the_extra_goes_past_the_check(tmp_path):
    """With the extra installed the check passes: analyze reaches its input checks and
    names the missing journal (exit 2), not the extra."""
    pytest.importorskip("pyspark")
    result = run_without((), "analyze", str(tmp_path / "none"), "--out", str(tmp_path / "o"))
    assert result.returncode == 2, result.stderr
    assert "pip install" not in result.stderr
