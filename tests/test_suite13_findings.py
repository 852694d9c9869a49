"""Behaviours found by replaying PyTorch's own nn and tensor test files not covered before
(test/nn/test_pooling.py, test_convolution.py, test_embedding.py, test/test_nn.py's module
parts, test_torch.py's tensor methods, ...) as programs run under torch and leafgrad in one
process; each program's observations (values bit for bit, dtype, shape, strides, grad_fn names,
errors' type and first line, warnings) must be identical."""

from __future__ import annotations

import math

import pytest

import leafgrad

from ._torch import require_torch
from .test_suite11_findings import _same

torch = require_torch()


def _values(lib, *shape, dtype=None):
    """Deterministic values of ``shape`` (sines of a ramp), in ``dtype`` (float32 by default)."""
    count = math.prod(shape)
    values = (lib.arange(count, dtype=lib.float64) * 0.37 + 0.1).sin().reshape(shape)
    return values.to(dtype or lib.float32)


# --- pooling (test/nn/test_pooling.py) ---------------------------------------------------------

def test_fractional_max_pool_checks_its_random_samples():
    # leafgrad indexed whatever _random_samples it was given (a (N, C, 3) tensor for the 2-d
    # pool ran, a short batch or channel count was NumPy's IndexError); torch checks the
    # samples' dtype, rank and (batch, channels, dims) first
    def program(lib, see):
        F = lib.nn.functional
        for dims, pool in ((2, F.fractional_max_pool2d), (3, F.fractional_max_pool3d)):
            for batched in (True, False):
                x = _values(lib, *((2,) if batched else ()), 3, *(7,) * dims)
                for shape in [(2, 3, dims), (3, 3, dims), (1, 3, dims), (2, 2, dims),
                              (2, 4, dims), (2, 3, 1), (2, 3, 2), (2, 3, 3), (2, 3, 4),
                              (2, 3, 0), (2, 3), (2, 3, dims, 1), (0, 3, dims)]:
                    for dtype in (lib.float32, lib.float64):
                        samples = lib.full(shape, 0.5, dtype=dtype)
                        see(lambda: pool(x, 2, output_size=3, _random_samples=samples,
                                         return_indices=True))
                        see(lambda: pool(x, 2, output_ratio=0.5, _random_samples=samples))
                    # the input's rank and the output size are checked first
                    see(lambda: pool(x, 2, output_size=9, _random_samples=lib.full(
                        (2, 3, 5), 0.5)))
            for shape in [(3, 7), (1, 1, 1, 1, 3, 7)]:
                see(lambda: pool(_values(lib, *shape), 2, output_size=3,
                                 _random_samples=lib.full((2, 3, 5), 0.5)))

    _same(program)


# --- modules (test/test_nn.py: containers, to/type conversions) --------------------------------

def test_module_to_reads_its_call_as_tensor_to():
    # nn.Module.to read its arguments its own way: a number (to(3.5): torch's 0-d tensor, so
    # float64 on the CPU) was taken for a device string, to(True) ignored, copy= accepted;
    # complex parameters and buffers were never converted (to(complex128) kept complex64) and
    # the complex-module warning was missing. torch reads the call with _C._nn._parse_to.
    import warnings

    def make(lib):
        m = lib.nn.Sequential(lib.nn.Conv2d(2, 2, 1), lib.nn.BatchNorm2d(2))
        m.register_buffer("c", lib.ones(1, 2, 3, 3, dtype=lib.complex64))
        m.register_buffer("i", lib.ones(2, 2, 2, 2, dtype=lib.int32))
        m.register_buffer("h", lib.ones(2, 2, 2, 2, 2).half())
        return m

    def state(m):
        return [(k, t.dtype, t.stride(), t.device.type, type(t).__name__, t.requires_grad)
                for k, t in list(m.named_parameters()) + list(m.named_buffers())]

    def program(lib, see):
        calls = [((lib.float64,), {}), ((lib.complex128,), {}), ((lib.float16,), {}),
                 ((lib.int64,), {}), ((lib.bool,), {}), ((float,), {}), ((complex,), {}),
                 ((int,), {}), ((3.5,), {}), ((1,), {}), ((True,), {}), ((2j,), {}),
                 (("cpu",), {}), (("cpu", lib.float64), {}), (("cpu", lib.float64, True), {}),
                 ((None, lib.float64), {}), ((), {"dtype": lib.float64}),
                 ((), {"device": "cpu", "dtype": lib.complex64}),
                 ((), {"memory_format": lib.channels_last}),
                 ((lib.float64,), {"memory_format": lib.channels_last}),
                 ((), {"memory_format": lib.channels_last_3d}),
                 ((lib.ones(1, dtype=lib.float64),), {}), ((lib.ones(1, dtype=lib.int64),), {}),
                 ((), {"tensor": lib.ones(1, dtype=lib.complex64)}),
                 ((lib.float64,), {"non_blocking": 1}), ((lib.float64,), {"copy": True}),
                 ((lib.float64,), {"copy": False}), ((lib.float64, True, True), {}),
                 ((lib.ones(1), False, False), {}), ((), {"dtype": "float"}),
                 ((), {"bad": 1}), (("meta",), {}), ((lib.device("meta"), lib.float64), {}),
                 (([1],), {}), ((lib.float64, lib.float32), {}), ((), {})]
        with warnings.catch_warnings():  # (torch warns of a discarded imaginary part once a
            warnings.filterwarnings("ignore", "Casting complex values to real")  # process)
            for args, kwargs in calls:
                see(lambda: str(lib._C._nn._parse_to(*args, **kwargs)))
                m = make(lib)
                see(lambda: state(m.to(*args, **kwargs)))
                see(lambda: state(m))
            m = make(lib).to("meta")
            see(lambda: m.to("cpu"))
            see(lambda: state(m.to("meta", lib.float64)))
            c = make(lib).to(lib.complex64)
            for convert in (lambda: c.to(lib.float32), c.double, c.float, c.half,
                            lambda: c.type(lib.float64), lambda: c.to(lib.complex128)):
                see(lambda: state(convert()))

    _same(program)


def test_module_and_parameter_dicts_refuse_bad_updates_as_torch():
    # ModuleDict took a str element for not iterable (torch unpacks 'ab' into a key and a
    # value); both dicts' message has torch's "is<type>"; ParameterDict().popitem() was an
    # IndexError where torch's is the dict's KeyError
    def program(lib, see):
        nn = lib.nn
        for kind, value in ((nn.ModuleDict, nn.ReLU()), (nn.ParameterDict, lib.ones(1))):
            for update in ([3], [value], ["ab"], [("a",)], [("a", value, 1)], [b"ab"], 3, None,
                           [None], [[1, value]], [("a", value)], ({"a": value},)):
                d = kind()
                see(lambda: d.update(update))
                see(lambda: list(d.keys()))
            see(lambda: kind().popitem())
            d = kind({"a": value, "b": value})
            see(lambda: d.popitem()[0])
            see(lambda: list(d.keys()))

    _same(program)


# --- losses (test/test_nn.py) ------------------------------------------------------------------

def test_margin_losses_add_as_torch_kernels():
    # multi_margin_loss and multilabel_margin_loss were a last bit off torch's for some inputs:
    # leafgrad summed each sample's terms pairwise and reduced as the generic losses do; torch's
    # kernels add one by one (multi margin: each sample in the input's dtype, the samples in the
    # accumulate type; multilabel: each sample in the accumulate type); float16 multilabel is
    # not implemented in torch (leafgrad computed it); the gradients are torch's kernels' steps
    # of 1/(samples * classes) or 1/classes times the incoming gradient, and a create_graph
    # backward of multilabel_margin_loss records torch's NotImplemented node (leafgrad's
    # formula recorded a MulBackward0)
    def program(lib, see):
        F = lib.nn.functional
        for dtype in (lib.float32, lib.float64, lib.float16):
            for n, c in ((3, 4), (7, 13), (1, 5), (40, 33)):
                x = (_values(lib, n, c, dtype=lib.float64) * 3).to(dtype).requires_grad_()
                t = (lib.arange(n) * 7) % c
                labels = (lib.arange(1, n * c + 1).reshape(n, c) * 3) % (c + 1) - 1
                weight = _values(lib, c, dtype=dtype).abs()
                for reduction in ("mean", "sum", "none"):
                    calls = [lambda: F.multilabel_margin_loss(x, labels, reduction=reduction),
                             lambda: F.multilabel_margin_loss(x[0], labels[0],
                                                              reduction=reduction),
                             lambda: F.multi_margin_loss(x[0], t[0], reduction=reduction)]
                    for p in (1, 2):
                        calls += [lambda: F.multi_margin_loss(x, t, p=p, margin=0.7,
                                                              reduction=reduction),
                                  lambda: F.multi_margin_loss(x, t, p=p, weight=weight,
                                                              reduction=reduction)]
                    for call in calls:
                        see(call)
                        if dtype != lib.float16:
                            loss = call()
                            upstream = _values(lib, *loss.shape, dtype=dtype) + 2
                            see(lambda: lib.autograd.grad(loss, x, upstream,
                                                          create_graph=True)[0])

    _same(program)


def test_nll_loss_target_checks_and_label_smoothing_bounds_as_torch():
    # a 4-d input's target was not checked as nll_loss2d checks it (a (2, 4, 4) target for a
    # (2, 3, 4, 5) input gave a loss; other shapes NumPy's IndexError); a 1-d input's unreduced
    # loss with a (1,) target was (1,) where torch's is 0-d; cross_entropy refused a negative
    # or NaN label_smoothing (torch only refuses more than 1, printed as C++ prints a double)
    def program(lib, see):
        F = lib.nn.functional
        pairs = [((2, 3, 4, 5), (2, 4, 4)), ((2, 3, 4, 5), (2, 4, 5)), ((2, 3, 4, 5), (2, 5, 4)),
                 ((2, 3, 4, 5), (3, 4, 5)), ((2, 3, 4, 5), (2, 20)), ((2, 3, 4, 5), (2, 4, 5, 1)),
                 ((2, 3, 4, 5), (2, 4, 0)), ((2, 3, 4, 5), (2,)), ((2, 3, 4), (2, 5)),
                 ((2, 3, 4), (2, 4, 1)), ((2, 3, 4, 5, 6), (2, 4, 5, 5)), ((2, 3, 4, 5, 6),
                                                                          (2, 4, 5, 6)),
                 ((2, 3), (2,)), ((2, 3), (2, 1)), ((3,), ()), ((3,), (1,)), ((3,), (2,)),
                 ((2, 3, 0), (2, 0))]
        for dtype in (lib.float32, lib.float64):
            for input_shape, target_shape in pairs:
                x = _values(lib, *input_shape, dtype=dtype).requires_grad_()
                t = (lib.arange(math.prod(target_shape)) % 3).reshape(target_shape)
                for reduction in ("mean", "sum", "none"):
                    for call in (lambda: F.nll_loss(x, t, reduction=reduction),
                                 lambda: F.cross_entropy(x, t, reduction=reduction),
                                 lambda: F.nll_loss(x, t, weight=lib.ones(3, dtype=dtype),
                                                    reduction=reduction, ignore_index=1),
                                 lambda: F.nll_loss(x, t, weight=lib.ones(4, dtype=dtype),
                                                    reduction=reduction)):
                        see(call)
                        see(lambda: lib.autograd.grad(call().sum(), x)[0])
        x = _values(lib, 3, 4).requires_grad_()
        for smoothing in (-0.1, -1, -math.inf, 0, 0.5, 1.0, 1.0000001, 1.5, 2, math.inf,
                          math.nan):
            for target in (lib.tensor([1, 0, 3]), _values(lib, 3, 4).softmax(1)):
                see(lambda: F.cross_entropy(x, target, label_smoothing=smoothing))
                see(lambda: lib.autograd.grad(F.cross_entropy(
                    x, target, label_smoothing=smoothing, reduction="sum"), x)[0])
                see(lambda: lib.nn.CrossEntropyLoss(label_smoothing=smoothing)(x, target))

    _same(program)


def test_soft_margin_loss_keeps_the_input_shape():
    # torch writes -input * target into a tensor of the input's shape: a target that broadcasts
    # the input wider is its in-place error (leafgrad computed a loss of the wider shape)
    def program(lib, see):
        F = lib.nn.functional
        shapes = [((3, 4), (2, 3, 4)), ((3, 1), (3, 4)), ((1, 4), (3, 4)), ((4,), (3, 4)),
                  ((3, 4), (5,)), ((0, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), (3, 1)),
                  ((3, 4), ()), ((), (2,)), ((2, 3, 4), (3, 4)), ((3, 4), (3, 4))]
        for dtype in (lib.float32, lib.float64):
            for input_shape, target_shape in shapes:
                x = _values(lib, *input_shape, dtype=dtype).requires_grad_()
                y = _values(lib, *target_shape, dtype=dtype).sign()
                for reduction in ("mean", "sum", "none"):
                    see(lambda: F.soft_margin_loss(x, y, reduction=reduction).shape)
                    see(lambda: lib.nn.SoftMarginLoss(reduction=reduction)(x, y).shape)

    _same(program)


# --- embedding (test/nn/test_embedding.py) -----------------------------------------------------

def test_embedding_max_norm_renormalises_in_one_write():
    # torch's embedding_renorm_ is one in-place op: the weight's version goes up by one per
    # call whatever it rescaled (leafgrad's went up once per rescaled row, and not at all when
    # none was). An index out of range is torch's error; torch's loop has rescaled the rows
    # before it by then, leafgrad checks every index first and changes nothing (checked below)
    def program(lib, see):
        F = lib.nn.functional
        for dtype in (lib.float32, lib.float64, lib.float16, lib.bfloat16):
            for max_norm, norm_type in ((1.0, 2.0), (100.0, 2.0), (1.5, 1.0), (0.5, math.inf),
                                        (0.7, 3.0)):
                for indices in ([[0, 2], [2, 5]], [], [5, 5, 1], [0, 2, 9], [-1, 0]):
                    weight = (_values(lib, 6, 3) * 4).to(dtype)
                    view = weight[1:]
                    index = lib.tensor(indices, dtype=lib.int64)
                    for target in (weight, view):
                        see(lambda: F.embedding(index, target, max_norm=max_norm,
                                                norm_type=norm_type))
                        flat = [i for row in indices for i in (row if isinstance(row, list)
                                                                 else [row])]
                        if all(0 <= i < target.shape[0] for i in flat):  # (else an error)
                            see(lambda: (weight, weight._version, view._version))
        weight = (_values(lib, 6, 3) * 4).requires_grad_()
        out = F.embedding(lib.tensor([1, 3]), weight, max_norm=1.0)
        see(lambda: (out, weight._version, lib.autograd.grad(out.sum(), weight)[0]))
        module = lib.nn.Embedding(6, 3, max_norm=1.0)
        with lib.no_grad():
            module.weight.copy_(_values(lib, 6, 3) * 4)
        see(lambda: (module(lib.tensor([[1, 2], [2, 2]])), module.weight._version))

    _same(program)
    F = leafgrad.nn.functional
    for dtype in (leafgrad.float32, leafgrad.float16):
        for indices in ([0, 2, 9], [[1, 5], [0, 6]], [-7, 3], [-1, 0]):
            weight = (_values(leafgrad, 6, 3) * 4).to(dtype)
            before = weight.clone()
            with pytest.raises(IndexError, match="out of range"):
                F.embedding(leafgrad.tensor(indices), weight, max_norm=1.0)
            assert weight._version == 0 and leafgrad.equal(weight, before)


# --- in-place writes into views, padded sequences (test/test_nn.py) ----------------------------

def test_inplace_op_on_a_view_gives_its_operands_contiguous_gradients():
    # torch's CopySlices runs the op's backward on a contiguous clone of the view's region of
    # the gradient: the source of x[:, 1:3].copy_(src) gets a contiguous gradient (leafgrad's
    # was a strided view of the base's gradient: unpack_sequence's inputs had strides (6, 1))
    def program(lib, see):
        views = [lambda b: b[:, 1:3], lambda b: b.t()[1], lambda b: b[::2],
                 lambda b: b.select(1, 2), lambda b: b.narrow(0, 1, 2), lambda b: b[1:, ::3]]
        ops = [lambda v, s: v.copy_(s), lambda v, s: v.add_(s, alpha=2),
               lambda v, s: v.mul_(s), lambda v, s: v.addcmul_(s, s, value=0.5),
               lambda v, s: v.div_(s + 3)]
        for dtype in (lib.float32, lib.float64):
            for view in views:
                for op in ops:
                    for base_grad in (False, True):
                        leaf = _values(lib, 4, 6, dtype=dtype).requires_grad_(base_grad)
                        base = leaf * 1
                        region = view(base)
                        src = (_values(lib, *region.shape, dtype=dtype) + 2).requires_grad_()
                        op(region, src)
                        inputs = (src, leaf) if base_grad else (src,)
                        upstream = _values(lib, 4, 6, dtype=dtype) * 3
                        see(lambda: lib.autograd.grad(base, inputs, upstream))
                        see(lambda: lib.autograd.grad(view(base * 1).sum(), src))

    _same(program)


def test_padded_sequences_are_made_as_torch():
    # pad_sequence's result had version len(sequences) (torch fills it in place first: one
    # more); unpad_sequence sliced each row (torch indexes it by a mask: a contiguous copy,
    # IndexBackward0) and did not transpose a time-first batch in place as torch does
    def program(lib, see):
        U = lib.nn.utils.rnn
        for dtype in (lib.float32, lib.float64, lib.int64):
            seqs = [(_values(lib, 4, 2) * 5).to(dtype), (_values(lib, 2, 2) * 5).to(dtype),
                    (_values(lib, 3, 2) * 5).to(dtype)]
            if dtype.is_floating_point:
                seqs[0].requires_grad_()
            for batch_first in (False, True):
                for side in ("right", "left"):
                    for count in (1, 2, 3):
                        padded = U.pad_sequence(seqs[:count], batch_first=batch_first,
                                                padding_side=side, padding_value=-1)
                        see(lambda: (padded, padded._version))
                padded = U.pad_sequence(seqs, batch_first=batch_first)
                see(lambda: U.unpad_sequence(padded, lib.tensor([4, 2, 3]),
                                             batch_first=batch_first))
                see(lambda: (padded.shape, padded.stride(), padded._version))
            packed = U.pack_sequence(seqs, enforce_sorted=False)
            out = U.unpack_sequence(packed)
            see(lambda: out)
            if dtype.is_floating_point:
                see(lambda: lib.autograd.grad(out[0].sum() + out[1].sum(), seqs[0])[0])

    _same(program)


def test_lstm_reads_its_state_by_index():
    # LSTM/LSTMCell unpacked hx (a 1-tuple: ValueError 'not enough values to unpack'); torch
    # reads hx[0] and hx[1] (IndexError 'tuple index out of range')
    def program(lib, see):
        lib.manual_seed(0)
        lstm, cell = lib.nn.LSTM(3, 4), lib.nn.LSTMCell(3, 4)
        for batched in (True, False):
            x = _values(lib, 5, 2, 3) if batched else _values(lib, 5, 3)
            h = _values(lib, 1, 2, 4) if batched else _values(lib, 1, 4)
            for hx in ((h,), [h], (h, h), [h, h]):
                see(lambda: lstm(x, hx)[0].shape)
            xc = x[0]
            hc = h[0]
            for hx in ((hc,), [hc], (hc, hc)):
                see(lambda: cell(xc, hx)[0].shape)

    _same(program)


# --- printing (test/test_torch.py) ------------------------------------------------------------

def test_tensor_str_module_as_torch():
    # torch._tensor_str did not exist in leafgrad (AttributeError): code reads and saves
    # PRINT_OPTS, uses its printoptions and formats numbers with _Formatter(tensor).format
    import copy

    def program(lib, see):
        S = lib._tensor_str
        names = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
        see(lambda: [getattr(S.PRINT_OPTS, name) for name in names])
        saved = copy.copy(S.PRINT_OPTS)
        try:
            lib.set_printoptions(precision=2, sci_mode=True, linewidth=40)
            see(lambda: [getattr(S.PRINT_OPTS, name) for name in names])
            see(lambda: [getattr(saved, name) for name in names])
            see(lambda: repr(_values(lib, 3, 4)))
            S.PRINT_OPTS.precision = 6
            see(lambda: (repr(_values(lib, 2, 3)), lib.get_printoptions()["precision"]))
            with S.printoptions(precision=1, sci_mode=False):
                see(lambda: (repr(_values(lib, 2, 3)), S.PRINT_OPTS.precision))
            see(lambda: (repr(_values(lib, 2, 3)), S.PRINT_OPTS.precision))
            see(lambda: S.get_printoptions())
        finally:
            lib.set_printoptions(profile="default")
        see(lambda: [getattr(S.PRINT_OPTS, name) for name in names])
        tensors = [_values(lib, 5), _values(lib, 3) * 1e10, _values(lib, 4) * 1e-6,
                   lib.tensor([1.0, 20.0, -300.0]), lib.tensor([0.0, math.nan, math.inf]),
                   lib.tensor([1e9, 2.0]), lib.arange(-5, 12), lib.tensor([True, False]),
                   _values(lib, 3).double(), _values(lib, 3).half(), _values(lib, 3).bfloat16()]
        for t in tensors:
            formatter = S._Formatter(t)
            see(lambda: (formatter.width(), formatter.int_mode, formatter.sci_mode,
                         formatter.floating_dtype))
            see(lambda: [formatter.format(value) for value in t.tolist()])
            see(lambda: formatter.format(t[0]))
            see(lambda: S._str(t))

    _same(program)


# --- padding modes (test/test_nn.py) -----------------------------------------------------------

def test_pad_modes_other_than_constant_refuse_a_value():
    # F.pad(x, p, mode="reflect", value=2.0) padded, ignoring the value; torch refuses any
    # value but 0 (and None) for reflect/replicate/circular, after the padding-length checks
    def program(lib, see):
        F = lib.nn.functional
        for mode in ("constant", "reflect", "replicate", "circular"):
            for shape in ((1, 2, 3), (2, 3), (1, 2, 3, 4), (1, 1, 2, 3, 4)):
                x = _values(lib, *shape)
                for pad in ((1, 1), (1, 0, 1, 1), (1,), (1,) * 8, (1, 1, 1, 1, 1, 1)):
                    for value in (None, 0, 0.0, -0.0, 2.0, math.nan, True, False, 1):
                        see(lambda: F.pad(x, pad, mode=mode, value=value))

    _same(program)


# --- optimizers (test/optim/test_optim.py) -----------------------------------------------------

def test_add_param_group_names_the_class_of_a_non_dict():
    # torch's message prints the type itself ("<class 'list'>"); leafgrad printed its name
    def program(lib, see):
        for group in ([lib.nn.Parameter(lib.ones(2))], (1,), "params", 3, None,
                      lib.nn.Parameter(lib.ones(2)), {"params": [lib.nn.Parameter(lib.ones(2))]}):
            for kind in (lib.optim.SGD, lib.optim.Adam):
                optimizer = kind([lib.nn.Parameter(lib.zeros(2))], lr=0.1)
                see(lambda: (optimizer.add_param_group(group), len(optimizer.param_groups)))

    _same(program)


# --- type conversions (test/test_torch.py) -----------------------------------------------------

def test_type_by_a_cuda_tensor_name_is_the_cpu_builds_error():
    # x.type("torch.cuda.FloatTensor") was leafgrad's "invalid type" ValueError; torch's CPU
    # build fails to initialise CUDA (RuntimeError)
    def program(lib, see):
        x = _values(lib, 2, 3)
        for name in ("torch.cuda.FloatTensor", "torch.cuda.LongTensor", "torch.cuda.HalfTensor",
                     "torch.cuda.BoolTensor", "torch.cuda.BadTensor", "torch.FloatTensor",
                     "torch.DoubleTensor", "torch.BadTensor", "float32", "cuda"):
            see(lambda: x.type(name))
            see(lambda: x.long().type(name))

    _same(program)
