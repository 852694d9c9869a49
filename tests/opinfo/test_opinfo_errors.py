"""torch's OpInfo error_inputs replayed on leafgrad (tests/opinfo/sweep_errors.py): every
ErrorInput through the function, method and in-place variants; the same exception type and
first line of torch's actual message, and nothing changed when leafgrad raised.

KNOWN lists the (op, variant) pairs that still differ, each with the reason; the test fails when
another pair differs and when a KNOWN pair starts agreeing, so the table stays honest."""

from __future__ import annotations

import pytest

from tests._torch import require_torch

torch = require_torch()

from tests.opinfo import sweep_errors  # noqa: E402

# (op name[.variant test name], variant) -> why leafgrad still differs
KNOWN = {
    # bad Python-scalar inputs: torch's parser lists overloads ("received an invalid combination
    # of arguments"), leafgrad's functions compute on the ints or name the first argument
    ("clamp_max", "op"): "clamp_max(int, ...): AttributeError instead of the parser's TypeError",
    ("clamp_min", "op"): "clamp_min(int, ...): AttributeError instead of the parser's TypeError",
    ("copysign", "op"): "copysign(int, ...): single-overload message, torch lists overloads",
    ("bitwise_left_shift", "op"): "bitwise_left_shift(int, int) returns instead of TypeError",
    ("bitwise_right_shift", "op"): "bitwise_right_shift(int, int) returns instead of TypeError",
    ("bitwise_and", "op"): "bitwise_and(int, int) returns instead of TypeError",
    ("bitwise_or", "op"): "bitwise_or(int, int) returns instead of TypeError",
    ("bitwise_xor", "op"): "bitwise_xor(int, int) returns instead of TypeError",
    ("rsub", "op"): "rsub(int, ...) returns instead of TypeError",
    ("isclose", "op"): "isclose(int, ...): AttributeError / names 'other' instead of 'input'",
    ("hsplit", "op"): "hsplit(t, 'str'): Python comparison error instead of the parser's",
    ("hsplit", "method"): "Tensor.hsplit('str'): Python comparison error instead of the parser's",
    ("vsplit", "op"): "vsplit(t, 'str'): Python comparison error instead of the parser's",
    ("vsplit", "method"): "Tensor.vsplit('str'): Python comparison error instead of the parser's",
    # torch.Tensor's reflected dunders called unbound with an int as self: torch's C descriptor
    # refuses the int (or its Python wrapper returns NotImplemented); leafgrad's are Python
    # functions that compute on it
    ("__radd__", "op"): "unbound Tensor.__radd__(int, ...) computes",
    ("__rmul__", "op"): "unbound Tensor.__rmul__(int, ...) computes",
    ("__rand__", "op"): "unbound Tensor.__rand__(int, ...) computes",
    ("__ror__", "op"): "unbound Tensor.__ror__(int, ...) computes",
    ("__rxor__", "op"): "unbound Tensor.__rxor__(int, ...) computes",
    ("__rmod__", "op"): "unbound Tensor.__rmod__(int, ...) returns a tensor, torch NotImplemented",
    ("__rpow__", "op"): "unbound Tensor.__rpow__(int, ...) returns a tensor, torch NotImplemented",
    ("__rsub__", "op"): "unbound Tensor.__rsub__(int, ...) returns a tensor, torch NotImplemented",
    ("__rdiv__", "op"): "unbound Tensor.__rdiv__(int, ...) computes (torch: int has no reciprocal)",
    # out= checks
    ("gather", "op"): "out= that overlaps the index only once resized: torch resizes first",
    ("bernoulli", "op"): "bernoulli(out=) is not supported",
    ("complex", "op"): "complex(out=) is not supported",
    # argument checks torch makes that leafgrad does not, or makes in another order
    ("gradient", "op"): "gradient with meta spacing: leafgrad's device message",
    ("nn.functional.adaptive_avg_pool2d", "op"): "output_size=() unchecked (IndexError)",
    ("nn.functional.adaptive_max_pool2d", "op"): "output_size=() unchecked (ValueError)",
    ("nn.functional.adaptive_max_pool3d", "op"): "negative output_size: NumPy's message",
    ("nn.functional.conv2d", "op"): "input/weight dimension check comes after the stride check",
    ("nn.functional.conv3d", "op"): "input/weight dimension check comes after the stride check",
    ("multinomial", "op"): "the order of the distribution checks differs (2^24 categories too)",
    ("multinomial", "method"): "the order of the distribution checks differs (2^24 categories too)",
    # not in leafgrad
    ("ormqr", "op"): "torch.ormqr missing",
    ("ormqr", "method"): "Tensor.ormqr missing",
    ("_chunk_cat", "op"): "torch._chunk_cat missing",
    # NumPy arrays have at most 64 dimensions: these samples (65-dim tensors) cannot be built
    ("aminmax", "op"): "65-dimensional sample",
    ("aminmax", "method"): "65-dimensional sample",
    ("amax", "op"): "65-dimensional sample",
    ("amax", "method"): "65-dimensional sample",
    ("amin", "op"): "65-dimensional sample",
    ("amin", "method"): "65-dimensional sample",
}


@pytest.fixture(scope="module")
def report():
    return sweep_errors.sweep_ops(torch)


def _keys(report) -> dict:
    found = {}
    for (name, test_name), rows in report.items():
        full = f"{name}.{test_name}" if test_name else name
        for index, variant, differences in rows:
            found.setdefault((full, variant), []).append(f"[{index}] {'; '.join(differences)}")
    return found


def test_error_inputs_agree_with_torch(report):
    found = _keys(report)
    new = {key: rows for key, rows in found.items() if key not in KNOWN}
    assert not new, "\n".join(f"{key}: {rows}" for key, rows in new.items())


def test_known_error_differences_are_still_real(report):
    found = _keys(report)
    fixed = sorted(key for key in KNOWN if key not in found)
    assert not fixed, f"KNOWN entries that now agree with torch (remove them): {fixed}"


def test_every_op_with_error_inputs_is_replayed():
    # the sweep covers op_db's ops with error_inputs, jiterator's (CUDA only) aside
    ops = sweep_errors.error_ops()
    assert len(ops) >= 220
    assert all(op.error_inputs_func is not None for op in ops)


# ops of op_db that take out= in torch but not in leafgrad (TypeError "unexpected keyword
# argument 'out'"); the internal-overlap test below checks they still do not
NO_OUT = {
    "cholesky", "conj_physical", "complex", "geqrf", "lu_unpack", "lu_solve",
    "native_batch_norm", "nn.functional.avg_pool2d", "nn.functional.avg_pool3d",
    "nn.functional.logsigmoid", "nn.functional.softshrink", "nn.functional.hardshrink",
    "nn.functional.gelu", "nn.functional.linear", "nn.functional.softplus", "qr",
    "triangular_solve", "angle", "polar", "column_stack", "normal", "bernoulli", "dstack", "linalg.cholesky_ex", "linalg.cond", "linalg.householder_product",
    "linalg.lstsq", "linalg.multi_dot", "linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu",
    "linalg.inv_ex", "linalg.solve_ex", "linalg.tensorinv",
    "linalg.tensorsolve", "special.modified_bessel_i0", "special.modified_bessel_i1",
    "special.spherical_bessel_j0", "linalg.matrix_rank", "cholesky_solve",     "linalg.vecdot", "svd", "cholesky_inverse",
}
# leafgrad takes out= but still writes into an expanded one where torch refuses it
OVERLAP_KNOWN = {
    "logspace": "logspace's out= (through its keywords) writes into an expanded out",
    "normal": "normal(out=) is missing (the sample's device= is refused first)",
    "norm": "one of torch.norm's paths (linalg.matrix_norm) refuses, linalg_vector_norm not",
}


def test_out_with_internal_overlap():
    # torch's out= kernels refuse an out whose elements share memory (a stride 0 over more
    # than one element): "unsupported operation: more than one element of the written-to tensor
    # refers to a single memory location"; factories (zeros, ones, full...) and a few kernels
    # (mv, bmm, matmul, tril/triu, var/std, cummax/cummin, narrow_copy) write into it. Swept over
    # every op of op_db with out=, its first sample, an overlapping out of the result's shape.
    import warnings

    from tests.opinfo._harness import attempt, op_db

    differing, missing = {}, set()
    for op in op_db():
        if not op.supports_out or op.name.startswith("jiterator"):
            continue
        ours = sweep_errors.leafgrad_callable(torch, op, "op")
        if ours is None:
            continue
        dtypes = op.supported_dtypes("cpu")
        dtype = torch.float32 if torch.float32 in dtypes else next(iter(dtypes))
        torch.manual_seed(0)
        for sample in op.sample_inputs("cpu", dtype):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = attempt(lambda: op.op(sample.input, *sample.args, **sample.kwargs))
            if result[0] != "ok":
                continue
            results = result[1] if isinstance(result[1], (tuple, list)) else (result[1],)
            if not all(isinstance(r, torch.Tensor) for r in results):
                break
            if not any(r.numel() > 1 for r in results):
                continue

            def overlapping(like):
                if like.numel() <= 1:
                    return torch.empty(like.shape, dtype=like.dtype)
                strides = list(torch.empty(like.shape).stride())
                strides[next(i for i, n in enumerate(like.shape) if n > 1)] = 0
                # (storage for every element: a kernel that does not check writes in bounds)
                return torch.empty(like.numel(), dtype=like.dtype).as_strided(like.shape, strides)

            outs = tuple(overlapping(r) for r in results)
            out = outs if isinstance(result[1], (tuple, list)) else outs[0]
            (args_t, kwargs_t), (args_l, kwargs_l) = sweep_errors.twin_copies(
                ((sample.input, *sample.args), dict(sample.kwargs, out=out)), torch)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = attempt(lambda: op.op(*args_t, **kwargs_t))
                got = attempt(lambda: ours(*args_l, **kwargs_l))
            if got[0] == "raised" and "unexpected keyword argument 'out'" in got[2]:
                missing.add(op.name)
            elif (theirs[0], theirs[1:] if theirs[0] == "raised" else None) != (
                    got[0], got[1:] if got[0] == "raised" else None):
                differing[op.name] = (theirs[:3] if theirs[0] == "raised" else "ok",
                                      got[:3] if got[0] == "raised" else "ok")
            break
    unexpected = {name: d for name, d in differing.items() if name not in OVERLAP_KNOWN}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in unexpected.items())
    assert sorted(set(OVERLAP_KNOWN) - set(differing)) == [], "OVERLAP_KNOWN entries now agree"
    assert missing <= NO_OUT, sorted(missing - NO_OUT)
    assert sorted(NO_OUT - missing) == [], "NO_OUT entries that now take out= (remove them)"
