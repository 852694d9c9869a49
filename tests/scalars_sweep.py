"""Sweep (a tool, not a test): every overload in torch's stubs (torch/_C/_VariableFunctions.pyi
for torch.*, TensorBase in torch/_C/__init__.pyi for methods) with a Number/int/float/bool/
dtype/int-list parameter. For each, a base call torch accepts is found (tensors of a few
shapes, plain values for the other parameters), then that parameter is given every kind of
value (None, str, lists, arrays, tensors of each kind, complex numbers, NumPy scalars...) and
torch's outcome (result dtype and values, or exception type and first line) is compared with
leafgrad's. Prints one line per difference:

    PYTHONPATH=src python tests/scalars_sweep.py func|method > differences.txt

tests/test_scalars_findings.py holds the tests of what it found and was fixed."""

import ast
import os
import signal
import sys
import warnings

import numpy as np
import torch
import leafgrad

warnings.filterwarnings("ignore")
T = os.path.dirname(torch.__file__)


def classify(ann):
    s = ast.unparse(ann) if ann is not None else ""
    if "Tensor" in s and "Number" not in s:
        if s.startswith("Tensor") or s.startswith("Optional[Tensor") or s == "Tensor | None":
            return "Tensor?" if "None" in s else "Tensor"
        if "Sequence[Tensor]" in s or "tuple[Tensor" in s or "list[Tensor" in s:
            return "TensorList"
        return "Tensor-ish"
    if "Number" in s:
        return "Number"
    if "_dtype" in s:
        return "dtype"
    if "_size" in s or "Sequence[_int" in s or "Sequence[SymInt" in s or "tuple[_int" in s:
        return "size"
    if s.startswith("_int") or s.startswith("SymInt") or s == "_int | SymInt" or s.startswith("_int |"):
        return "int"
    if s.startswith("_float"):
        return "float"
    if s.startswith("_bool"):
        return "bool"
    return "other:" + s


def parse(path, cls=None):
    tree = ast.parse(open(path).read())
    body = tree.body
    if cls:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    out = []
    for node in body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            a = node.args
            params = []
            pos = a.posonlyargs + a.args
            defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
            for p, d in zip(pos, defaults):
                if p.arg == "self" and cls:
                    continue
                params.append((p.arg, classify(p.annotation), d is not None, False,
                               ast.unparse(d) if d is not None else None))
            for p, d in zip(a.kwonlyargs, a.kw_defaults):
                params.append((p.arg, classify(p.annotation), d is not None, True,
                               ast.unparse(d) if d is not None else None))
            if a.vararg is not None:
                params.append(("*" + a.vararg.arg, classify(a.vararg.annotation), False, False, None))
            out.append((node.name, params))
    return out


def bad_values(L, kind):
    vals = [("None", lambda: None), ("str", lambda: "a"), ("list1", lambda: [1]),
            ("ndarray0", lambda: np.array(1)), ("ndarray1", lambda: np.array([1])),
            ("t1", lambda: L.tensor([1])), ("t0f", lambda: L.tensor(0.5)),
            ("t0i", lambda: L.tensor(1)), ("t0grad", lambda: L.tensor(0.5, requires_grad=True)),
            ("complex", lambda: 1j), ("complex0", lambda: 2 + 0j), ("bool", lambda: True),
            ("npf32", lambda: np.float32(0.5)), ("npi64", lambda: np.int64(1)),
            ("npbool", lambda: np.bool_(True)), ("npc64", lambda: np.complex64(1j)),
            ("float", lambda: 1.0), ("int", lambda: 1), ("t0b", lambda: L.tensor(True)),
            ("t0c", lambda: L.tensor(1j)), ("tuple", lambda: (1,)), ("inf", lambda: float("inf")),
            ("neg", lambda: -1), ("npu8", lambda: np.uint8(1))]
    if kind == "dtype":
        vals += [("pyfloat", lambda: float), ("pyint", lambda: int), ("npdtype", lambda: np.float32),
                 ("dtstr", lambda: "float32")]
    return vals


def base_tensor(L, variant):
    if variant == 0:
        return L.tensor([0.25, 0.5, 0.75])
    if variant == 1:
        return L.tensor([[0.25, 0.5], [0.75, 0.125]])
    if variant == 2:
        return L.tensor([1, 2, 3])
    return L.tensor([[[0.25, 0.5], [0.75, 0.125]]])


def make_value(L, kind, name, default):
    if kind in ("Tensor", "Tensor?"):
        return "T"
    if kind == "Number":
        return 2
    if kind == "int":
        return 0 if "dim" in name else 1
    if kind == "float":
        return 0.5
    if kind == "bool":
        return False
    if kind == "dtype":
        return L.float64
    if kind == "size":
        return [0] if "dim" in name else [3]
    return None


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa
        return ("E", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    return ("R", norm(r))


def norm(r):
    if isinstance(r, (tuple, list)):
        return tuple(norm(x) for x in r)
    if hasattr(r, "dtype") and hasattr(r, "tolist") and hasattr(r, "shape"):
        try:
            return (str(r.dtype).split(".")[-1], repr(r.detach().tolist()), r.requires_grad)
        except Exception as e:
            return ("?", str(e))
    if hasattr(r, "__class__") and r.__class__.__name__ in ("dtype",):
        return str(r)
    return repr(r)[:200]


class Timeout(Exception):
    pass


def handler(*a):
    raise Timeout()


signal.signal(signal.SIGALRM, handler)

SKIP = {"empty", "empty_like", "empty_strided", "rand", "randn", "randint", "randperm",
        "normal", "bernoulli", "multinomial", "poisson", "rand_like", "randn_like", "randint_like",
        "set_", "resize_", "as_strided_", "storage_offset", "new_empty", "new_empty_strided",
        "uniform_", "exponential_", "geometric_", "cauchy_", "log_normal_", "random_",
        "dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout", "rrelu", "rrelu_",
        "native_dropout", "bernoulli_", "normal_", "empty_quantized", "share_memory_",
        "pin_memory", "record_stream", "data_ptr", "untyped_storage", "storage"}


def run(which):
    if which == "func":
        sigs = parse(os.path.join(T, "_C/_VariableFunctions.pyi"))
    else:
        sigs = parse(os.path.join(T, "_C/__init__.pyi"), "TensorBase")
    results = []
    for name, params in sigs:
        if name in SKIP or "quantize" in name or "fbgemm" in name or "mkldnn" in name \
                or "sparse" in name or "cudnn" in name or "miopen" in name:
            continue
        kinds = [p[1] for p in params]
        targets = [i for i, p in enumerate(params) if p[1] in ("Number", "int", "float", "bool", "dtype", "size")
                   and p[0] not in ("out",)]
        if not targets:
            continue
        if any(k.startswith("other") or k in ("TensorList", "Tensor-ish") for k, p in zip(kinds, params)
               if not p[2]):
            continue
        if which == "func" and not hasattr(leafgrad, name):
            continue
        if which == "method" and not hasattr(leafgrad.Tensor, name):
            continue
        for variant in range(4):
            def call(L, override=None, idx=None, variant=variant):
                args, kwargs = [], {}
                for i, (pname, kind, opt, kwonly, default) in enumerate(params):
                    if i == idx:
                        v = override
                    elif opt:
                        continue
                    else:
                        v = make_value(L, kind, pname, default)
                        if v == "T":
                            v = base_tensor(L, variant)
                    if pname.startswith("*"):
                        args.extend(v if isinstance(v, list) else [v])
                        continue
                    if kwonly or opt:
                        kwargs[pname] = v
                    else:
                        args.append(v)
                if which == "func":
                    return getattr(L, name)(*args, **kwargs)
                return getattr(base_tensor(L, variant), name)(*args, **kwargs)

            signal.alarm(2)
            try:
                base = outcome(lambda: call(torch))
            except Timeout:
                continue
            finally:
                signal.alarm(0)
            if base[0] != "R":
                continue
            for idx in targets:
                kind = params[idx][1]
                for label, _ in bad_values(torch, kind):
                    tv = dict(bad_values(torch, kind))[label]()
                    lv = dict(bad_values(leafgrad, kind))[label]()
                    signal.alarm(3)
                    try:
                        a = outcome(lambda: call(torch, tv, idx))
                        b = outcome(lambda: call(leafgrad, lv, idx))
                    except Timeout:
                        continue
                    finally:
                        signal.alarm(0)
                    if a != b:
                        results.append((which, name, params[idx][0], kind, label, a, b))
            break
    return results


if __name__ == "__main__":
    which = sys.argv[1]
    for r in run(which):
        print(r)
