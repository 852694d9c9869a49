"""``leafgrad.<name>`` forms of the math ops added with the namespace-coverage work: distances
(ops/distance.py) and special functions (ops/special_fns.py)."""

from __future__ import annotations

from ._functions_math import _cast, _require_tensor, _unary
from . import _argparse, _dtype
from ._out import Out, Rule, takes_out
from .nn._functional_losses import pairwise_distance
from .ops.distance import cdist, pdist
from .ops.distance import dist as _dist

__all__ = [
    "cdist", "pdist", "dist", "pairwise_distance", "lgamma", "digamma", "polygamma",
    "mvlgamma", "i0", "i0_", "sinc", "sinc_", "logit", "logit_", "deg2rad", "deg2rad_",
    "rad2deg", "rad2deg_", "copysign", "igamma", "igammac",
]

lgamma = _unary("lgamma", _cast("lgamma"))
digamma = _unary("digamma", _cast("digamma"))
i0 = _unary("i0", _cast("i0"))
sinc = _unary("sinc", _cast("sinc"))
deg2rad = _unary("deg2rad", _cast("deg2rad"))
rad2deg = _unary("rad2deg", _cast("rad2deg"))


def _inplace(name: str):
    def function(input):  # noqa: A002 - torch's name
        _require_tensor(input, name, "input", 1)
        return getattr(input, name)()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: in place; see ``Tensor.{name}``."
    return function


i0_ = _inplace("i0_")
sinc_ = _inplace("sinc_")
deg2rad_ = _inplace("deg2rad_")
rad2deg_ = _inplace("rad2deg_")


@takes_out(_cast("polygamma"))
def polygamma(n, input):  # noqa: A002 - torch's name
    """``torch.polygamma(n, input)``: the n-th derivative of digamma.

    >>> import leafgrad as torch
    >>> torch.polygamma(1, torch.tensor([1.0]))
    tensor([1.6449])
    """
    return _polygamma(n, input, "polygamma")


def _polygamma(n, input, function: str):  # noqa: A002 - torch's name
    if n.__class__ is not int:
        n = _argparse.int_arg(function, "n", n, 1)
    _require_tensor(input, function, "input", 2)
    return input.polygamma(n)


# torch's mvlgamma names the input's dtype twice in its out-dtype error
_MVLGAMMA_OUT = Out("mvlgamma", Rule("mvlgamma: result type {R} can't be cast to the desired "
                                     "output type {R}", _dtype.can_cast), overlap=True)


@takes_out(_MVLGAMMA_OUT)
def mvlgamma(input, p):  # noqa: A002 - torch's name
    """``torch.mvlgamma(input, p)``: the multivariate log-gamma of dimension p."""
    return _mvlgamma(input, p, "mvlgamma")


def _mvlgamma(input, p, function: str):  # noqa: A002 - torch's name
    _require_tensor(input, function, "input", 1)
    if p.__class__ is not int:  # (the method's p is position 1)
        p = _argparse.int_arg(function, "p", p, 2)
    return input.mvlgamma(p)


@takes_out(_cast("logit"))
def logit(input, eps=None):  # noqa: A002 - torch's name
    """``torch.logit(input, eps=None)``: log(p / (1 - p)), p clamped to [eps, 1 - eps]."""
    _require_tensor(input, "logit", "input", 1)
    if eps is not None and eps.__class__ is not float and eps.__class__ is not int:
        from . import _argparse

        eps = _argparse.number("logit", "eps", eps, 2, kind="float")
    return input.logit(eps)


def logit_(input, eps=None):  # noqa: A002 - torch's name
    _require_tensor(input, "logit_", "input", 1)
    return input.logit_(eps)


def _binary(name: str, numbers: bool = False):
    from .methods.math_extra import _check_number
    from .tensor import Tensor

    @takes_out(_cast(name))
    def function(input, other):  # noqa: A002 - torch's name
        _require_tensor(input, name, "input", 1)
        if numbers and not isinstance(other, Tensor):
            other = _check_number(name, other, "Tensor, ")
        else:
            _require_tensor(other, name, "other", 2)
        return getattr(input, name)(other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)``: elementwise; see ``Tensor.{name}``."
    return function


copysign = _binary("copysign", numbers=True)
igamma = _binary("igamma")
igammac = _binary("igammac")


def dist(input, other, *args, **kwargs):  # noqa: A002 - torch's name
    """``torch.dist``: the p-norm of ``input - other`` (p positional or keyword: torch's error
    for a p that is not a number names its position only when given by position).

    >>> import leafgrad as torch
    >>> torch.dist(torch.tensor([1., 2.]), torch.tensor([4., 6.]))
    tensor(5.)
    """
    _dist_arguments(args, kwargs, 3)
    return _dist(input, other, args[0] if args else kwargs.get("p", 2),
                 _position=3 if args else None)


def _dist_arguments(args: tuple, kwargs: dict, most: int) -> None:
    """Python's own TypeErrors for dist's arguments, as torch raises them (``most``: the
    positional arguments the form takes)."""
    unknown = set(kwargs) - {"p"}
    if unknown:  # (torch.dist has no out=)
        raise TypeError(f"dist() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    if len(args) > 1:
        raise TypeError(f"dist() takes from {most - 1} to {most} positional arguments but "
                        f"{most + len(args) - 1} were given")
    if args and kwargs:
        raise TypeError("dist() got multiple values for argument 'p'")
