"""Behaviours found by replaying PyTorch's own tests not covered before (test/autograd/
test_functional.py's TestAutogradFunctional, the custom Function, hook, anomaly, saved-tensor
hook and inference-mode parts of test/autograd/test_autograd.py and test_inference_mode.py,
test_shape_ops.py, ...) as programs run under torch and leafgrad in one process; each program's
observations (values bit for bit, dtype, shape, strides, grad_fn names, errors' type and first
line, warnings) must be identical."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()

# torch's first forward-mode Jacobian imports modules that warn once per process (torch.jit.script
# deprecation): done here, so no program sees those import-time warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.autograd.functional.jacobian(torch.sin, torch.ones(1), vectorize=True,
                                       strategy="forward-mode")


# the observation helpers test_suite11_findings.py defined for its replays
from tests.test_suite11_findings import _observe, _outcome, _same, _seen  # noqa: E402,F401


def _values(lib, *shape, dtype=None, requires_grad=False):
    """Deterministic values of ``shape`` (sines of a ramp), in ``dtype`` (float32 by default)."""
    count = math.prod(shape)
    values = (lib.arange(count, dtype=lib.float64) * 0.37 + 0.1).sin().reshape(shape)
    return values.to(dtype or lib.float32).requires_grad_(requires_grad)


# --- autograd.functional (test/autograd/test_functional.py) -----------------------------------

def test_forward_mode_jacobian_of_an_output_without_tangent_is_expanded_zeros():
    # jacobian(strategy="forward-mode") and hessian(outer_jacobian_strategy="forward-mode") of
    # an output the inputs do not reach (a constant, a detached value, a linear function's
    # gradient): torch's vmap returns the unbatched zeros_like(primal) expanded over the batch,
    # so the Jacobian has stride 0 along the input's dimensions; leafgrad stacked one block of
    # zeros per column (strides (1, 3) where torch's are (1, 0)).
    def program(lib, see):
        F = lib.autograd.functional
        for dtype in (lib.float32, lib.float64):
            functions = [
                (lambda x: lib.zeros(3, dtype=dtype), _values(lib, 4, dtype=dtype)),
                (lambda x: x.detach() * 2, _values(lib, 2, 3, dtype=dtype)),
                (lambda x: (x.sin(), lib.ones(2, 2)), _values(lib, 3, dtype=dtype)),
                (lambda x, y: (x * 2, y.detach()), (_values(lib, 2, dtype=dtype),
                                                    _values(lib, 3, 2, dtype=dtype))),
                (lambda x: x.new_ones(()), _values(lib, 5, dtype=dtype)),
            ]
            for function, inputs in functions:
                see(lambda: F.jacobian(function, inputs, vectorize=True, strategy="forward-mode"))
            for function, inputs in [(lambda x: x.sum() * 2, _values(lib, 3, dtype=dtype)),
                                     (lambda x, y: (x * 3).sum() + y.sum(),
                                      (_values(lib, 2, 2, dtype=dtype), _values(lib, 3, dtype=dtype))),
                                     (lambda x: (x.detach() ** 2).sum() + x.sum(),
                                      _values(lib, 4, dtype=dtype))]:
                see(lambda: F.hessian(function, inputs, vectorize=True,
                                      outer_jacobian_strategy="forward-mode"))

    _same(program)


def test_construct_standard_basis_for_as_torch_tests_call_it():
    # torch's test_construct_standard_basis_for calls autograd.functional's private helper;
    # leafgrad had no such name (AttributeError).
    def program(lib, see):
        F = lib.autograd.functional
        cases = [(_values(lib, 2, 3),), (_values(lib, 1),), (_values(lib),),
                 (_values(lib, 1), _values(lib), _values(lib)),
                 (_values(lib, 2), _values(lib, 3), _values(lib)),
                 (_values(lib, 2, 3), _values(lib, 3), _values(lib, 3, 4, 2)),
                 (_values(lib, 2, dtype=lib.float64), _values(lib, 3)),
                 (_values(lib, 0), _values(lib, 2, dtype=lib.float64))]
        for case in cases:
            see(lambda: F._construct_standard_basis_for(case, tuple(t.numel() for t in case)))

    _same(program)


# --- test_shape_ops.py -------------------------------------------------------------------------

def test_int_list_arguments_are_parsed_as_torch_parser_reads_them():
    # flip, movedim/moveaxis, rot90 and roll take int lists (torch's int[]): torch matches a
    # list by its first item only and reads the others after choosing the overload ("failed to
    # unpack the object at pos 2"), refuses a lone int where the list has no size (flip's dims,
    # rot90's), a tensor of several elements, and mixes of an int and a list (movedim's two
    # overloads). leafgrad flipped with flip(x, 0) and 1-d tensors, moved dims with tuples of
    # floats, (0, (1,)) and tensors, and failed with Python's or NumPy's own errors; moveaxis
    # called itself movedim.
    def program(lib, see):
        x = lib.arange(8.).view(2, 2, 2)
        lists = [0, 1.0, True, None, "a", (), [1], (0, 1), [0, -1], (0, 0.5), (0.5, 0),
                 (0, True), (True, 0), (0, None), (0, lib.tensor(1)), (0, lib.tensor(1.)),
                 (lib.tensor([1]), 0), (0, np.int64(1)), (0, np.float64(1)), (np.float64(1),),
                 lib.tensor(1), lib.tensor([0, 1]), np.array([0, 1]), np.int64(1)]
        for value in lists:
            see(lambda: lib.flip(x, value))
            see(lambda: lib.flip(x, dims=value))
            see(lambda: x.flip(value))
            see(lambda: x.flip(dims=value))
            see(lambda: lib.rot90(x, 1, value))
            see(lambda: x.rot90(1, dims=value))
            see(lambda: lib.roll(x, value, (0, 1) if isinstance(value, tuple) and
                                 len(value) == 2 else 0))
            see(lambda: x.roll(1, value))
            for other in (0, (1,), (1, 0)):
                for function in (lib.movedim, lib.moveaxis, lib.Tensor.movedim,
                                 lib.Tensor.moveaxis):
                    see(lambda: function(x, value, other))
                    see(lambda: function(x, other, value))
                    see(lambda: function(x, source=value, destination=other))
        for args in [(0, 0.5), (0.5, 0), (0, 1, 1), (), (0, 1, 2, 3), (None,)]:
            see(lambda: x.flip(*args))
        see(lambda: x.flip(0, dims=(1,)))
        see(lambda: x.movedim(0))
        see(lambda: x.moveaxis(0, 1, 2))
        see(lambda: lib.moveaxis(x, 0, 1, 2))

    _same(program)


def test_nonzero_out_takes_torch_layout_and_refuses_as_tuple():
    # torch's CPU nonzero gives an out it resized the column-major strides (1, N) of its own
    # result, also along dims of size 1 or 0 (leafgrad's were row-major there: (1, 1) for a
    # (9, 1) result, (2, 1) for (0, 2)); an out of the right shape keeps its strides. out= with
    # as_tuple=True is torch's RuntimeError (leafgrad: AttributeError of a tuple), and as_tuple
    # must be a bool (leafgrad took 1 and None).
    def program(lib, see):
        for dtype, shape in itertools.product(
                (lib.float32, lib.int64, lib.bool), [(12,), (12, 1), (1, 12), (3, 2, 2), (), (0, 3),
                                                     (3, 0)]):
            count = math.prod(shape)
            tensor = (lib.arange(count) % 3).reshape(shape).to(dtype) if shape else \
                lib.tensor(1, dtype=dtype)
            for out in (lib.empty([], dtype=lib.long), lib.empty(0, dtype=lib.long),
                        lib.empty(30, dtype=lib.long), lib.empty(4, 8, dtype=lib.long)[:, ::2],
                        lib.empty_like(lib.nonzero(tensor)),
                        lib.empty_like(lib.nonzero(tensor).t().contiguous()).t()):
                see(lambda: (lib.nonzero(tensor, out=out), out, out.stride()))
            see(lambda: lib.nonzero(tensor, out=lib.empty(0)))
            for as_tuple in (True, False, 1, None):
                see(lambda: lib.nonzero(tensor, as_tuple=as_tuple))
                see(lambda: tensor.nonzero(as_tuple=as_tuple))
                see(lambda: lib.nonzero(tensor, as_tuple=as_tuple, out=lib.empty(0)))
                see(lambda: lib.nonzero(tensor, as_tuple=as_tuple,
                                        out=lib.empty(0, dtype=lib.long)))

    _same(program)


def test_clamp_out_dtype_rule_follows_the_overload_torch_chooses():
    # clamp with tensor bounds only (and clamp_min/clamp_max with a tensor bound, 0-d too) is
    # torch's Tensor overload, TensorIterator's: it casts into any out dtype the result casts
    # to safely ("result type Float can't be cast to the desired output type Long" otherwise);
    # number bounds (or a number with a tensor) take the Scalar overload, which needs out's
    # dtype exactly. leafgrad applied the Scalar rule to all ("Found dtype Double but expected
    # Long" for clamp(long, max=tensor(4), out=double)).
    def program(lib, see):
        bounds = (None, -10, 2.5, lib.tensor(-3), lib.tensor(1.5), lib.tensor([1.] * 6))
        for dtype in (lib.int64, lib.float32, lib.uint8):
            x = (lib.arange(-3, 3) * 3).to(dtype)
            for out_dtype in (lib.int64, lib.float64, lib.float32, lib.int32, lib.bool):
                for low, high in itertools.product(bounds, bounds[:5]):
                    for function in (lib.clamp, lib.clip):
                        see(lambda: function(x, low, high, out=lib.empty(0, dtype=out_dtype)))
                    see(lambda: lib.clamp(x, min=low, max=high,
                                          out=lib.empty(0, dtype=out_dtype)))
                for bound in bounds[1:]:
                    for function in (lib.clamp_min, lib.clamp_max):
                        see(lambda: function(x, bound, out=lib.empty(0, dtype=out_dtype)))
                    see(lambda: lib.clamp_min(x, min=bound, out=lib.empty(0, dtype=out_dtype)))
                    see(lambda: lib.clamp_max(x, max=bound, out=lib.empty(0, dtype=out_dtype)))

    _same(program)


def test_size_and_dim_lists_refuse_floats_as_torch_parser():
    # view/reshape/expand/permute/repeat/tile/sum_to_size read their size lists with int(),
    # which truncates: x.reshape(2, 4.5) was a (2, 4) view, x.permute(0, 1.5, 2) a permutation;
    # torch's parser refuses a float after a first int ("failed to unpack the object at pos 2")
    # and gives its own errors for a float first and for tensors of several elements.
    def program(lib, see):
        x = lib.arange(8.).view(2, 2, 2)
        for sizes in [(2, 4.0), (2.0, 4), (2, True, 4), (2, lib.tensor(4)), (2, lib.tensor(4.)),
                      (np.int64(2), 4), (2, np.float64(4)), (2, None), (lib.tensor([2, 4]),),
                      (np.array([2, 4]),), ((2, 4.5),), ([2, 4],), ((np.int64(2), 4),)]:
            see(lambda: x.view(*sizes))
            see(lambda: x.reshape(*sizes))
            see(lambda: lib.reshape(x, sizes[0] if len(sizes) == 1 else sizes))
            see(lambda: x.flatten().expand(3, *sizes) if len(sizes) > 1 else x.expand(*sizes))
            see(lambda: x.repeat(1, *sizes))
            see(lambda: x.tile(*sizes))
            see(lambda: lib.tile(x, sizes))
            see(lambda: x.sum_to_size(*sizes))
        for dims in [(0, 1.5, 2), (0.5, 1, 2), (0, True, 2), (0, 1, lib.tensor(2)),
                     (0, 1, lib.tensor(2.)), ((0, 1.5, 2),), ((2, 0, 1),), (lib.tensor([0, 1, 2]),)]:
            see(lambda: x.permute(*dims))
            see(lambda: lib.permute(x, dims[0] if len(dims) == 1 else dims))
        see(lambda: x.view(size=(2, 4.0)))
        see(lambda: x.reshape(shape=(2, 4.0)))
        see(lambda: x.permute(dims=(0, 1.5, 2)))
        see(lambda: x.repeat(repeats=(1, 2.0, 1)))

    _same(program)


# --- test_sort_and_select.py -------------------------------------------------------------------

def test_unique_consecutive_with_dim_keeps_the_moved_back_layout():
    # unique_consecutive(dim=d) builds the kept slices with d first and moves d back, as
    # unique(dim=d) does: its values have that layout (strides (1, 3) for a (3, 3) result of
    # dim=1; leafgrad made them row-major).
    def program(lib, see):
        for dtype in (lib.float32, lib.int64, lib.bool):
            for shape in [(3, 4), (2, 3, 4), (4, 1, 2), (2, 0), (0, 3), (0,), (5,)]:
                count = math.prod(shape)
                x = (lib.arange(count) % 3).reshape(shape).to(dtype)
                for dim in range(-len(shape), len(shape)):
                    see(lambda: lib.unique_consecutive(x, dim=dim, return_inverse=True,
                                                       return_counts=True))
                    see(lambda: x.unique_consecutive(dim=dim))
                    see(lambda: lib.unique_consecutive(x.transpose(0, -1), dim=dim))
                    see(lambda: lib.unique(x, dim=dim))

    _same(program)
