"""The README is true for a newcomer: its console session is real output, its links and
paths are in the repository, its figures are measured."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tpfemu.system import System

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PROMPT = "TPF1/B> "


def _block_after(heading: str) -> list[str]:
    """The lines of the first fenced block after ``heading``."""
    text = README.read_text()
    rest = text[text.index(heading):]
    start = rest.index("```\n") + 4
    return rest[start:rest.index("```", start)].rstrip("\n").split("\n")


def test_the_readme_console_session_is_what_the_console_prints():
    """Running the README session's commands through `tpfemu run` prints the README's
    block line for line."""
    block = _block_after("## A console session")
    assert block[0] == "$ .venv/bin/tpfemu run"
    expected = block[1:]
    commands = [line[len(PROMPT):] for line in expected if line.startswith(PROMPT)]
    assert len(commands) >= 5
    done = subprocess.run([sys.executable, "-m", "tpfemu", "run"], cwd=str(ROOT),
                          input="\n".join(commands) + "\n", capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert done.stdout.rstrip("\n").split("\n") == expected


def test_the_readme_links_and_paths_exist_in_a_clone():
    """Every relative link and every repository path the README names is a tracked file
    or directory (no link outside the repository)."""
    text = README.read_text()
    links = [target for target in re.findall(r"\]\(([^)#\s]+)", text)
             if "://" not in target]
    paths = re.findall(r"`((?:tpfemu|examples|docs|tests|bench|native|ecb)/[\w./-]*)`", text)
    paths += re.findall(r"\s((?:examples|docs)/[\w./-]+\.\w+)", text)
    assert links and paths
    missing = [p for p in links + paths if not (ROOT / p.rstrip("/.")).exists()]
    assert not missing, missing
    assert "../" not in "".join(links)


def test_the_readme_names_every_prerequisite():
    """Python 3.11+, a C compiler, Java 17+ for the pipeline, and the disk a home takes."""
    text = README.read_text()
    for needed in ("Python 3.11", "C compiler", "Java 17", "65 MB"):
        assert needed in text, needed


def test_a_home_takes_the_disk_the_readme_says(tmp_path):
    """A new home with one processor occupies 65 MB (within 5 %), as the README states."""
    with System.start(name="DISK1", home=tmp_path / "home", journal="events") as system:
        assert "MQSC0017I" in system.console("ZMQSC DEF MQP")
    used = sum(f.stat().st_blocks * 512 for f in (tmp_path / "home").rglob("*") if f.is_file())
    stated = re.search(r"home \(below\) takes (\d+) MB", README.read_text())
    assert stated is not None
    megabytes = used / 2**20  # as `du -h` counts them
    assert abs(megabytes - int(stated.group(1))) <= 0.05 * int(stated.group(1)), megabytes
