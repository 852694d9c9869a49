"""``torch.special``: the special functions (ops/special_fns.py) and the aliases torch keeps in
this namespace for ops that live elsewhere.

>>> import leafgrad as torch
>>> torch.special.gammaln(torch.tensor([4.0]))
tensor([1.7918])
"""

from __future__ import annotations

from . import _argparse
from . import _functions_math as _math
from ._functions import sigmoid as _sigmoid
from ._functions_math import _cast, _require_tensor, _unary
from . import _functions_math_extra as _math_extra
from ._functions_math_extra import digamma, i0, lgamma, logit, sinc
from ._functions_reductions import logsumexp
from ._out import takes_out
from .nn import functional as _F
from .ops import special_fns as _fns
from ._special_bessel import (  # noqa: F401 - torch's names
    airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_k0, modified_bessel_k1,
    scaled_modified_bessel_k0, scaled_modified_bessel_k1)
from ._special_polynomials import (  # noqa: F401 - torch's names
    chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
    chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l,
    legendre_polynomial_p, modified_bessel_i0, modified_bessel_i1,
    shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w, spherical_bessel_j0)

__all__ = [
    "expit", "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "logit", "logsumexp",
    "softmax", "log_softmax", "round", "sinc", "xlogy", "xlog1py", "psi", "digamma", "gammaln",
    "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "entr", "polygamma",
    "multigammaln", "zeta", "gammainc", "gammaincc", "erfcx",
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
    "spherical_bessel_j0", "modified_bessel_i0", "modified_bessel_i1",
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
    "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
]

erf = _math.erf
erfc = _math.erfc
erfinv = _math.erfinv
exp2 = _math.exp2
expm1 = _math.expm1
log1p = _math.log1p
xlogy = _math.xlogy
psi = digamma
gammaln = lgamma


@takes_out(_math_extra._MVLGAMMA_OUT)
def multigammaln(input, p):  # noqa: A002 - torch's name
    """``torch.special.multigammaln(input, p)``: torch.mvlgamma under its own name."""
    return _math_extra._mvlgamma(input, p, "special_multigammaln")


@takes_out(_cast("special_polygamma"))
def polygamma(n, input):  # noqa: A002 - torch's name
    """``torch.special.polygamma(n, input)``: torch.polygamma under its own name."""
    return _math_extra._polygamma(n, input, "special_polygamma")



@takes_out(_cast("sigmoid"))
def expit(input):  # noqa: A002 - torch's name
    """The logistic sigmoid, 1 / (1 + exp(-x))."""
    _require_tensor(input, "special_expit", "input", 1)
    return _sigmoid(input)


@takes_out(_cast("special_round"))
def round(input, *, decimals=0):  # noqa: A001,A002 - torch's names
    """Round half to even (``decimals=0``: torch's RoundBackward1 node)."""
    _require_tensor(input, "special_round", "input", 1)
    return input.round(decimals=decimals)


def softmax(input, dim, *, dtype=None):  # noqa: A002 - torch's name
    if dim.__class__ is not int:
        dim = _argparse.int_arg("special_softmax", "dim", dim, 2)
    return _F.softmax(input, dim, dtype=_argparse.dtype_arg("special_softmax", dtype))


def log_softmax(input, dim, *, dtype=None):  # noqa: A002 - torch's name
    if dim.__class__ is not int:
        dim = _argparse.int_arg("special_log_softmax", "dim", dim, 2)
    return _F.log_softmax(input, dim, dtype=_argparse.dtype_arg("special_log_softmax", dtype))


def _special_unary(name: str, op_name: str):
    @takes_out(_cast(f"special_{name}"))
    def function(input):  # noqa: A002 - torch's name
        _require_tensor(input, f"special_{name}", "input", 1)
        return getattr(_fns, op_name).apply(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.special.{name}(input)``: elementwise (ops/special_fns.py)."
    return function


i0e = _special_unary("i0e", "SpecialI0e")
i1 = _special_unary("i1", "SpecialI1")
i1e = _special_unary("i1e", "SpecialI1e")
ndtri = _special_unary("ndtri", "SpecialNdtri")
log_ndtr = _special_unary("log_ndtr", "SpecialLogNdtr")
entr = _special_unary("entr", "SpecialEntr")
erfcx = _special_unary("erfcx", "SpecialErfcx")


@takes_out(_cast("special_ndtr"))
def ndtr(input):  # noqa: A002 - torch's name
    """The standard normal CDF (torch's composite (1 + erf(x / sqrt 2)) / 2)."""
    _require_tensor(input, "special_ndtr", "input", 1)
    return _fns.ndtr(input)


def _scalar_overloads(name: str, tensor_op, scalar_self, scalar_other, tensors_only=False):
    """A binary special function with torch's overloads: (Tensor, Tensor), (number, Tensor)
    and (Tensor, number), each its own node."""
    from .tensor import Tensor

    @takes_out(_cast(f"special_{name}"))
    def function(input, other):  # noqa: A002 - torch's name
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            return tensor_op.apply(input, other)
        if tensors_only or not (isinstance(input, Tensor) or isinstance(other, Tensor)):
            bad, position, value = (("input", 1, input) if not isinstance(input, Tensor)
                                    else ("other", 2, other))
            raise TypeError(f"special_{name}(): argument '{bad}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")
        if isinstance(other, Tensor):  # (the number read first: a complex one installs the
            number = _argparse.operand(f"special_{name}", input, (input, other))  # check)
            return scalar_self.apply(other, self=number)
        number = _argparse.operand(f"special_{name}", other, (input, other))
        return scalar_other.apply(input, other=number)

    function.__name__ = function.__qualname__ = name
    return function


xlog1py = _scalar_overloads("xlog1py", _fns.SpecialXlog1py, _fns.SpecialXlog1pyScalarSelf,
                            _fns.SpecialXlog1pyScalarOther)
zeta = _scalar_overloads("zeta", _fns.SpecialZeta, _fns.SpecialZetaScalarSelf,
                         _fns.SpecialZetaScalarOther)
gammainc = _scalar_overloads("gammainc", _fns.Igamma, None, None, tensors_only=True)
gammaincc = _scalar_overloads("gammaincc", _fns.Igammac, None, None, tensors_only=True)


# torch.special's aliases are bindings of their own (special_erf, special_logit...): its parser
# names them in its errors, checks the types given before reporting a missing argument, and
# leaves the position out for an argument given by keyword. Each alias here declares that
# signature and calls the function it aliases; on a failure the parser's error is computed
# for the call as given (_argparse.parsed), so a valid call pays one wrapper frame.
_OUT = "*, Tensor out=None"
_ALIASED = {
    "erf": "Tensor input, " + _OUT, "erfc": "Tensor input, " + _OUT,
    "erfinv": "Tensor input, " + _OUT, "exp2": "Tensor input, " + _OUT,
    "expm1": "Tensor input, " + _OUT, "log1p": "Tensor input, " + _OUT,
    "psi": "Tensor input, " + _OUT, "digamma": "Tensor input, " + _OUT,
    "gammaln": "Tensor input, " + _OUT, "i0": "Tensor input, " + _OUT,
    "sinc": "Tensor input, " + _OUT, "logit": "Tensor input, float? eps=None, " + _OUT,
    "logsumexp": "Tensor input, int[1] dim, bool keepdim=False, " + _OUT,
    "softmax": "Tensor input, int dim, torch.dtype? dtype=None",
    "log_softmax": "Tensor input, int dim, *, torch.dtype? dtype=None",
    "multigammaln": "Tensor input, int p, " + _OUT,
    "polygamma": "int n, Tensor input, " + _OUT,
    "round": "Tensor input, *, int decimals=0, Tensor out=None",
}
# torch.special's own functions are C bindings too (special_xlogy, special_zeta...): declared
# here with their overloads, so a missing, extra or mistyped argument is the parser's error
# for the call as given rather than Python's (which named leafgrad's helpers)
for _name in ("i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "entr", "erfcx", "expit",
              "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
              "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1"):
    _ALIASED[_name] = "Tensor input, " + _OUT
for _name in ("airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
              "spherical_bessel_j0"):
    _ALIASED[_name] = "Tensor x, " + _OUT
_ALIASED["gammainc"] = _ALIASED["gammaincc"] = "Tensor input, Tensor other, " + _OUT
_SCALAR_PAIR = ("Tensor {a}, Tensor {b}, " + _OUT, "Number {self}, Tensor {b}, " + _OUT,
                "Tensor {a}, Number {b}, " + _OUT)
for _name in ("xlogy", "xlog1py", "zeta"):
    _ALIASED[_name] = tuple(text.format(a="input", b="other", self="self")
                            for text in _SCALAR_PAIR)
for _name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
              "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
              "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
              "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"):
    _ALIASED[_name] = tuple(text.format(a="x", b="n", self="x") for text in _SCALAR_PAIR)


def _positional(names: list, args: tuple, kwargs: dict) -> tuple:
    """The call's positional parameters given by keyword (in order, after those given by
    position) moved to ``args``; the other keywords (out=, decimals=...) left as they are."""
    kwargs = dict(kwargs)
    for name in names[len(args):]:
        key = _argparse.keyword(name, kwargs)  # (NumPy's names too: x for input)
        if key is None:
            break
        args = args + (kwargs.pop(key),)
    return args, kwargs


def _as_special(name: str, function):
    declared = _ALIASED[name]
    _argparse.SIGNATURES[f"special_{name}"] = _argparse._overloads(*(
        f"special_{name}({params})"
        for params in (declared if isinstance(declared, tuple) else (declared,))))

    # torch's names for the required parameters (x, n...) by keyword reach leafgrad's function
    # by position
    first = _argparse.SIGNATURES[f"special_{name}"][0]
    names = [param.name for param in first.positional if param.default is None]
    keywords = {param.name for param in first.params if param.name not in names}

    @_argparse.parsed(f"special_{name}")
    def special(*args, **kwargs):
        if kwargs:
            given = args, kwargs
            args, kwargs = _positional(names, args, kwargs)
            if not keywords.issuperset(kwargs):  # (leafgrad's own names are not torch's)
                _argparse.check(f"special_{name}", *given)
        return function(*args, **kwargs)

    special.__name__ = special.__qualname__ = name
    special.__doc__ = function.__doc__
    special.__wrapped__ = function
    return special


for _name in _ALIASED:
    globals()[_name] = _as_special(_name, globals()[_name])
del _name
