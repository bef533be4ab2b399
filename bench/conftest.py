"""Shared benchmark plumbing: every figure is printed beside its baselines from the same run.

Each benchmark records two things in ``benchmark.extra_info``:

- ``role``: ``"subject"`` (what tpfemu does) or ``"baseline"`` (what a user would otherwise
  reach for, measured in the same run);
- ``ops``: how many operations (message pairs, entries, calls) one round performs, so the
  summary can print a per-operation time and a rate.

At the end of the session a summary table lists, per group, the median time per operation of
each subject and baseline and the ratio ``baseline / subject`` (higher is better for tpfemu).
Medians are used because the machine is shared and noisy.
"""

from __future__ import annotations

import pytest


def record(
    benchmark, *, role: str, ops: int, goal: float | None = None, goal_vs: str = ""
) -> None:
    """Tag a benchmark with its role, its operations per round and an optional ratio goal.

    ``goal`` is the ratio baseline / subject to reach, against the baselines whose name
    contains ``goal_vs`` (every baseline of the group when empty).
    """
    if role not in ("subject", "baseline"):
        raise ValueError(f"role must be 'subject' or 'baseline', not {role!r}")
    benchmark.extra_info["role"] = role
    benchmark.extra_info["ops"] = ops
    if goal is not None:
        benchmark.extra_info["goal"] = goal
        benchmark.extra_info["goal_vs"] = goal_vs


@pytest.fixture
def tag(benchmark):
    """Return ``record`` bound to this test's benchmark fixture."""

    def _tag(role: str, ops: int = 1, goal: float | None = None, goal_vs: str = "") -> None:
        record(benchmark, role=role, ops=ops, goal=goal, goal_vs=goal_vs)

    return _tag


_EXTERNAL: list[tuple[str, str, float, str, float | None]] = []


@pytest.fixture
def external():
    """Record a figure measured outside pytest-benchmark (e.g. by a C program).

    ``external(group, name, ns_per_op, baseline_name, baseline_ns_per_op, goal_ns=None)``:
    the summary prints it beside its baseline from the same run.
    """

    def _record(group, name, ns, baseline_name, baseline_ns, goal_ns=None):
        _EXTERNAL.append((group, name, ns, baseline_name, baseline_ns, goal_ns))

    return _record


def _fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} us"
    return f"{ns:.1f} ns"


def pytest_terminal_summary(terminalreporter, config):
    """Print each group's subjects beside the baselines measured in the same run."""
    session = getattr(config, "_benchmarksession", None)
    tr = terminalreporter
    if _EXTERNAL:
        tr.write_sep("=", "tpfemu figures measured outside pytest-benchmark (same run)")
        for group, name, ns, bname, bns, goal_ns in _EXTERNAL:
            goal = ""
            if goal_ns is not None:
                goal = f"  (goal <= {goal_ns:g} ns: {'met' if ns <= goal_ns else 'NOT met'})"
            tr.write_line(f"[{group}] {name:<40} {_fmt_ns(ns):>12}{goal}")
            tr.write_line(f"    vs {bname:<45} {_fmt_ns(bns):>12}  ratio {bns / ns:6.2f}x")
    if session is None or not session.benchmarks:
        return
    groups: dict[str, list] = {}
    for bench in session.benchmarks:
        if "role" in bench.extra_info and bench.stats is not None:
            groups.setdefault(bench.group or bench.name, []).append(bench)
    if not groups:
        return
    tr.write_sep("=", "tpfemu figures (median per operation; ratio = baseline / subject)")
    for group, benches in groups.items():
        per_op = {}
        for b in benches:
            per_op[b.name] = b.stats.median * 1e9 / b.extra_info["ops"]
        subjects = [b for b in benches if b.extra_info["role"] == "subject"]
        baselines = [b for b in benches if b.extra_info["role"] == "baseline"]
        tr.write_line(f"[{group}]")
        for s in subjects:
            s_ns = per_op[s.name]
            tr.write_line(f"  {s.name:<48} {_fmt_ns(s_ns):>12}  {1e9 / s_ns:>14,.0f} ops/s")
            for base in baselines:
                b_ns = per_op[base.name]
                ratio = b_ns / s_ns
                goal = s.extra_info.get("goal")
                mark = ""
                if goal is not None and s.extra_info.get("goal_vs", "") in base.name:
                    mark = f"  (goal >= {goal:g}x: {'met' if ratio >= goal else 'NOT met'})"
                tr.write_line(
                    f"    vs {base.name:<45} {_fmt_ns(b_ns):>12}  ratio {ratio:6.1f}x{mark}"
                )
