"""The suite's scopes, chosen by the code (docs/testing.md): `--lecture NAME` collects exactly the
tests of that lecture (the ones whose id names it, the rule tests/budget.py charges by),
`--fixed` the ones that name none, and the fixed part with every lecture's shard is the whole suite,
each test in exactly one. Collection only: no test runs."""
import re
import subprocess

from helpers import LECTURES, PYTHON, ROOT


def collected(*args: str) -> list[str]:
    done = subprocess.run([PYTHON, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def named_lecture(nodeid: str) -> str | None:
    """The lecture a test id names, read here from the id alone (in its parameters)."""
    params = nodeid.partition("[")[2]
    names = [lecture.name for lecture in LECTURES if re.search(rf"(?<![\w-]){re.escape(lecture.name)}(?!\w)", params)]
    return max(names, key=len) if names else None


def test_each_scope_collects_its_own_tests_and_together_the_whole_suite():
    assert len(LECTURES) >= 2
    whole = collected()
    fixed = collected("--fixed")
    first, rest = LECTURES[0].name, [lecture.name for lecture in LECTURES[1:]]
    shard = collected("--lecture", first)
    others = collected(*[arg for name in rest for arg in ("--lecture", name)])
    assert shard and others and fixed
    assert {named_lecture(t) for t in shard} == {first}, "--lecture collected another lecture's test"
    assert {named_lecture(t) for t in others} == set(rest)
    assert {named_lecture(t) for t in fixed} == {None}, "--fixed collected a lecture's test"
    # The Quarto tests are fixed: a lecture's job installs no Quarto (docs/ci.md), the suite's does.
    assert not [t for t in shard + others if "quarto" in t.lower()], "a Quarto test in a lecture's shard"
    # Every test in exactly one scope, and no test in none.
    assert sorted(fixed + shard + others) == sorted(whole)
    assert len(set(fixed) | set(shard) | set(others)) == len(whole)
