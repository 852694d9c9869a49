"""Random programs run on torch and on leafgrad must be observed identically (see programs.py).

Each seed is two test cases, so that a failure says what kind of difference it is:
`test_semantics` (values, dtypes, shapes, leaf/requires_grad/retains_grad state, gradients,
aliasing, errors) and `test_presentation` (reprs, grad_fn names and next_functions, version
counters, warnings). A failure prints the whole program (runnable with `import leafgrad as lib`)
and a readable list of differences.
"""

from __future__ import annotations

import functools
import os
from collections import Counter

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from .programs import (
    PRESENTATION_FIELDS,
    SEMANTIC_FIELDS,
    Program,
    compare,
    generate,
)

torch = require_torch()

# LEAFGRAD_PROGRAM_SEED0=5000 runs another 400 programs (how the cases of
# tests/test_fuzz_findings.py were found); the suite runs seeds 0-399. Seeds from 10_000_000
# (programs_wide.WIDE_SEED0) also draw the wide op set: LEAFGRAD_PROGRAM_SEED0=10000000 runs
# 400 of those (tests/test_fuzz14_findings.py's cases; the coverage test there needs only
# the kinds of the older sets). Seeds from 20_000_000 (programs_wide2.WIDE2_SEED0) also draw
# the second wide set (tests/test_fuzz15_findings.py's cases).
_SEED0 = int(os.environ.get("LEAFGRAD_PROGRAM_SEED0", "0"))
SEEDS = range(_SEED0, _SEED0 + 400)
# The third wide set (programs_wide3.py: float16/bfloat16 and complex tensors, a training loop
# with hooks, custom Functions, checkpoint and optimizer steps) from 30_000_000: 40 of its
# seeds run in the suite (tests/test_fuzz17_findings.py has the cases its runs found).
WIDE3_SEEDS = range(30_000_000, 30_000_040)
WIDE3_KINDS = {"wide3_reduced", "wide3_reduced_convert", "wide3_complex", "wide3_complex_make",
               "wide3_model", "wide3_hook", "wide3_function", "wide3_optimizer",
               "wide3_backward", "wide3_step", "wide3_zero_grad"}

# Every op family of the core op set, and every way of differentiating, must appear somewhere in
# the generated programs: if the generator stops producing one, the coverage test says so.
REQUIRED_KINDS = {
    "+",
    "-",
    "*",
    "/",
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "pow_scalar",
    "pow_tensor",
    "rpow",
    "rdiv",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "sum_all",
    "sum_dim",
    "sum_keepdim",
    "sum_tuple",
    "mean_all",
    "mean_dim",
    "mean_keepdim",
    "matmul_1d_1d",
    "matmul_1d_2d",
    "matmul_2d_1d",
    "matmul_2d_2d",
    "matmul_3d_3d",
    "matmul_2d_3d",
    "matmul_3d_1d",
    "matmul_1d_3d",
    "matmul_3d_2d",
    "mm",
    "reshape",
    "view",
    "t",
    "transpose",
    "cat",
    "stack",
    "unsqueeze",
    "squeeze",
    "expand",
    "ones_like",
    "zeros_like",
    "clone",
    "detach",
    "double",
    "float",
    "compare",
    "mul_bool",
    "inplace_add_",
    "inplace_mul_",
    "inplace_sub_",
    "inplace_div_",
    "inplace_zero_",
    "inplace_fill_",
    "inplace_clamp_",
    "inplace_+=",
    "inplace_*=",
    "retain_grad",
    "backward_sum",
    "backward_gradient",
    "backward_grad",
    "backward_grad_create",
    "backward_retain_twice",
    "backward_inputs",
    "backward_create_graph_backward",
    # the extended op set (even seeds)
    "getitem",
    "setitem",
    "split",
    "hidden_write",
    "max",
    "min",
    "max_all",
    "amax",
    "argmax",
    "prod",
    "std",
    "var",
    "logsumexp",
    "norm",
    "cumsum",
    "softmax",
    "log_softmax",
    "sum_dtype",
    "mean_dtype",
    "all_any",
    "count_nonzero",
    "where",
    "clamp",
    "masked_fill",
    "maximum",
    "lerp",
    "permute",
    "flatten",
    "flip",
    "repeat",
    "roll",
    "movedim",
    "narrow",
    "select",
    "contiguous",
    # the user-code op set (seeds 2 mod 4: programs_user.py)
    "nn_linear",
    "nn_conv",
    "nn_norm",
    "nn_dropout",
    "nn_embedding",
    "nn_pad",
    "nn_interpolate",
    "nn_loss",
    "promote",
    "out",
    "grad_mode",
    "toggle",
    "view_retain_grad",
    "hook",
    "backward_retain_clear",
    # the stages after differentiation (programs_after.py: seeds 3 and 5 mod 8)
    "func_grad",
    "func_vjp",
    "func_jvp",
    "func_vmap",
    "func_jac",
    "optim_step",
    "optim_zero_grad",
    # the nn.Module stage (programs_modules.py: seeds 7 mod 8)
    "module_build",
    "module_hook",
    "module_forward",
    "module_backward",
    "module_state_dict",
    "lr_scheduler_step",
    # the custom autograd.Function stage (programs_functions.py: seeds 1 mod 8)
    "function_save",
    "function_dirty",
    "function_nondiff",
    "function_once",
    "function_materialize",
    "function_identity",
    "function_view",
    "function_grad_mode",
    "function_hook",
    "function_retain_grad",
    "function_backward",
    "function_double_backward",
    # the autograd-machinery stage (programs_machinery.py: seeds 0 mod 8)
    "functional_jacobian",
    "functional_hessian",
    "functional_hvp",
    "checkpoint_backward",
    "saved_tensors_hooks_backward",
    "anomaly_mode",
    "optim_hook",
    "optim_scheduler_step",
}


@functools.cache
def _program(seed: int) -> Program:
    return generate(seed, torch)


@functools.cache
def _runs(seed: int):
    program = _program(seed)
    return program.run(torch), program.run(leafgrad)


def _check(seed: int, fields) -> None:
    expected, actual = _runs(seed)
    assert not [r for r in expected if r[0] == "raised"], "the generator wrote an invalid program"
    difference = compare(expected, actual, fields=fields)
    rerun = f"tests.differential.programs.generate({seed}, torch).run(leafgrad)"
    assert not difference, f"seed {seed} (rerun: {rerun})\n{_program(seed).source}\n{difference}"


@pytest.mark.parametrize("seed", SEEDS)
def test_semantics(seed):
    _check(seed, SEMANTIC_FIELDS)


# Known presentation differences, each a deliberate open item (listed in issue #2's closing
# note). strict=True: when one gets fixed, the test says so and the entry must be removed.
# (35 and 99 were fixed: scalar products in alpha's gradient, TensorIterator's output order.)
KNOWN_PRESENTATION_DIFFERENCES: dict[int, str] = {}
# Without the mkl package, NumPy's BLAS sums in another order than torch's MKL (ops/_blas.py)
WITHOUT_MKL = {
    177: "a zero gradient prints as -0. in torch (sign of zero from its formula), 0. here",
    307: "float32 matmul: a cancelling entry differs in the 4th digit (BLAS summation order)",
}


def _presentation_case(seed):
    from leafgrad.ops import _mkl

    reason = KNOWN_PRESENTATION_DIFFERENCES.get(seed)
    if reason is None and not _mkl.available():
        reason = WITHOUT_MKL.get(seed)
    if reason is None:
        return seed
    return pytest.param(seed, marks=pytest.mark.xfail(reason=reason, strict=True))


@pytest.mark.parametrize("seed", [_presentation_case(seed) for seed in SEEDS])
def test_presentation(seed):
    _check(seed, PRESENTATION_FIELDS)


@pytest.mark.parametrize("seed", WIDE3_SEEDS)
def test_wide3_semantics(seed):
    _check(seed, SEMANTIC_FIELDS)


@pytest.mark.parametrize("seed", WIDE3_SEEDS)
def test_wide3_presentation(seed):
    _check(seed, PRESENTATION_FIELDS)


def test_wide3_programs_cover_their_kinds():
    kinds = Counter()
    for seed in WIDE3_SEEDS:
        kinds.update(_program(seed).kinds)
    assert WIDE3_KINDS - set(kinds) == set()


# --- the harness itself ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(0, 400, 37))
def test_generation_is_deterministic_and_torch_agrees_with_itself(seed):
    program = generate(seed, torch)
    assert program.source == _program(seed).source
    assert compare(program.run(torch), program.run(torch)) == ""


def test_generated_programs_cover_the_op_set():
    kinds = Counter()
    for seed in SEEDS:
        kinds.update(_program(seed).kinds)
    assert REQUIRED_KINDS - set(kinds) == set()


def test_programs_use_only_the_library_they_are_given():
    # A program that reached for torch or leafgrad directly would compare a library with itself.
    for seed in SEEDS:
        source = _program(seed).source
        assert "torch" not in source and "leafgrad" not in source, seed


def _perturbed(records, label, key, change):
    records = [(name, dict(snapshot)) for name, snapshot in records]
    for name, snapshot in records:
        if name == label:
            snapshot[key] = change(snapshot[key])
            return records
    raise AssertionError(f"no record {label!r}")


@pytest.mark.parametrize(
    "key, change",
    [
        ("values", lambda v: v + np.asarray(1e-3, dtype=v.dtype)),
        ("dtype", lambda d: "leafgrad.float16"),
        ("requires_grad", lambda r: not r),
        ("grad_fn", lambda f: ("MulBackward0", "MulBackward0")),
        ("_version", lambda v: v + 1),
        ("repr", lambda r: r.replace("1", "7", 1)),
    ],
)
def test_compare_reports_every_kind_of_difference(key, change):
    program = Program(
        -1,
        "def program(lib, O=None):\n"
        "    x = lib.tensor([1.25, -2.5], requires_grad=True)\n"
        "    O.new('x', x)\n"
        "    y = (x * 3).exp()\n"
        "    O.new('y', y)\n"
        "    return O.records\n",
    )
    records = program.run(torch)
    assert compare(records, records) == ""
    changed = _perturbed(records, "y", key, change)
    assert key in compare(records, changed)


def test_compare_accepts_last_digit_rounding_but_not_more():
    program = Program(
        -2,
        "def program(lib, O=None):\n"
        "    x = lib.tensor([0.12345], dtype=lib.float32)\n"
        "    O.new('x', x)\n"
        "    return O.records\n",
    )
    records = program.run(torch)
    close = _perturbed(records, "x", "values", lambda v: np.nextafter(v, np.float32(1)))
    close = _perturbed(close, "x", "repr", lambda r: r.replace("0.1235", "0.1234"))
    assert compare(records, close) == ""
    far = _perturbed(records, "x", "repr", lambda r: r.replace("0.1235", "0.1237"))
    assert "repr" in compare(records, far)


def test_compare_accepts_a_rounding_switch_to_scientific_notation():
    program = Program(
        -3,
        "def program(lib, O=None):\n"
        "    x = lib.tensor([0.0, 0.6265], dtype=lib.float64)\n"
        "    O.new('x', x)\n"
        "    return O.records\n",
    )
    records = program.run(torch)
    tiny = _perturbed(records, "x", "values", lambda v: v - np.array([2.7838e-17, 0.0]))
    printed = "tensor([-2.7838e-17,  6.2650e-01], dtype=leafgrad.float64)"
    assert compare(records, _perturbed(tiny, "x", "repr", lambda r: printed)) == ""
    wrong = "tensor([-2.7838e-17,  6.2750e-01], dtype=leafgrad.float64)"
    assert "repr" in compare(records, _perturbed(tiny, "x", "repr", lambda r: wrong))
