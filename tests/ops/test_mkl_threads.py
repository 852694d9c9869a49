"""Note: MKL's threads (ops/_mkl.py): with default threads (no OMP_/MKL_ variables), leafgrad
runs MKL's products on GNU OpenMP with torch's thread count, so float32/float64 products are
torch's bits on a machine of several cores (MKL's sequential layer rounded 600 of 249,060
values of these products differently with torch on 2 threads); set_num_threads follows.
Runs in a subprocess: the suite itself pins one thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ._mkl_support import require_mkl
from .._torch import require_torch

require_torch()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import json
import leafgrad as lg
import torch
result = {"threads": [torch.get_num_threads(), lg.get_num_threads()], "differ": []}
for threads in (None, 1, 2):
    if threads is not None:
        torch.set_num_threads(threads)
        lg.set_num_threads(threads)
    differ = 0
    for seed in range(6):
        torch.manual_seed(seed)
        for m, k, n in ((6, 8, 24), (32, 784, 256), (3, 5, 7), (64, 64, 64), (1, 300, 40)):
            for dtype in (torch.float32, torch.float64):
                x = torch.randn(m, k, dtype=dtype)
                w = torch.randn(n, k, dtype=dtype)
                b = torch.randn(n, dtype=dtype)
                ours = lg.nn.functional.linear(lg.tensor(x.numpy()), lg.tensor(w.numpy()),
                                               lg.tensor(b.numpy())).numpy()
                theirs = torch.nn.functional.linear(x, w, b).numpy()
                differ += int((ours != theirs).sum())
                differ += int(((lg.tensor(x.numpy()) @ lg.tensor(w.numpy()).T).numpy()
                               != (x @ w.T).numpy()).sum())
    result["differ"].append(differ)
print("RESULT" + json.dumps(result))
"""


def test_products_match_torch_at_default_and_set_thread_counts():
    require_mkl()
    environment = {key: value for key, value in os.environ.items()
                   if not key.endswith("_NUM_THREADS")}
    environment["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "src"),
                                                 environment.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=environment, cwd=ROOT, timeout=600, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    assert lines, done.stderr[-3000:]
    result = json.loads(lines[-1][len("RESULT"):])
    assert result["threads"][0] == result["threads"][1]
    assert result["differ"] == [0, 0, 0]
