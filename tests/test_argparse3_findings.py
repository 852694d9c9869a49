"""Arguments read as torch's argument parser reads them (third sweep): torch.special's
functions (all C bindings: missing, extra and mistyped arguments), dims of the wrong type,
keyword against positional naming, and operators with operands that are not numbers; each
outcome (value, or exception type and first line) against torch's."""

from __future__ import annotations

import numpy as np

import leafgrad

from ._torch import require_torch
from .test_argparse2_findings import _differences as _value_differences
from .test_scalars_findings import _outcome

torch = require_torch()


def _kind(outcome):
    """An outcome as these tests compare it: an exception by type and first line, a result by
    dtype and shape (its values are other tests' concern: some special functions differ from
    torch's in the last bit)."""
    if isinstance(outcome, tuple) and len(outcome) == 3 and isinstance(outcome[2], tuple):
        return outcome[0], outcome[2]
    if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], tuple):
        return tuple(_kind(item) for item in outcome)
    return outcome


def _differences(cases):
    """``cases``: (label, call of a library); the labels whose outcomes differ."""
    found = []
    for label, call in cases:
        expected = _kind(_outcome(lambda: call(torch)))
        got = _kind(_outcome(lambda: call(leafgrad)))
        if expected != got:
            found.append((label, expected, got))
    return found

# arguments of every kind a parameter may be given
WRONG = {"str": lambda L: "a", "None": lambda L: None, "list": lambda L: [1.0],
         "float": lambda L: 1.5, "bool": lambda L: True, "tensor0": lambda L: L.tensor(0.5),
         "ndarray": lambda L: np.array([1.0]), "dtype": lambda L: L.float64}


def _x(L):
    return L.tensor([0.5, 1.5])


def _special_names():
    return sorted(name for name in dir(torch.special) if not name.startswith("_")
                  and type(getattr(torch.special, name)).__name__ == "builtin_function_or_method")


def test_special_functions_arity_keywords_and_types():
    """torch.special's functions are C bindings named special_<name>: a missing or extra
    argument, an unknown keyword or a mistyped one is its parser's error for the call as given
    (leafgrad: Python's, naming _scalar_overloads.<locals>.function or the bare name, or a
    NumPy ValueError for a polynomial's str n)."""
    cases = []
    for name in _special_names():
        def fn(L, n=name):
            return getattr(L.special, n)

        for count in range(4):
            cases.append((f"{name} {count} tensors",
                          lambda L, f=fn, k=count: f(L)(*[_x(L)] * k)))
        cases.append((f"{name} unknown keyword", lambda L, f=fn: f(L)(_x(L), foo=1)))
        cases.append((f"{name} out=int", lambda L, f=fn: f(L)(_x(L), out=1)))
        for label, make in WRONG.items():
            cases += [
                (f"{name} first {label}", lambda L, f=fn, m=make: f(L)(m(L))),
                (f"{name} first {label} second tensor",
                 lambda L, f=fn, m=make: f(L)(m(L), _x(L))),
                (f"{name} second {label}", lambda L, f=fn, m=make: f(L)(_x(L), m(L))),
            ]
    assert _differences(cases) == []


def test_special_functions_by_keyword():
    """torch's parameter names by keyword (x and n for the polynomials, input and other for
    xlogy/zeta/gammainc, x for airy_ai): valid calls compute, mistyped ones name the argument
    without a position or list the call's keywords."""
    pairs = {"x": ("x", "n"), "input": ("input", "other")}
    cases = []
    for name in _special_names():
        def fn(L, n=name):
            return getattr(L.special, n)

        for first, second in pairs.values():
            cases.append((f"{name} {first}=", lambda L, f=fn, a=first: f(L)(**{a: _x(L)})))
            cases.append((f"{name} {first}= {second}=", lambda L, f=fn, a=first, b=second: f(L)(
                **{a: _x(L), b: _x(L)})))
            cases.append((f"{name} {second}=", lambda L, f=fn, b=second: f(L)(
                _x(L), **{b: _x(L)})))
            for label, make in WRONG.items():
                cases.append((f"{name} {first}={label}", lambda L, f=fn, a=first, m=make: f(L)(
                    **{a: m(L)})))
                cases.append((f"{name} {second}={label}", lambda L, f=fn, b=second, m=make: f(L)(
                    _x(L), **{b: m(L)})))
    assert _differences(cases) == []


# dims of every kind: refused (a str, a float, a bool, a float tensor, lists of them) and taken
# (an int, a list, None, an integer 0-d tensor, NumPy's axis= name)
DIMS = {"str": lambda L: "a", "float": lambda L: 1.5, "bool": lambda L: True,
        "None": lambda L: None, "int": lambda L: 1, "list": lambda L: [0],
        "list2": lambda L: [0, 1], "list_str": lambda L: ["a"], "tuple_float": lambda L: (1.5,),
        "tensor0": lambda L: L.tensor(0), "tensor0_float": lambda L: L.tensor(0.5),
        "tensor2": lambda L: L.tensor([0, 1]), "ndarray": lambda L: np.array([0])}


def _matrix(L):
    return L.arange(6.0).reshape(2, 3)


def test_reduction_dims_of_the_wrong_type():
    """sum, mean, all and any list their overloads for a dim they refuse, with the call as
    given ("got (Tensor, dim=str)" for torch.sum(t, dim='a'), "got (str)" for t.sum('a')), or
    name dim when keepdim leaves one overload plausible (t.sum(dim='a', keepdim=True));
    leafgrad said "argument 'dim' must be tuple of ints, not str" (no function name) for every
    form. The reductions already declared (nansum, amax, logsumexp, std...) are swept too."""
    cases = []
    for name in ("sum", "mean", "all", "any", "nansum", "nanmean", "amax", "amin", "logsumexp",
                 "std", "var", "prod", "max", "min", "argmax", "median", "count_nonzero"):
        for label, make in DIMS.items():
            forms = {
                "function": lambda L, n=name, m=make: getattr(L, n)(_matrix(L), m(L)),
                "function dim=": lambda L, n=name, m=make: getattr(L, n)(_matrix(L), dim=m(L)),
                "function keepdim": lambda L, n=name, m=make: getattr(L, n)(
                    _matrix(L), m(L), True),
                "function dim= keepdim=": lambda L, n=name, m=make: getattr(L, n)(
                    _matrix(L), dim=m(L), keepdim=True),
                "method": lambda L, n=name, m=make: getattr(_matrix(L), n)(m(L)),
                "method dim=": lambda L, n=name, m=make: getattr(_matrix(L), n)(dim=m(L)),
                "method keepdim": lambda L, n=name, m=make: getattr(_matrix(L), n)(m(L), True),
                "method dim= keepdim=": lambda L, n=name, m=make: getattr(_matrix(L), n)(
                    dim=m(L), keepdim=True),
                "method keepdim= dim=": lambda L, n=name, m=make: getattr(_matrix(L), n)(
                    keepdim=False, dim=m(L)),
            }
            if name in ("sum", "mean", "nansum"):
                forms["method dtype="] = lambda L, n=name, m=make: getattr(_matrix(L), n)(
                    m(L), dtype=L.float64)
                forms["function dim= dtype="] = lambda L, n=name, m=make: getattr(L, n)(
                    _matrix(L), dim=m(L), dtype=L.float64)
            if name in ("sum", "mean"):
                forms["method twice"] = lambda L, n=name, m=make: getattr(_matrix(L), n)(
                    0, dim=m(L))
                forms["method axis="] = lambda L, n=name, m=make: getattr(_matrix(L), n)(
                    axis=m(L))
            cases += [(f"{name} {form} {label}", call) for form, call in forms.items()
                      if (name, form, label) not in _LEFT]
    assert _differences(cases) == []


# known and left (reported): std/var(True, True) computes (torch refuses a bool dim there),
# max/min(t, tensor(0), True) reads the 0-d tensor as other (torch, as the dim of its only
# overload taking three arguments), count_nonzero's method reads (1, True) as a dims list
_LEFT = {(name, form, label) for name in ("std", "var") for form in ("function keepdim",
                                                                      "method keepdim")
         for label in ("bool",)} | {
    (name, form, label) for name in ("max", "min") for form in ("function keepdim",
                                                                 "method keepdim")
    for label in ("tensor0", "tensor0_float")} | {
    ("count_nonzero", "method keepdim", label) for label in ("int", "tensor0")} | {
    # transpose, swapaxes and flatten have no wrapper to see a keyword (Note: parsed through
    # the aliases' wrapper): a refused dim given by keyword is named with its position
    (name, form) for name in ("transpose", "swapaxes", "flatten")
    for form in ("method keyword", "function keyword")}


# the functions and methods taking one int dim: (name, arguments before the dim, the dim's
# parameter name, arguments after it)
ONE_DIM = [("softmax", (), "dim", ()), ("log_softmax", (), "dim", ()), ("unbind", (), "dim", ()),
           ("squeeze", (), "dim", ()), ("unsqueeze", (), "dim", ()), ("chunk", (2,), "dim", ()),
           ("flatten", (), "start_dim", ()), ("transpose", (), "dim0", (0,)),
           ("swapaxes", (), "axis0", (0,)), ("select", (), "dim", (0,)),
           ("cumsum", (), "dim", ()), ("cummax", (), "dim", ()), ("logcumsumexp", (), "dim", ()),
           ("argsort", (), "dim", ()), ("sort", (), "dim", ()), ("kthvalue", (1,), "dim", ()),
           ("mode", (), "dim", ())]


def test_one_dim_of_the_wrong_type():
    """A dim that is not an int (str, float, bool, None, list, float tensor) in the functions
    and methods taking one (softmax, unbind, squeeze, flatten, transpose, chunk...), positional
    and by keyword: torch's parser names it with its position only when it was given
    positionally, or lists the overloads (squeeze); leafgrad said "(position N)" for keywords
    (softmax), failed in its body ("'<=' not supported between instances of 'int' and 'str'":
    unbind, flatten, swapaxes) or computed with a bool or None (unbind(True), squeeze(None),
    stack(ts, True), swapaxes(True, 0))."""
    cases = []
    for name, before, param, after in ONE_DIM:
        for label, make in DIMS.items():
            def args(L, m=make, b=before, a=after):
                return (*b, m(L), *a)

            def keywords(L, m=make, b=before, a=after, p=param):
                return dict({p: m(L)}, **({"dim1": a[0]} if p == "dim0" else {"axis1": a[0]}
                                          if p == "axis0" else {"index": a[0]} if a else {}))

            forms = {
                "function": lambda L, n=name, f=args: getattr(L, n)(_matrix(L), *f(L)),
                "method": lambda L, n=name, f=args: getattr(_matrix(L), n)(*f(L)),
                "method keyword": lambda L, n=name, k=keywords, b=before: getattr(
                    _matrix(L), n)(*b, **k(L)),
                "function keyword": lambda L, n=name, k=keywords, b=before: getattr(L, n)(
                    _matrix(L), *b, **k(L)),
            }
            cases += [(f"{name} {form} {label}", call) for form, call in forms.items()
                      if (name, form) not in _LEFT or label in ("int", "tensor0")]
    for name in ("cat", "stack"):
        for label, make in DIMS.items():
            cases += [(f"{name} {label}", lambda L, n=name, m=make: getattr(L, n)(
                          [_matrix(L), _matrix(L)], m(L))),
                      (f"{name} dim= {label}", lambda L, n=name, m=make: getattr(L, n)(
                          [_matrix(L), _matrix(L)], dim=m(L)))]
    assert _differences(cases) == []


def _image(L):
    return L.rand(2, 3, 4, 4)


def test_functional_arguments_reach_the_c_function_positionally():
    """nn.functional's Python functions pass their arguments positionally to a C function,
    whose parser names it with that position however F was called: the dropouts' training
    (feature_dropout/alpha_dropout/feature_alpha_dropout 'train' (position 3); leafgrad took
    any truth value), instance_norm's weight/bias/running statistics (leafgrad: "'str' object
    has no attribute 'repeat'"), embedding's weight and indices, layer_norm/rms_norm's
    normalized_shape and pad's pad (leafgrad: a shape error naming the value, or computed with
    a tensor of pads)."""
    F = "nn.functional"
    calls = {
        "dropout1d training": lambda L, v: L.nn.functional.dropout1d(L.rand(3, 4), training=v),
        "dropout2d training": lambda L, v: L.nn.functional.dropout2d(_image(L), training=v),
        "dropout3d training": lambda L, v: L.nn.functional.dropout3d(
            L.rand(2, 3, 2, 2, 2), 0.5, v),
        "dropout2d training inplace": lambda L, v: L.nn.functional.dropout2d(
            _image(L), training=v, inplace=True),
        "alpha_dropout training": lambda L, v: L.nn.functional.alpha_dropout(
            _image(L), training=v),
        "feature_alpha_dropout training": lambda L, v: L.nn.functional.feature_alpha_dropout(
            _image(L), 0.5, v),
        "feature_alpha_dropout training inplace": lambda L, v:
            L.nn.functional.feature_alpha_dropout(_image(L), training=v, inplace=True),
        "layer_norm normalized_shape": lambda L, v: L.nn.functional.layer_norm(
            _image(L), normalized_shape=v),
        "layer_norm normalized_shape pos": lambda L, v: L.nn.functional.layer_norm(_image(L), v),
        "rms_norm normalized_shape": lambda L, v: L.nn.functional.rms_norm(
            _image(L), normalized_shape=v),
        "pad pad": lambda L, v: L.nn.functional.pad(_image(L), pad=v),
        "pad pad pos": lambda L, v: L.nn.functional.pad(_image(L), v),
        "embedding weight": lambda L, v: L.nn.functional.embedding(L.tensor([0, 1]), weight=v),
        "embedding weight padding_idx": lambda L, v: L.nn.functional.embedding(
            L.tensor([0, 1]), v, padding_idx=0),
        "embedding indices": lambda L, v: L.nn.functional.embedding(v, L.rand(3, 2)),
    }
    for name in ("running_mean", "running_var", "weight", "bias"):
        calls[f"instance_norm {name}"] = lambda L, v, n=name: L.nn.functional.instance_norm(
            _image(L), **{n: v})
    values = dict(WRONG, int=lambda L: 4, tuple=lambda L: (4, 4), tensor=lambda L: L.ones(2),
                  long_tensor=lambda L: L.tensor([4]), gen=lambda L: L.Generator(),
                  float_list=lambda L: [4.0])
    cases = [(f"{F}.{label} {kind}", lambda L, c=call, m=make: c(L, m(L)))
             for label, call in calls.items() for kind, make in values.items()
             if not (label.startswith("instance_norm") and "tensor" in kind)]  # (tensors:
    # their sizes' errors, not the parser's)
    cases += [(f"{F}.embedding weight padding_idx=1 {kind}", lambda L, m=make:
               L.nn.functional.embedding(L.tensor([0, 1]), m(L), padding_idx=1))
              for kind, make in values.items() if kind not in ("dtype", "gen")]
    # (Python's own AttributeError there names a class by its tp_name: torch's C types are
    # 'torch.dtype' and 'torch._C.Generator', leafgrad's Python classes 'dtype' and 'Generator';
    # left, as every Python-level error naming them)
    assert _differences(cases) == []


def test_pad_sequence_of_zero_dim_tensors_and_packing_lengths():
    """pad_sequence whose first sequence is 0-d is torch's error from slicing its sizes
    ('ArrayRef: invalid slice, N = 1; size = 0'; leafgrad: an IndexError from size(0)), for
    every dtype, side and layout; a 0-d sequence after a 1-d one is size(0)'s IndexError in
    both. pack_padded_sequence/pad_packed_sequence take lengths as a list, a tuple, an int64
    or int32 tensor or an array (a float tensor is refused) on any dtype."""
    rnn = "nn.utils.rnn"
    cases = []
    for dtype in ("float32", "float64", "int64", "bool"):
        def typed(L, value, d=dtype):
            return L.tensor(value).to(getattr(L, d))

        for side in ("right", "left"):
            for batch_first in (False, True):
                cases += [
                    (f"{rnn}.pad_sequence 0-d {dtype} {side} {batch_first}",
                     lambda L, t=typed, s=side, b=batch_first: L.nn.utils.rnn.pad_sequence(
                         [t(L, 1), t(L, 2)], batch_first=b, padding_side=s)),
                    (f"{rnn}.pad_sequence 1-d then 0-d {dtype} {side} {batch_first}",
                     lambda L, t=typed, s=side, b=batch_first: L.nn.utils.rnn.pad_sequence(
                         [t(L, [1, 2]), t(L, 2)], batch_first=b, padding_side=s)),
                ]
    lengths = {"list": lambda L: [3, 2], "tuple": lambda L: (3, 2),
               "int64": lambda L: L.tensor([3, 2]), "int32": lambda L: L.tensor(
                   [3, 2], dtype=L.int32), "float": lambda L: L.tensor([3.0, 2.0]),
               "ndarray": lambda L: np.array([3, 2]), "unsorted": lambda L: [2, 3]}
    for dtype in ("float32", "float64", "int64"):
        for label, make in lengths.items():
            for enforce in (True, False):
                def packed(L, d=dtype, m=make, e=enforce):
                    x = L.arange(12).reshape(3, 2, 2).to(getattr(L, d))
                    pack = L.nn.utils.rnn.pack_padded_sequence(x, m(L), enforce_sorted=e)
                    return (pack.data, pack.batch_sizes) + L.nn.utils.rnn.pad_packed_sequence(
                        pack)

                cases.append((f"{rnn}.pack_padded_sequence {dtype} {label} {enforce}", packed))
    assert _value_differences(cases) == []  # (values too: exact here)


def test_dims_of_indexing_and_splitting_ops():
    """topk, diff, index_select, gather, split and tensor_split with a dim that is not an int,
    positional and by keyword, function and method: torch's parser error for the call as given
    (split's lists its overloads with every argument by position, as torch's Python
    Tensor.split passes them); leafgrad said "(position N)" for keywords, failed in its body
    ("tuple indices must be integers or slices, not str", "'<=' not supported...") or computed
    with a bool (topk(x, 1, True), split(1, True))."""
    def index(L):
        return L.tensor([[0, 1, 0]])

    calls = {
        "topk": (lambda L, v: L.topk(_matrix(L), 1, v), lambda L, v: L.topk(_matrix(L), 1, dim=v),
                 lambda L, v: _matrix(L).topk(1, v), lambda L, v: _matrix(L).topk(1, dim=v)),
        "diff": (lambda L, v: L.diff(_matrix(L), 1, v), lambda L, v: L.diff(_matrix(L), dim=v),
                 lambda L, v: _matrix(L).diff(1, v), lambda L, v: _matrix(L).diff(dim=v)),
        "index_select": (lambda L, v: L.index_select(_matrix(L), v, L.tensor([0])),
                         lambda L, v: L.index_select(_matrix(L), dim=v, index=L.tensor([0])),
                         lambda L, v: _matrix(L).index_select(v, L.tensor([0])),
                         lambda L, v: _matrix(L).index_select(dim=v, index=L.tensor([0]))),
        "gather": (lambda L, v: L.gather(_matrix(L), v, index(L)),
                   lambda L, v: L.gather(_matrix(L), dim=v, index=index(L)),
                   lambda L, v: _matrix(L).gather(v, index(L)),
                   lambda L, v: _matrix(L).gather(dim=v, index=index(L))),
        "split": (lambda L, v: L.split(_matrix(L), 1, v), lambda L, v: L.split(_matrix(L), 1, dim=v),
                  lambda L, v: _matrix(L).split(1, v), lambda L, v: _matrix(L).split(1, dim=v)),
        "tensor_split": (lambda L, v: L.tensor_split(_matrix(L), 2, v),
                         lambda L, v: L.tensor_split(_matrix(L), 2, dim=v),
                         lambda L, v: _matrix(L).tensor_split(2, v),
                         lambda L, v: _matrix(L).tensor_split(2, dim=v)),
    }
    forms = ("function", "function dim=", "method", "method dim=")
    cases = [(f"{name} {form} {label}", lambda L, c=call, m=make: c(L, m(L)))
             for name, calls_of in calls.items() for form, call in zip(forms, calls_of)
             for label, make in DIMS.items()]
    assert _differences(cases) == []


class _Plain:
    """An object that is not a number and knows nothing of tensors."""


class _TorchFunction:
    """An object with ``__torch_function__`` that declines every call."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_operators_with_operands_that_are_not_numbers():
    """Every binary operator, reflected and in place, between a tensor and a str, a list of
    strs, None, a dict, a plain object, one whose __torch_function__ declines, and NumPy object,
    str and bytes arrays: torch's TypeError (Python's "unsupported operand", NumPy's), or the
    value Python's fallbacks give (== is False). leafgrad wrapped an object array's result as a
    tensor (KeyError: dtype('O') for t == array, t * array of int64) and computed array / t."""
    import operator

    binary = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
              "@": operator.matmul, "&": operator.and_, "|": operator.or_, "^": operator.xor,
              "<<": operator.lshift, ">>": operator.rshift, "<": operator.lt, "<=": operator.le,
              ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
    inplace = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
               "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod,
               "**=": operator.ipow, "@=": operator.imatmul, "&=": operator.iand,
               "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
               ">>=": operator.irshift}
    others = {"str": lambda: "a", "list_of_str": lambda: ["a", "b"], "None": lambda: None,
              "dict": lambda: {}, "plain": _Plain, "torch_function": _TorchFunction,
              "object_array": lambda: np.array(["a", "b"], dtype=object),
              "object_array_ints": lambda: np.array([1, 2], dtype=object),
              "str_array": lambda: np.array(["a", "b"]), "bytes_array": lambda: np.array([b"a"])}

    def tensor(L, dtype):
        return L.tensor([1, 2]).to(getattr(L, dtype))

    cases = []
    for dtype in ("float32", "int64", "bool"):
        for label, make in others.items():
            for symbol, op in binary.items():
                cases += [(f"{dtype} t {symbol} {label}", lambda L, o=op, m=make, d=dtype: o(
                              tensor(L, d), m())),
                          (f"{dtype} {label} {symbol} t", lambda L, o=op, m=make, d=dtype: o(
                              m(), tensor(L, d)))]
            for symbol, op in inplace.items():
                cases.append((f"{dtype} t {symbol} {label}", lambda L, o=op, m=make, d=dtype: o(
                    tensor(L, d), m())))
    assert _value_differences(cases) == []


def test_unflatten_dims():
    """Tensor.unflatten with a dim that is not an int: torch's Python unflatten passes dim on by
    position, so its error says '(position 1)' either way (leafgrad: "'<=' not supported
    between instances of 'int' and 'str'"). (size/stride's dims are left: their wrapper would
    restate an unknown keyword as the overload listing, where torch names the keyword.)"""
    cases = []
    for label, make in DIMS.items():
        cases += [
            (f"unflatten {label}", lambda L, m=make: _matrix(L).unflatten(m(L), (1, 3))),
            (f"unflatten dim= {label}", lambda L, m=make: _matrix(L).unflatten(
                dim=m(L), sizes=(1, 3))),
        ]
    assert _differences(cases) == []
