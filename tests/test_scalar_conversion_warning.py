"""float(t) and complex(t) of a tensor that requires grad, while grad mode is on: torch 2.13 warns
once per process ("Converting a tensor with requires_grad=True to a scalar may lead to
unexpected behavior."); int(t), t.item() and detached tensors do not warn. Each case runs in a
fresh child process for both libraries (the warning is once per process) and the outcomes are
compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests._torch import require_torch

require_torch()

CHILD = """
import json, os, sys, warnings
lib = __import__(sys.argv[1])
for code in json.loads(sys.argv[2]):
    # each case in a process forked from this one, after the import: the warning's
    # once-per-process state is fresh in each, and each library is imported only once
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        t = lib.tensor(1.5, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = repr(eval(code, {"torch": lib, "t": t})).replace("leafgrad.", "torch.")
        print(json.dumps([code, value, [str(w.message).split(" (Triggered")[0] for w in caught],
                          [w.category.__name__ for w in caught]]))
        sys.stdout.flush()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        print(json.dumps([code, "child failed", status]))
"""

CASES = ["float(t * 2)", "int(t)", "t.item()", "float(t.detach())",
         "[float(t), float(t)]", "complex(t)", "complex(torch.tensor(1 + 2j))",
         "complex(torch.tensor(1 + 2j, requires_grad=True))", "float(torch.ones(1))",
         "bool(t)", "f'{t:.2f}'", "[torch.no_grad().__enter__(), float(t)]",
         # (the walrus keeps torch's inference_mode object, whose guard ends when it is freed)
         "[(mode := torch.inference_mode()).__enter__(), complex(t)]",
         "[(mode := torch.inference_mode()).__enter__(), float(t)]",
         "[torch.no_grad().__enter__(), complex(t)]"]

_RESULTS: dict = {}


def _run(lib: str) -> dict:
    """Every case's outcome under ``lib``, from one child process (forking once per case)."""
    if lib not in _RESULTS:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.join(os.path.dirname(__file__), "..", "src"),
             os.environ.get("PYTHONPATH", "")]))
        out = subprocess.run([sys.executable, "-c", CHILD, lib, json.dumps(CASES)],
                             capture_output=True, text=True, timeout=300, env=env)
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")]
        _RESULTS[lib] = {row[0]: row[1:] for row in rows}
    return _RESULTS[lib]


@pytest.mark.parametrize("code", CASES)
def test_warning_as_torch(code):
    ours, theirs = _run("leafgrad"), _run("torch")
    assert code in theirs and code in ours
    assert ours[code] == theirs[code]
