"""Build and run the C message core's own test program (native/tests/test_queue.c)."""

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEST_SRC = Path("native/tests/test_queue.c")
INCLUDE = Path("native/include")
CORE_SRCS = sorted(p.relative_to(REPO) for p in (REPO / "native" / "src").glob("*.c"))
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", f"-I{INCLUDE}"]


def _build(out: Path, extra: list[str]) -> None:
    """Compile the test program and the core into `out`, failing with the compiler's output."""
    cmd = ["cc", *CFLAGS, *extra, str(TEST_SRC), *map(str, CORE_SRCS), "-o", str(out)]
    res = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"compile failed: {' '.join(cmd)}\n{res.stdout}{res.stderr}"


def _run(exe: Path, args: list[str], env: dict[str, str] | None = None):
    """Run the test program and return (returncode, combined output)."""
    res = subprocess.run(
        [str(exe), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    return res.returncode, res.stdout + res.stderr


def test_c_core_optimized(tmp_path):
    """The C test program built with -O2 passes every test."""
    exe = tmp_path / "test_queue"
    _build(exe, ["-O2"])
    rc, out = _run(exe, [])
    assert rc == 0 and " 0 failed" in out, out


def test_c_core_sanitizers(tmp_path):
    """The ASan+UBSan build passes in quick mode with no sanitizer report."""
    exe = tmp_path / "test_queue_asan"
    _build(exe, ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g", "-O1"])
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    rc, out = _run(exe, ["quick"], env)
    for marker in ("runtime error", "ERROR: AddressSanitizer", "LeakSanitizer"):
        assert marker not in out, out
    assert rc == 0 and " 0 failed" in out, out
