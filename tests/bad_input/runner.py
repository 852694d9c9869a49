"""Child process of the bad-input differential test: runs cases with one library and prints
each outcome as a JSON line. ``python -m tests.bad_input.runner torch|leafgrad FIRST LAST``.

Every case runs in a fresh namespace under a per-case alarm (a hang is an outcome, not a stuck
suite); after a case that raised, every tensor of the namespace is compared with its state
before the call (values, shape, version, .grad): a failed call must modify nothing.
"""

from __future__ import annotations

import decimal
import fractions
import json
import math
import signal
import sys
import warnings

import numpy as np

from .cases import CASES

CASE_SECONDS = 10


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def namespace(lib):
    w = lib.ones(3, requires_grad=True)
    return {
        "lib": lib, "F": lib.nn.functional, "np": np, "math": math, "decimal": decimal,
        "fractions": fractions,
        "a": lib.tensor([1.0, 2.0, 3.0]), "m": lib.arange(6.0).reshape(2, 3),
        "i": lib.tensor([1, 2, 3]), "z": lib.tensor(2.0), "e": lib.zeros(0),
        "bl": lib.tensor([True, False, True]), "w": w, "h": w * 2,
        "n": lib.tensor([float("nan"), float("inf"), -float("inf")]),
        "u8": lib.tensor([1, 2], dtype=lib.uint8), "i8": lib.tensor([100], dtype=lib.int8),
    }


def _snapshot(names):
    state = {}
    for key, value in names.items():
        if type(value).__name__ in ("Tensor", "Parameter"):
            grad = value.grad if value.is_leaf else None
            state[key] = (tuple(value.shape), str(value.dtype),
                          value.detach().numpy().tobytes(), value._version,
                          None if grad is None else grad.numpy().tobytes())
    return state


def summary(value, depth=0):
    """A JSON-able description of a result that two libraries can be compared on."""
    kind = type(value).__name__
    if hasattr(value, "grad_fn") and hasattr(value, "dtype"):
        data = value.detach().numpy()
        values = [None if isinstance(v, float) and math.isnan(v) else v
                  for v in np.asarray(data, dtype=object).reshape(-1).tolist()[:64]]
        values = [round(v, 4) if isinstance(v, float) and math.isfinite(v) else
                  v if v is None or isinstance(v, (bool, int)) else str(v) for v in values]
        grad_fn = value.grad_fn.name() if value.grad_fn is not None else None
        return ["tensor", str(value.dtype).split(".")[-1], list(value.shape), values,
                value.requires_grad, grad_fn]
    if isinstance(value, (tuple, list)) and depth < 3:
        return [kind if kind in ("tuple", "list") else "tuple"] + [summary(v, depth + 1)
                                                                   for v in value]
    if isinstance(value, float):
        return ["float", "nan" if math.isnan(value) else round(value, 4)]
    if isinstance(value, (bool, int, str)) or value is None:
        return [type(value).__name__, value]
    return [kind]


def run(lib, code):
    names = namespace(lib)
    before = _snapshot(names)
    signal.alarm(CASE_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(code, names)  # noqa: S307 - the cases of cases.py
        result = ["value", summary(value)]
    except Hang:
        return ["hang"]
    except Exception as error:  # noqa: BLE001 - the outcome compared with torch's
        signal.alarm(0)
        first = str(error).splitlines()[0] if str(error) else ""
        changed = sorted(k for k, v in _snapshot(names).items() if before.get(k) != v)
        return ["raise", type(error).__name__, first, changed]
    finally:
        signal.alarm(0)
    return result


def main(argv):
    name, first, last = argv[0], int(argv[1]), int(argv[2])
    lib = __import__(name)
    if name == "torch":
        lib.set_num_threads(1)
    signal.signal(signal.SIGALRM, _alarm)
    for index in range(first, min(last, len(CASES))):
        print(json.dumps([index, run(lib, CASES[index])]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
