"""What each test costs, in CPU seconds of the test process and every process under it, and what the
suite would cost with more lectures: the suite's time budget made visible (docs/testing.md).

CPU time, not wall time, because a loaded machine stretches wall time and not CPU time. A test's
cost is the CPU that the pytest process and its descendants (a render, a kernel, Chromium, Quarto)
used during its setup, call and teardown: this process's own and reaped children's times plus the
times of the descendants still alive, with their reaped children (`lecturekit.meter.tree_cpu`, the
kit's one process meter). A fixture's setup is charged to the test that first needs it.

A test belongs to a lecture when its id names one (`[09-nn-module]`, `[10-training-loop/08_resume.py]`),
else it is fixed. The same rule chooses what
`scripts/test --lecture NAME` and `--fixed` run (conftest.py marks each test with its scope). A
fixture that works for several lectures at once (their executions side by side) says which lecture
each part was for: `charge(lecture, cpu)` moves that much from the test that set it up to the
lecture. The summary adds each lecture's tests and projects fixed + N × (mean per lecture).
It measures; it asserts nothing (benchmarks are not timed tests). The numbers are also written to
tests/artifacts/cost.json.
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from lecturekit.meter import tree_cpu

PROJECTED = (4, 10, 91)


@dataclass
class Cost:
    nodeid: str
    lecture: str | None
    cpu: float = 0.0
    wall: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # phase -> CPU seconds


class Ledger:
    """Collects a Cost per test; pytest's hooks in conftest.py feed it."""

    def __init__(self, lectures: list[str]):
        self.lectures = sorted(lectures, key=len, reverse=True)  # the longest name first
        self.costs: dict[str, Cost] = {}
        self.current = None  # the test whose phase is being measured
        self.charges: dict[tuple[str, str], float] = defaultdict(float)  # (test, lecture) -> CPU s
        self._lock = threading.Lock()

    def charge(self, lecture: str, cpu: float) -> None:
        """Part of the current test's cost was work for `lecture` (safe from worker threads)."""
        if self.current is not None:
            with self._lock:
                self.charges[(self.current.nodeid, lecture)] += cpu

    def lecture_of(self, item) -> str | None:
        """The lecture a test is for: the one its parameters' id names, else None (fixed)."""
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            for name in self.lectures:
                if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w])", callspec.id):
                    return name
        return None

    def measure(self, item, phase: str):
        """A context for one phase of one test."""
        ledger = self

        class _Phase:
            def __enter__(self):
                ledger.current = item
                self.cpu, self.wall = tree_cpu(), time.perf_counter()

            def __exit__(self, *_exc):
                ledger.current = None
                cost = ledger.costs.setdefault(item.nodeid, Cost(item.nodeid, ledger.lecture_of(item)))
                cpu = max(0.0, tree_cpu() - self.cpu)
                cost.cpu += cpu
                cost.wall += time.perf_counter() - self.wall
                cost.phases[phase] = cost.phases.get(phase, 0.0) + cpu
                return False
        return _Phase()

    # ---- the model -------------------------------------------------------------------------------

    def _with_charges(self) -> list[Cost]:
        """The costs, with charged work moved from the test that did it to its lecture."""
        costs = {nodeid: Cost(c.nodeid, c.lecture, c.cpu, c.wall, dict(c.phases)) for nodeid, c in self.costs.items()}
        for (nodeid, lecture), cpu in self.charges.items():
            if nodeid in costs and lecture in self.lectures:
                moved = min(cpu, costs[nodeid].cpu)
                costs[nodeid].cpu -= moved
                function = nodeid.partition("[")[0]
                target = costs.setdefault(f"{function}[{lecture}: charged]",
                                          Cost(f"{function}[{lecture}: charged]", lecture))
                target.cpu += moved
        return list(costs.values())

    def model(self) -> dict:
        costs = self._with_charges()
        fixed = [c for c in costs if c.lecture is None]
        per: dict[str, list[Cost]] = defaultdict(list)
        for c in costs:
            if c.lecture is not None:
                per[c.lecture].append(c)
        by_lecture = {name: round(sum(c.cpu for c in cs), 1) for name, cs in sorted(per.items())}
        mean = sum(by_lecture.values()) / len(by_lecture) if by_lecture else 0.0
        fixed_cpu = sum(c.cpu for c in fixed)
        # Per test function (parameters folded): its fixed part and its mean part per lecture.
        functions: dict[str, dict[str, float]] = defaultdict(lambda: {"fixed": 0.0, "per_lecture": 0.0})
        for c in costs:
            function = c.nodeid.partition("[")[0]
            if c.lecture is None:
                functions[function]["fixed"] += c.cpu
            else:
                functions[function]["per_lecture"] += c.cpu / max(1, len(by_lecture))
        return {
            "unit": "CPU seconds (the test process and its descendants)",
            "tests": len(self.costs),
            "fixed": round(fixed_cpu, 1),
            "per_lecture": by_lecture,
            "mean_per_lecture": round(mean, 1),
            "wall": round(sum(c.wall for c in costs), 1),
            "cpu": round(sum(c.cpu for c in costs), 1),
            "projected": {str(n): round(fixed_cpu + n * mean, 1) for n in PROJECTED},
            "functions": {name: {k: round(v, 1) for k, v in parts.items()}
                          for name, parts in sorted(functions.items(),
                                                    key=lambda kv: -(kv[1]["fixed"] + kv[1]["per_lecture"]))},
        }

    def report(self, write_line, out: Path | None = None, top: int | None = 12) -> None:
        """The summary: totals, per lecture, projections and the heaviest test functions (`top`
        of them; None: all)."""
        model = self.model()
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(model, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        write_line(f"{model['cpu']:.0f} s CPU in {model['tests']} tests ({model['wall']:.0f} s wall); "
                   f"fixed {model['fixed']:.0f} s")
        if model["per_lecture"]:
            lectures = ", ".join(f"{name} {cpu:.0f} s" for name, cpu in model["per_lecture"].items())
            write_line(f"per lecture: {lectures} (mean {model['mean_per_lecture']:.0f} s)")
            write_line("projected: " + ", ".join(f"{n} lectures {cpu / 60:.0f} min CPU"
                                                 for n, cpu in model["projected"].items()))
        shown = list(model["functions"].items())[:top]
        write_line(f"heaviest tests (CPU s: fixed + per lecture; {len(shown)} of {len(model['functions'])}):")
        for name, parts in shown:
            write_line(f"  {parts['fixed']:7.1f} + {parts['per_lecture']:6.1f}/lecture  {name}")
        if out is not None:
            write_line(f"(written to {out})")


def _lectures() -> list[str]:
    from helpers import LECTURES
    return [lecture.name for lecture in LECTURES]


LEDGER = Ledger(_lectures())


def charge(lecture: str, cpu: float) -> None:
    """Part of the current test's cost was work for `lecture`: count it as that lecture's."""
    LEDGER.charge(lecture, cpu)
