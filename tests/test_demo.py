"""The seeds tour (``make demo``) runs, covers all 52 seed cases, and prints under leafgrad
exactly what it prints under real PyTorch (after normalising addresses and module names)."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys

import pytest

from ._torch import require_torch

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_DIR = os.path.join(REPO, "demo")
DEMO = os.path.join(DEMO_DIR, "seeds_tour.py")
SEED_CASES = set(range(1, 53))

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_MODULE = re.compile(r"\bleafgrad\.")
_TAG = re.compile(r"\[seed cases? ([0-9, ]+)\]$")


def run_demo(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # The tests run from the source tree, installed or not.
    env["PYTHONPATH"] = os.path.join(REPO, "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(
        [sys.executable, DEMO, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only; a full run takes seconds
    )


def normalise(text: str) -> str:
    """What may differ between backends: object addresses and the module name in reprs."""
    return _ADDRESS.sub("0x?", _MODULE.sub("torch.", text))


def body(output: str, backend_line: str) -> str:
    """The output without its first line, after checking that line names the backend."""
    first, _, rest = output.partition("\n")
    assert first.startswith(backend_line), first
    return rest


def tagged_cases(output: str) -> list[int]:
    """Every seed case number named in an example heading, in order of appearance."""
    cases = []
    for line in output.splitlines():
        match = _TAG.search(line)
        if line.startswith("--- ") and match:
            cases += [int(part) for part in match.group(1).split(",")]
    return cases


@pytest.fixture(scope="module")
def leafgrad_run() -> subprocess.CompletedProcess:
    return run_demo("--backend", "leafgrad")


def test_tour_runs_cleanly_under_leafgrad(leafgrad_run):
    # Exit status 1 would mean an example raised an error it is not meant to (or missed one).
    assert leafgrad_run.returncode == 0, leafgrad_run.stdout[-3000:] + leafgrad_run.stderr
    assert "PROBLEM:" not in leafgrad_run.stdout
    assert leafgrad_run.stdout.rstrip().endswith("covering 52 seed cases.")
    body(leafgrad_run.stdout, "Backend: import leafgrad as torch")


def test_tour_covers_every_seed_case_once(leafgrad_run):
    cases = tagged_cases(leafgrad_run.stdout)
    assert set(cases) == SEED_CASES, sorted(SEED_CASES.symmetric_difference(cases))
    assert len(cases) == len(SEED_CASES), "a seed case is shown by two examples"


def test_leafgrad_and_torch_print_the_same_tour(leafgrad_run):
    require_torch()
    torch_run = run_demo("--backend", "torch")
    assert torch_run.returncode == 0, torch_run.stdout[-3000:] + torch_run.stderr
    want = normalise(body(torch_run.stdout, "Backend: import torch")).splitlines()
    got = normalise(body(leafgrad_run.stdout, "Backend: import leafgrad as torch")).splitlines()
    diff = list(difflib.unified_diff(want, got, "torch", "leafgrad", n=2, lineterm=""))
    assert not diff, "\n".join(diff[:80])


def test_section_option_runs_one_section():
    run = run_demo("--section", "8")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    headings = [line for line in run.stdout.splitlines() if line.startswith("--- ")]
    assert headings and all(line.startswith("--- 8.") for line in headings)
    assert re.search(r"^ 8\. ", run.stdout, re.MULTILINE)
    assert not re.search(r"^ (?!8\.)\d+\. ", run.stdout, re.MULTILINE)
    assert run_demo("--section", "99").returncode == 2


@pytest.fixture()
def tour(monkeypatch):
    monkeypatch.syspath_prepend(DEMO_DIR)
    import seeds_tour

    return seeds_tour


def test_examples_leave_the_backend_to_the_tour(tour):
    # An example that imported torch itself would bypass --backend and compare torch with torch.
    for section in tour.SECTIONS:
        for example in section.examples:
            assert not re.search(r"^\s*(import|from)\s+torch\b", example.code, re.MULTILINE), (
                example.title
            )
            assert set(example.cases) <= SEED_CASES, example.title


def test_statements_are_echoed_and_errors_reported(tour, capsys):
    example = tour.Example(
        cases=(),
        title="synthetic",
        explain="",
        code="""
            # a comment
            total = 0
            for i in range(3):
                total += i
            print(total)
            1 / 0
            print("after")
        """,
        errors=1,
    )
    errors = tour.run_example(example, backend=None)
    lines = capsys.readouterr().out.splitlines()
    assert errors == 1
    assert lines == [
        ">>> # a comment",
        ">>> total = 0",
        ">>> for i in range(3):",
        "...     total += i",
        ">>> print(total)",
        "3",
        ">>> 1 / 0",
        "ZeroDivisionError: division by zero",
        '>>> print("after")',
        "after",
    ]
