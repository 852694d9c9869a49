"""Behaviours found by replaying PyTorch's nn test files not covered before (test/nn/
test_pruning.py, test_lazy_modules.py, test_dropout.py, test_init.py, test_swa_utils.py, ...) as
programs run under torch and leafgrad in one process; each program's observations (values bit
for bit, dtype, shape, strides, grad_fn names, errors' type and first line, warnings) must be
identical."""

from __future__ import annotations

import importlib
import math
import re
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _normal(text: str) -> str:
    text = re.sub(r" \(Triggered internally at .*\)$", "", text)  # (torch's C++ warnings)
    return re.sub(r" at 0x[0-9a-f]+", " at 0x", text.replace("leafgrad", "torch"))


def _seen(value):
    """A comparable picture of ``value``: tensors by class, dtype, shape, strides, bytes (through
    float64 for floating dtypes) and autograd state."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        if data.is_floating_point():
            data = data.double()
        node = value.grad_fn
        return ("tensor", type(value).__name__, str(value.dtype).split(".")[-1],
                tuple(value.shape), tuple(value.stride()), data.numpy().tobytes(),
                value.requires_grad, type(node).__name__ if node is not None else None)
    if isinstance(value, (tuple, list)):
        return type(value).__name__, tuple(_seen(v) for v in value)
    if isinstance(value, dict):
        return "dict", tuple((_seen(k), _seen(v)) for k, v in value.items())
    if isinstance(value, (torch.dtype, leafgrad.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, str):
        return _normal(value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _outcome(fn):
    try:
        return "ok", _seen(fn())
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return type(error).__name__, _normal(str(error).split("\n")[0])


def _observe(program, lib):
    """Everything ``program(lib, see)`` shows through ``see``, then its warnings."""
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seen.append(_outcome(lambda: program(lib, lambda fn: seen.append(_outcome(fn)))))
    return seen, [(w.category.__name__, _normal(str(w.message).split("\n")[0])) for w in caught]


def _same(program):
    got, expected = _observe(program, leafgrad), _observe(program, torch)
    assert got == expected
    return expected


def _parameter_module(lib):
    return importlib.import_module(lib.__name__ + ".nn.parameter")


# --- lazy modules (test_lazy_modules.py) ------------------------------------------------------

def test_uninitialized_materialize_reads_its_shape_as_empty_does():
    # materialize(10) (the test's call) was "'int' object is not iterable": the shape was read
    # with tuple(); torch passes it to torch.empty (an int, a list, a Size, its errors)
    def program(lib, see):
        P = _parameter_module(lib)
        shapes = [10, (2, 3), [2, 3], lib.Size([4]), (), (0, 3), -1, (2, -1), 2.5, None, "3"]
        for shape in shapes:
            for kind, dtype in [("UninitializedParameter", None),
                                ("UninitializedBuffer", lib.float64)]:
                def materialized(kind=kind, shape=shape, dtype=dtype):
                    made = getattr(P, kind)(requires_grad=True)
                    made.materialize(shape, dtype=dtype)
                    return (type(made).__name__, made.shape, made.dtype, made.requires_grad,
                            made.is_leaf)
                see(materialized)

        class Lazy(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            pass

        # module.bfloat16() converted the lazy parameter; torch refuses the conversions off its
        # allowed list (and requires_grad_), naming the method
        for kind in ["UninitializedParameter", "UninitializedBuffer"]:
            for method in ["bfloat16", "bool", "byte", "cfloat", "cdouble", "chalf", "half",
                           "float", "double", "int", "long", "cpu", "requires_grad_"]:
                made = getattr(P, kind)()
                see(lambda made=made, method=method: type(getattr(made, method)()).__name__)
                see(lambda made=made: (made.requires_grad, made.dtype))
        for convert in ["half", "double", "bfloat16", "float"]:
            module = Lazy()
            module.register_parameter("test_param", P.UninitializedParameter())
            getattr(module, convert)()
            module.test_param.materialize(3)
            see(lambda: (module.test_param.dtype, module.test_param.shape,
                         type(module.test_param).__name__))

    _same(program)


def test_norm_reparametrizations_refuse_uninitialized_parameters():
    # weight_norm gave the generic "Attempted to use an uninitialized parameter in
    # weight_norm"; spectral_norm the same from its shape query; spectral_norm on a None
    # parameter an AttributeError; torch checks each first with its own ValueError
    def program(lib, see):
        builds = [lambda: lib.nn.LazyLinear(7), lambda: lib.nn.LazyConv2d(3, 2),
                  lambda: lib.nn.LazyConvTranspose1d(3, 2), lambda: lib.nn.LazyBatchNorm1d()]
        for apply in ["weight_norm", "spectral_norm"]:
            for build in builds:
                module = build()

                def applied(module=module, apply=apply):
                    getattr(lib.nn.utils, apply)(module)

                see(applied)
                see(lambda module=module: (sorted(module._parameters),
                                           len(module._forward_pre_hooks)))
            module = lib.nn.Linear(2, 2, bias=False)
            see(lambda module=module, apply=apply: getattr(lib.nn.utils, apply)(module, "bias"))

    _same(program)


def test_script_refuses_modules_with_uninitialized_parameters_or_buffers():
    # torch.jit.script scripted a lazy module that no forward had materialized; torch checks
    # each module (outermost first) and names the first uninitialized parameter, then buffer
    def program(lib, see):
        P = _parameter_module(lib)

        class Lazy(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            pass

        def with_parameter():
            module = Lazy()
            module.register_parameter("p", P.UninitializedParameter())
            module.register_buffer("b", P.UninitializedBuffer())
            return module

        def with_buffer():
            module = Lazy()
            module.register_buffer("b", P.UninitializedBuffer())
            return module

        def nested():
            outer = Lazy()
            outer.register_buffer("outer_b", P.UninitializedBuffer())
            outer.inner = with_parameter()
            return lib.nn.Sequential(lib.nn.Linear(2, 2), outer)

        def materialized():
            module = lib.nn.Sequential(lib.nn.LazyLinear(2))
            module(lib.ones(1, 3))
            return module

        for build in [with_parameter, with_buffer, nested, materialized]:
            see(lambda build=build: type(lib.jit.script(build())).__name__)

    _same(program)


# --- dropout (test_dropout.py) ------------------------------------------------------------------

def _inverse(perm):
    back = [0] * len(perm)
    for place, dim in enumerate(perm):
        back[dim] = place
    return tuple(back)


def test_elementwise_results_take_tensor_iterators_size_one_strides():
    # test_dropout_stride_mean_preserve: dropout of a permuted, sliced tensor with a size-1
    # dim; its strides there were NumPy's (dropout's noise is empty_like(input), so
    # input * noise takes TensorIterator's fast setup: the input's strides, size-1 dims'
    # included; x * 2 orders the dims by every stride). The same for every elementwise
    # product of operands of one layout, a number, and for the gradient AccumulateGrad keeps
    # (torch keeps a dense gradient of the leaf's order whatever its size-1 strides)
    import itertools

    ops = {
        "mul_number": lambda lib, x: x * 2,
        "div_0d": lambda lib, x: x / lib.tensor(2.0),
        "add_self": lambda lib, x: x + x,
        "mul_clone": lambda lib, x: x * x.clone(),
        "add_ones_like": lambda lib, x: x + lib.ones_like(x),
        "where": lambda lib, x: lib.where(x > 0, x, x),
        "maximum": lambda lib, x: lib.maximum(x, x),
        "sub_column": lambda lib, x: x - x[..., :1],
        "double": lambda lib, x: x.double() * x.double(),
        "dropout": lambda lib, x: lib.nn.functional.dropout(x, 0.5),
        "dropout_tiny": lambda lib, x: lib.nn.functional.dropout(x, 1e-10),
        "dropout_module": lambda lib, x: lib.nn.Dropout(0.3)(x),
    }

    def program(lib, see):
        for shape, perms in [((2, 3, 2, 3), 2), ((2, 1, 3), 1), ((3, 2, 1, 2, 2), 7)]:
            base = lib.arange(float(np.prod(shape))).reshape(shape) + 1
            for perm in list(itertools.permutations(range(len(shape))))[::perms]:
                for shift in [(0, 0), (1, 0), (0, 1), (1, 1)]:
                    x = base.permute(perm).contiguous().permute(_inverse(perm))
                    x = x[shift[0]:, shift[1]:]
                    for name, op in ops.items():
                        lib.manual_seed(0)
                        see(lambda op=op, x=x: (x.stride(), op(lib, x).stride()))
                    leaf = x.detach().clone().requires_grad_()
                    lib.manual_seed(0)
                    out = lib.nn.functional.dropout(leaf, 0.5) * 3
                    out.backward(lib.ones_like(out))
                    see(lambda leaf=leaf: (leaf.stride(), leaf.grad.stride(), leaf.grad))

    _same(program)


def test_native_dropout_without_train_backpropagates_unscaled():
    # native_dropout(x, p, None) trains (the output scaled by 1 / (1 - p)), but derivatives.yaml
    # reads an absent train as eval for the backward: the gradient is the mask itself (leafgrad
    # scaled it); the forward-mode tangent takes the forward's scale
    def program(lib, see):
        fwAD = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
        for dtype in [lib.float32, lib.float64]:
            lib.manual_seed(0)
            x = lib.randn(3, 4, dtype=dtype)
            for train in [None, True, False]:
                for p in [0.0, 0.3, 1.0]:
                    def both(x=x, train=train, p=p):
                        leaf = x.clone().requires_grad_()
                        lib.manual_seed(1)
                        out, mask = lib.native_dropout(leaf, p, train)
                        grad, = lib.autograd.grad((out * out.detach()).sum(), leaf,
                                                  create_graph=True)
                        with fwAD.dual_level():
                            dual = fwAD.make_dual(x, lib.ones_like(x))
                            lib.manual_seed(1)
                            tangent = fwAD.unpack_dual(lib.native_dropout(dual, p, train)[0])
                        return out, mask, grad, tangent.tangent

                    see(both)

    with warnings.catch_warnings():  # torch's first forward-AD dropout warns that jit.script
        warnings.simplefilter("ignore")  # is deprecated (scripting its decomposition): once
        program(torch, lambda fn: fn())
    _same(program)


# --- swa_utils and schedulers (test_swa_utils.py, test_lrscheduler.py) -------------------------

def test_scheduler_state_dicts_hold_no_functions():
    # SWALR's state dict held its anneal function (torch: the strategy's name,
    # _anneal_strategy, set again on load); MultiplicativeLR's held its lambdas (torch: None
    # for a function, a callable object's __dict__, after the other keys); both broke pickling
    import pickle

    class Factor:
        def __init__(self, value):
            self.value = value

        def __call__(self, epoch):
            return self.value

    def program(lib, see):
        S = lib.optim.lr_scheduler

        def optimizer():
            return lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=1.0, momentum=0.9)

        makers = {
            "swa_cos": lambda o: lib.optim.swa_utils.SWALR(o, 0.05, anneal_epochs=3),
            "swa_linear": lambda o: lib.optim.swa_utils.SWALR(o, [0.05], 2, "linear"),
            "swa_none": lambda o: lib.optim.swa_utils.SWALR(o, 0.05, anneal_epochs=0),
            "multiplicative": lambda o: S.MultiplicativeLR(o, lambda epoch: 0.9),
            "multiplicative_object": lambda o: S.MultiplicativeLR(o, Factor(0.8)),
            "lambda": lambda o: S.LambdaLR(o, lambda epoch: 0.9 ** epoch),
        }
        for name, make in makers.items():
            opt = optimizer()
            scheduler = make(opt)
            for _ in range(3):
                opt.step()
                scheduler.step()
            state = scheduler.state_dict()
            see(lambda state=state: [(key, value if isinstance(value, (int, float, str, list))
                                      else type(value).__name__) for key, value in state.items()])
            see(lambda state=state: len(pickle.dumps(state)) > 0)
            # loaded into a scheduler of the other strategy, it goes on as the saved one
            other = optimizer()
            again = make(other) if not name.startswith("swa") else \
                lib.optim.swa_utils.SWALR(other, 0.05, 5, "linear" if "cos" in name else "cos")
            again.load_state_dict(state)
            for _ in range(3):
                other.step()
                again.step()
                see(lambda other=other: other.param_groups[0]["lr"])

    _same(program)


# --- nn.functional with a non-Tensor argument (test_swa_utils.py's update_bn on dict batches) --

def test_functional_layers_refuse_non_tensor_arguments_as_torchs_parser():
    # update_bn over a loader of dicts ran Linear on a dict: AttributeError ('dict' object has
    # no attribute 'ndim'); torch's F.linear is a C binding whose parser raises TypeError
    # naming the argument. The same for the activations, dropout, layer_norm, pad, bilinear
    # (each in-place form under its own name); torch's Python checks (hardtanh's bounds,
    # dropout's p) still come first. (Left: F.linear(input=...) by keyword, where torch's
    # message names no position)
    def program(lib, see):
        F = lib.nn.functional
        x, w, b = lib.ones(2, 3), lib.ones(4, 3), lib.ones(4)
        # (left: a NumPy array, which leafgrad's ops read as data where torch refuses it)
        bad_values = [{"a": 1}, [1.0, 2.0], None, 3, 2.5, "s", (1, 2)]
        for bad in bad_values:
            calls = [
                lambda: F.linear(bad, w), lambda: F.linear(x, bad), lambda: F.linear(x, w, bad),
                lambda: F.linear(bad, bad, bad),
                lambda: F.bilinear(bad, x, lib.ones(2, 3, 3)),
                lambda: F.bilinear(x, x, bad), lambda: F.bilinear(x, x, lib.ones(2, 3, 3), bad),
                lambda: F.layer_norm(bad, (3,)), lambda: F.layer_norm(x, (3,), bad),
                lambda: F.layer_norm(x, (3,), None, bad), lambda: F.pad(bad, (1, 1)),
                lambda: F.dropout(bad), lambda: F.dropout(bad, 0.5, True, True),
                lambda: F.dropout(bad, 1.5), lambda: F.hardtanh(bad, 2.0, 1.0),
                lambda: F.gelu(bad), lambda: F.gelu(bad, approximate="bad"),
                lambda: F.softplus(bad), lambda: F.softplus(bad, beta="x"),
                lambda: F.logsigmoid(bad),
            ]
            for name in ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "silu", "mish",
                         "hardtanh", "hardswish"]:
                for inplace in [False, True]:
                    calls.append(lambda name=name, inplace=inplace:
                                 getattr(F, name)(bad, inplace=inplace))
                calls.append(lambda name=name: getattr(F, name)(input=bad))
            calls.append(lambda: F.leaky_relu(bad, "slope"))
            for call in calls:
                see(call)
        # valid calls are unchanged
        see(lambda: (F.linear(x, w, b), F.relu(-x), F.hardtanh(x * 3), F.layer_norm(x, (3,)),
                     F.pad(x, (1, 1)), F.logsigmoid(x), F.gelu(x)))

    _same(program)


def test_softmax_functions_fail_as_torchs_python_does():
    # F.softmax / log_softmax / softmin are Python in torch: a non-Tensor input fails at its
    # first use (input.dim() when dim is None, before the deprecation warning; then
    # input.softmax, (-input).softmax); a non-int dim is the method's argument 1 (softmin's is
    # softmax's). leafgrad warned first, then failed on .ndim, and named position 2
    def program(lib, see):
        F = lib.nn.functional
        modules = {"softmax": "Softmax", "log_softmax": "LogSoftmax", "softmin": "Softmin"}
        x = lib.arange(6.0).reshape(2, 3)
        for name in ["softmax", "log_softmax", "softmin"]:
            for value in [{"a": 1}, [1.0], None, 3, "s", (1,), x]:
                for dim in [None, 0, 1, -1, 5, "x", 1.5]:
                    see(lambda value=value, name=name, dim=dim: getattr(F, name)(value, dim))
                    see(lambda value=value, name=name, dim=dim: getattr(F, name)(
                        value, dim=dim, dtype=lib.float64))
                    see(lambda value=value, name=name, dim=dim: getattr(
                        lib.nn, modules[name])(dim)(value))

    _same(program)
