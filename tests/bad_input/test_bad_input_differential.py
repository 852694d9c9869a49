"""The bad-input differential test (issue 11): every case of cases.py runs with torch 2.13 and
with leafgrad, in child processes (many cases per child, each case under an alarm), and must end
the same way: the same result, or the same exception type and first line. Whatever the outcome,
leafgrad never hangs or crashes, and a call that raised modified no tensor, version counter or
.grad. The cases that still differ are listed in known.py (with torch's and leafgrad's
outcomes, in docs/known-differences.md); the test fails when that list is out of date either
way, so a fix or a regression shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .._torch import require_torch
from .cases import CASES
from .known import KNOWN

require_torch()
ROOT = Path(__file__).resolve().parents[2]
BATCHES = 2
CHILD_SECONDS = 600  # a whole batch; one case has runner.CASE_SECONDS


def _outcomes(library: str) -> dict:
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{ROOT}", OMP_NUM_THREADS="1")
    step = -(-len(CASES) // BATCHES)
    children = [subprocess.Popen(
        [sys.executable, "-m", "tests.bad_input.runner", library, str(start), str(start + step)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        for start in range(0, len(CASES), step)]
    outcomes = {}
    for child in children:
        stdout, stderr = child.communicate(timeout=CHILD_SECONDS)
        assert child.returncode == 0, f"{library} child crashed: {stderr[-2000:]}"
        for line in stdout.splitlines():
            index, outcome = json.loads(line)
            outcomes[index] = outcome
    assert len(outcomes) == len(CASES), f"{library} child stopped early"
    return outcomes


@pytest.fixture(scope="module")
def outcomes():
    return _outcomes("leafgrad"), _outcomes("torch")


def _key(outcome):
    return outcome[:3] if outcome[0] == "raise" else outcome


def test_at_least_300_cases():
    assert len(CASES) >= 300 and len(set(CASES)) == len(CASES)


def test_no_hang_and_nothing_modified_by_a_failed_call(outcomes):
    ours, _ = outcomes
    assert [CASES[i] for i, o in ours.items() if o[0] == "hang"] == []
    assert [(CASES[i], o[3]) for i, o in ours.items() if o[0] == "raise" and o[3]] == []


def test_outcomes_match_torch_except_known_differences(outcomes):
    ours, theirs = outcomes
    differ = {CASES[i] for i in ours if _key(ours[i]) != _key(theirs[i])}
    assert sorted(differ - set(KNOWN)) == [], "new differences from torch"
    assert sorted(set(KNOWN) - differ) == [], "fixed: remove from known.py"
    agreement = 1 - len(differ) / len(CASES)
    print(f"bad-input agreement with torch: {agreement:.1%} of {len(CASES)} cases")
