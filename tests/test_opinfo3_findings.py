"""Classes of differences found by replaying torch's OpInfo error_inputs and ModuleInfo error
inputs on leafgrad (tests/opinfo/sweep_errors.py), each swept beyond op_db's samples."""

from __future__ import annotations

import warnings

import leafgrad
from tests._torch import require_torch


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - type and first line are what is compared
        text = str(error)
        return type(error).__name__, text.splitlines()[0] if text else ""
    return None


def test_method_argument_errors_name_the_method_as_torch():
    # A bad keyword to a Tensor method: torch's C methods say "kthvalue() got an unexpected
    # keyword argument 'out'" and its Python ones "Tensor.split() ..."; leafgrad's mixin methods
    # said "ReductionMethods.kthvalue()". Every method both have, with a bogus keyword.
    torch = require_torch()
    names = sorted(
        name for name in dir(torch.Tensor)
        if not name.startswith("_") and callable(getattr(torch.Tensor, name, None))
        and hasattr(leafgrad.Tensor, name)
    )
    checked, wrong = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            for kwargs in ({"bogus": 1}, {"bogus": 1, "dim": 0}):
                theirs = _error(lambda: getattr(torch.ones(2, 3), name)(**kwargs))
                ours = _error(lambda: getattr(leafgrad.ones(2, 3), name)(**kwargs))
                if ours is not None:
                    assert "Methods." not in ours[1], (name, ours)
                if theirs is not None and "got an unexpected keyword argument" in theirs[1]:
                    checked += 1
                    if ours != theirs:
                        wrong.append((name, theirs, ours))
    assert checked > 100
    assert not wrong, wrong


def test_losses_check_reduction_first():
    # torch's functional losses call _Reduction.get_enum (ValueError "abc is not a valid value
    # for reduction") before looking at their inputs; margin_ranking, hinge_embedding,
    # cosine_embedding and triplet_margin computed instead; triplet_margin also refuses a
    # margin <= 0. poisson_nll_loss concatenates (a non-str reduction is a TypeError).
    torch = require_torch()

    def calls(lib):
        F = lib.nn.functional  # noqa: N806
        x, y, t = lib.ones(3, 4), lib.ones(3, 4), lib.ones(3)
        index = lib.zeros(3, dtype=lib.int64)
        bad_shape = lib.ones(2, 5)
        return {
            "l1": lambda r, a=x: F.l1_loss(a, y, reduction=r),
            "mse": lambda r, a=x: F.mse_loss(a, y, reduction=r),
            "smooth_l1": lambda r, a=x: F.smooth_l1_loss(a, y, reduction=r),
            "huber": lambda r, a=x: F.huber_loss(a, y, reduction=r),
            "margin_ranking": lambda r, a=t: F.margin_ranking_loss(a, t, t, reduction=r),
            "hinge_embedding": lambda r, a=x: F.hinge_embedding_loss(a, y, reduction=r),
            "cosine_embedding": lambda r, a=x: F.cosine_embedding_loss(a, y, t, reduction=r),
            "triplet": lambda r, a=x: F.triplet_margin_loss(a, y, y, reduction=r),
            "triplet_margin0": lambda r, a=x: F.triplet_margin_loss(a, y, y, margin=0.0,
                                                                     reduction=r),
            "triplet_margin-1": lambda r, a=x: F.triplet_margin_loss(a, y, y, margin=-1,
                                                                      reduction=r),
            "triplet_distance": lambda r, a=x: F.triplet_margin_with_distance_loss(
                a, y, y, reduction=r),
            "poisson_nll": lambda r, a=x: F.poisson_nll_loss(a, y, reduction=r),
            "gaussian_nll": lambda r, a=x: F.gaussian_nll_loss(a, y, y, reduction=r),
            "kl_div": lambda r, a=x: F.kl_div(a, y, reduction=r),
            "bce_logits": lambda r, a=x: F.binary_cross_entropy_with_logits(a, y, reduction=r),
            "cross_entropy": lambda r, a=x: F.cross_entropy(a, index, reduction=r),
            "nll": lambda r, a=x: F.nll_loss(a, index, reduction=r),
            "multilabel_soft_margin": lambda r, a=x: F.multilabel_soft_margin_loss(
                a, y, reduction=r),
            "soft_margin": lambda r, a=x: F.soft_margin_loss(a, y, reduction=r),
            "multi_margin": lambda r, a=x: F.multi_margin_loss(a, index, reduction=r),
        }, bad_shape

    ours, bad_l = calls(leafgrad)
    theirs, bad_t = calls(torch)
    checked, wrong = 0, []
    for name in theirs:
        for reduction in ("mean", "sum", "none", "abc", "", 3, None):
            for bad in (False, True):  # valid inputs, and a first input of the wrong shape
                args_t = {"a": bad_t} if bad else {}
                args_l = {"a": bad_l} if bad else {}
                want = _error(lambda: theirs[name](reduction, **args_t))
                got = _error(lambda: ours[name](reduction, **args_l))
                if got != want:
                    wrong.append((name, reduction, bad, want, got))
                checked += want is not None
    assert checked > 50
    assert not wrong, "\n".join(map(str, wrong))


def test_multi_margin_loss_checks_in_torchs_order():
    # torch: reduction, p and a 1-d weight in Python, then ATen's shape checks (non-empty input,
    # a target of one element per sample, a weight of one per class) before any dtype check;
    # a 0-d input is one sample of one class. leafgrad checked the target's dtype first, let
    # NumPy report wrong sizes and failed on a 0-d input.
    torch = require_torch()
    checked = 0
    for input_shape in [(5, 4), (5, 0), (0, 4), (4,), (0,), (), (2, 3, 4), (1, 3)]:
        for target_shape in [(5,), (3,), (5, 4), (4,), (1,), (), (0,), (1, 1)]:
            for target_dtype in ("int64", "float32", "int32"):
                if 0 in input_shape and target_dtype != "int64" and input_shape[-1:] != (0,):
                    continue  # an empty batch: torch skips its checks and reduces uninitialised memory
                for weight in (None, (4,), (5,), (2, 2), (3,)):
                    for reduction in ("none", "mean"):
                        results = []
                        for lib in (torch, leafgrad):
                            x = lib.ones(input_shape, requires_grad=True)
                            target = lib.zeros(target_shape, dtype=getattr(lib, target_dtype))
                            w = None if weight is None else lib.ones(weight)
                            got = _error(lambda: lib.nn.functional.multi_margin_loss(
                                x * 2, target, weight=w, reduction=reduction).sum().backward())
                            grad = None if x.grad is None else x.grad.tolist()
                            results.append((got, grad))
                        assert results[0] == results[1], (input_shape, target_shape,
                                                          target_dtype, weight, reduction, results)
                        checked += results[0][0] is not None
    assert checked > 500


def test_batch_norm_argument_checks():
    # F.batch_norm refuses eps <= 0 in training and eps < 0 in eval (ValueError, Python's
    # check: torch.batch_norm itself has none); ATen then checks each argument's size, the
    # input's dtype and the parameters' dtypes ("mixed dtype (CPU)": float32 parameters with a
    # float16/bfloat16 input only; otherwise "expected scalar type Float but found Double" in
    # the kernel's reading order). leafgrad computed with promoted dtypes instead.
    import itertools

    torch = require_torch()
    floats = ["float32", "float64", "float16", "bfloat16"]
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for input_dtype in floats + ["int64"]:
            for weight, bias in itertools.product([None] + floats[:3], repeat=2):
                for stats in (None, "float32", "float64", "float16", "size4"):
                    for training in (True, False):
                        for eps in (1e-5, 0.0, -1.0):
                            results = []
                            for lib in (torch, leafgrad):
                                def make(dtype, value=1.0):
                                    if dtype is None:
                                        return None
                                    if dtype == "size4":
                                        return lib.full((4,), value)
                                    return lib.full((3,), value, dtype=getattr(lib, dtype))

                                x = lib.arange(6).reshape(2, 3).to(getattr(lib, input_dtype))
                                results.append(_error(lambda: lib.nn.functional.batch_norm(
                                    x, make(stats, 0.0), make(stats), make(weight), make(bias),
                                    training=training, eps=eps)))
                                results.append(_error(lambda: lib.batch_norm(
                                    x, make(weight), make(bias), make(stats, 0.0), make(stats),
                                    training, 0.1, eps, False)))
                            assert results[:2] == results[2:], (
                                input_dtype, weight, bias, stats, training, eps, results)
                            checked += results[0] is not None
        assert checked > 1000
        for module in ("BatchNorm1d", "BatchNorm2d"):  # the modules: F.batch_norm's checks
            for eps in (0.0, -1.0):
                for training in (True, False):
                    shape = (2, 3) if module == "BatchNorm1d" else (2, 3, 2, 2)
                    got = [_error(lambda: getattr(lib.nn, module)(3, eps=eps).train(training)(
                        lib.ones(shape, dtype=lib.float64))) for lib in (torch, leafgrad)]
                    assert got[0] == got[1], (module, eps, training, got)


def test_recurrent_layer_argument_checks():
    # RNNBase checks bias and batch_first are bools, input_size an int > 0 (TypeError /
    # ValueError) before building parameters, and forward refuses an input whose dtype is not
    # the weights' (ValueError naming both); LSTMCell refuses an hx of other than 1 or 2 dims.
    torch = require_torch()
    bad = [{"bias": 1}, {"bias": "a"}, {"bias": 0}, {"batch_first": 1}, {"batch_first": "a"},
           {"input_size": 1.5}, {"input_size": "3"}, {"input_size": 0}, {"input_size": -1},
           {"hidden_size": 2.0}, {"hidden_size": 0}, {"num_layers": 0}, {"dropout": 2},
           {"dropout": True}, {"proj_size": -1}, {"proj_size": 5}, {}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("RNN", "GRU", "LSTM"):
            for change in bad:
                kwargs = {"input_size": 3, "hidden_size": 4, **change}
                if name != "LSTM" and "proj_size" in change:
                    continue
                got = [_error(lambda: getattr(lib.nn, name)(**kwargs)) for lib in (torch, leafgrad)]
                assert got[0] == got[1], (name, change, got)
            for module_dtype in ("float32", "float64"):
                for input_dtype in ("float32", "float64", "float16"):
                    got = []
                    for lib in (torch, leafgrad):
                        layer = getattr(lib.nn, name)(3, 4, dtype=getattr(lib, module_dtype))
                        x = lib.ones(2, 5, 3, dtype=getattr(lib, input_dtype))
                        got.append(_error(lambda: layer(x)))
                    assert got[0] == got[1], (name, module_dtype, input_dtype, got)
        for h_shape in ((4,), (2, 4), (1, 2, 4), (1, 1, 2, 4), ()):
            for c_shape in ((2, 4), (1, 1, 2, 4)):
                got = []
                for lib in (torch, leafgrad):
                    cell = lib.nn.LSTMCell(3, 4)
                    got.append(_error(lambda: cell(lib.ones(2, 3), (lib.zeros(h_shape),
                                                                       lib.zeros(c_shape)))))
                assert got[0] == got[1], (h_shape, c_shape, got)
        for delta in (1.0, 1, 1 + 2j, "1", None, True):
            got = [_error(lambda: lib.nn.HuberLoss(delta=delta)) for lib in (torch, leafgrad)]
            assert got[0] == got[1], (delta, got)


def test_argument_checks_of_stacks_narrow_copy_lstsq_prelu_rrelu():
    # Messages torch's error_inputs check, over each function's neighbouring arguments:
    # the stacking functions refuse an empty list by name; narrow_copy's dim below -ndim and
    # start beyond [-size, size] are IndexErrors; linalg.lstsq's dimension messages (B's dims,
    # the vector case of linalg_solve_is_vector_rhs); prelu's zero-dim input and 2-d weight
    # checks in ATen's order; rrelu's lower > upper.
    torch = require_torch()

    def same(call):
        got = [_error(lambda: call(lib)) for lib in (torch, leafgrad)]
        assert got[0] == got[1], got
        return got[0] is not None

    checked = 0
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack", "stack", "cat"):
        for empty in ([], ()):
            checked += same(lambda lib: getattr(lib, name)(empty))
            if name in ("hstack", "vstack", "stack", "cat"):  # (dstack's out=: NO_OUT)
                checked += same(lambda lib: getattr(lib, name)(empty, out=lib.empty(0)))
    for args in [(3, 0, 1), (-4, 0, 1), (2, 11, 0), (2, -11, 0), (2, 10, 0), (2, -10, 1),
                 (2, 5, 6), (2, 0, -1), (2, 9, 2), (5, 0, 0), (-1, -10, 3), (0, -3, 3)]:
        checked += same(lambda lib: lib.narrow_copy(lib.ones(3, 4, 10), *args))
        checked += same(lambda lib: lib.ones(3, 4, 10).narrow_copy(*args))
    for a, b in [((2, 3, 2), (2, 4)), ((2, 3, 2), (4,)), ((2, 3, 2), (1, 3)), ((2, 3, 2), (5, 3)),
                 ((3, 2), (3,)), ((2, 3, 2), (3,)), ((2, 3, 2), (2, 3)), ((2, 3, 2), (1, 3, 4)),
                 ((3, 2), (3, 4)), ((3,), (3, 2)), ((3, 2), (2,)), ((3, 2), (4, 2)), ((2,), (2,))]:
        checked += same(lambda lib: lib.linalg.lstsq(lib.ones(a), lib.ones(b)).solution.shape)
    for x in [(), (3,), (2, 3), (2, 3, 4), (0, 3)]:
        for w in [(), (1,), (2,), (3,), (3, 1), (1, 1), (2, 3)]:
            for dtype in ("float32", "int64"):
                checked += same(lambda lib: lib.nn.functional.prelu(
                    lib.ones(x, dtype=getattr(lib, dtype)), lib.ones(w, dtype=getattr(lib, dtype))))
    for lower, upper in [(0.5, 0.1), (0.3, 0.3), (0.1, 0.5)]:
        for training in (True, False):
            checked += same(lambda lib: lib.nn.functional.rrelu(lib.ones(3), lower, upper,
                                                                 training=training))
            checked += same(lambda lib: lib.nn.functional.rrelu_(lib.ones(3), lower, upper,
                                                                  training=training))
            checked += same(lambda lib: lib.rrelu(lib.ones(3), lower, upper, training=training))
    assert checked > 60


def test_cross_dim_range_and_rdiv():
    # linalg.cross / cross read input.size(dim): a dim out of range is torch's IndexError (a
    # 0-d input: "Dimension specified as 0 but tensor has no dimensions"), not Python's tuple
    # index error; Tensor.__rdiv__ (torch's Python 2 name for __rtruediv__) exists.
    torch = require_torch()
    for a, b, dim in [((3,), (3,), 1), ((3,), (3,), -2), ((), (), 0), ((), (), -1),
                      ((2, 3), (2, 3), 2), ((2, 3), (2, 3), -3), ((2, 3), (2, 3), 0),
                      ((3, 3), (3,), 0), ((4, 3), (1, 3), -1), ((2, 3), (2, 3), 1)]:
        for name in ("linalg.cross", "cross"):
            got = []
            for lib in (torch, leafgrad):
                function = lib.linalg.cross if name == "linalg.cross" else lib.cross
                got.append(_error(lambda: function(lib.ones(a), lib.ones(b), dim=dim)))
            assert got[0] == got[1], (name, a, b, dim, got)
    for lib in (torch, leafgrad):
        x = lib.tensor([1.0, 2.0, 4.0], requires_grad=True)
        y = x.__rdiv__(3)
        y.sum().backward()
        assert (y.grad_fn.name(), y.tolist(), x.grad.tolist()) == (
            "MulBackward0", [3.0, 1.5, 0.75], [-3.0, -0.75, -0.1875])


def test_arange_int64_works_in_int64():
    # torch's int64 arange truncates the bounds and step to int64 first: a step that truncates
    # to 0 is a ValueError ('step must be nonzero'), and the length is (end - start + step -
    # sign) / step in integer division (arange(0, 4, 1.5, dtype=int64) has 4 elements, other
    # integer dtypes 3, from the double length). Every integer dtype and both call forms.
    torch = require_torch()
    checked = 0
    for dtype in ("int64", "int32", "uint8", "float32"):
        for args in [(0, 64, 0.5), (0, 4, 1.5), (0.5, 4, 1), (0, 4, -0.5), (0.5, 0.9, 1),
                     (-3.7, 5.2, 1.9), (5.5, -3.2, -1.5), (0, 10, 3), (0, -10, -3),
                     (-0.5, 3, 0.7), (2, 2, 1), (0.2, 3, 2.9), (0, 5, 0)]:
            for form in ("dtype", "out"):
                got = []
                for lib in (torch, leafgrad):
                    kwargs = ({"dtype": getattr(lib, dtype)} if form == "dtype"
                              else {"out": lib.empty(0, dtype=getattr(lib, dtype))})
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        error = _error(lambda: got.append(lib.arange(*args, **kwargs).tolist()))
                    got.append(error)
                assert got[: len(got) // 2] == got[len(got) // 2:], (dtype, args, form, got)
                checked += 1
    assert checked == 104


def test_linspace_logspace_take_0d_tensor_bounds_only():
    # torch's tensor overloads refuse a start or end tensor of more than 0 dims, naming the
    # tensors given ("but got start with 1 dimension(s) and end with 0 dimension(s).").
    torch = require_torch()
    for name in ("linspace", "logspace"):
        for start, end in [([1, 1], [3, 3]), ([1], 3), (1, [[1.0]]), ((1,), (3,)), ([1], (3,)),
                           ([1.0], 2.0), (1, 2), ((), 2), ([[]], 1)]:
            got = []
            for lib in (torch, leafgrad):
                def bound(value):
                    if isinstance(value, tuple):  # a 0-d tensor
                        return lib.tensor(value[0]) if value else lib.tensor(1.0)
                    return lib.tensor(value) if isinstance(value, list) else value

                got.append(_error(lambda: getattr(lib, name)(bound(start), bound(end), 4)))
            assert got[0] == got[1], (name, start, end, got)


def test_masked_fill_checks_a_complex_value_tensor_as_a_scalar():
    # masked_fill with a 0-d value tensor fills with value.item(): a complex value into a real
    # tensor is refused as a Python complex would be ("value cannot be converted to type
    # int64_t without overflow"), even where the mask is all False; a zero imaginary part or a
    # bool tensor passes. Function, method and in-place forms, every real dtype.
    torch = require_torch()
    for value in ("1j", "1+1j", "py1j", "2.5", "0j", "c64"):
        for dtype in ("int64", "float32", "bool", "uint8", "complex64", "float16"):
            for mask in (False, True):
                for form in ("function", "method", "inplace"):
                    got = []
                    for lib in (torch, leafgrad):
                        v = {"1j": lib.tensor(1j), "1+1j": lib.tensor(1 + 1j), "py1j": 1j,
                             "2.5": lib.tensor(2.5), "0j": lib.tensor(0j),
                             "c64": lib.tensor(1j, dtype=lib.complex64)}[value]
                        t, m = lib.ones(3, dtype=getattr(lib, dtype)), lib.tensor(mask)
                        call = {"function": lambda: lib.masked_fill(t, m, v),
                                "method": lambda: t.masked_fill(m, v),
                                "inplace": lambda: t.masked_fill_(m, v)}[form]
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            got.append((_error(call), t.tolist(), t._version))
                    assert got[0] == got[1], (value, dtype, mask, form, got)
