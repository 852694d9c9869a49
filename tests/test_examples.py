"""The examples behind `make demo` run with leafgrad and print what they print with torch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ._torch import require_torch

ROOT = Path(__file__).resolve().parent.parent
torch = require_torch()


def _run(script: str, *args: str, backend: str = "leafgrad") -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    result = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--backend",
                             backend, *args], capture_output=True, text=True, env=env,
                            cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_digits_cnn_reaches_97_percent_and_saves_a_torch_checkpoint(tmp_path):
    path = tmp_path / "digits.pt"
    out = _run("digits_cnn.py", "--no-progress", "--save", str(path))
    last = out.strip().splitlines()[-1]
    assert last.startswith("digits test accuracy: ") and last.endswith("%")
    assert float(last.split(": ")[1].rstrip("%")) >= 97.0
    # the same script with torch gives the same accuracy (same seed, same init, same order)
    assert _run("digits_cnn.py", "--no-progress", "--save", str(tmp_path / "t.pt"),
                backend="torch").strip().splitlines()[-1] == last
    state = torch.load(path, weights_only=True)
    assert list(state) == [f"{i}.{p}" for i in (0, 3, 7, 9) for p in ("weight", "bias")]


def test_detach_example_prints_what_torch_prints():
    assert _run("detach_two_models.py") == _run("detach_two_models.py", backend="torch")


def test_char_lm_trains_and_samples_what_torch_does():
    # same seed, same initial weights, same batches: the same loss and the same sampled text
    ours = _run("char_lm.py", "--no-progress", "--steps", "30")
    theirs = _run("char_lm.py", "--no-progress", "--steps", "30", backend="torch")
    assert ours.splitlines()[1:] == theirs.splitlines()[1:]
    assert ours.split("final loss ")[1][:5] == theirs.split("final loss ")[1][:5]
