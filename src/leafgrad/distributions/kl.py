"""kl_divergence(p, q) with torch's dispatch over registered (type_p, type_q) pairs.

``register_kl`` adds a pair; a lookup picks the most specific registered pair for the two
types (ties resolved as torch does, with its RuntimeWarning when left and right disagree).
"""

from __future__ import annotations

import functools
import math
import warnings

from .. import _creation
from .. import autograd
from ._composite import Independent, TransformedDistribution
from ._discrete import Bernoulli, Categorical, OneHotCategorical
from ._mvn import MultivariateNormal, _batch_mahalanobis
from ._univariate import Exponential, Laplace, Normal, Uniform
from .distribution import Distribution, ExponentialFamily
from .utils import _sum_rightmost

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict = {}
_KL_MEMOIZE: dict = {}
inf = math.inf


def register_kl(type_p, type_q):
    """Decorator registering ``fun(p, q)`` as KL(p || q) for these two types."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


@functools.total_ordering
class _Match:
    """Orders type pairs by specificity (lexicographic subclass order)."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY
               if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left, right = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return _creation.full_like(tensor, inf)


def _batch_trace_XXT(bmat):
    n, m = bmat.size(-1), bmat.size(-2)
    return bmat.reshape(-1, m * n).pow(2).sum(-1).reshape(tuple(bmat.shape[:-2]))


def _softplus(x):
    from ..nn.functional import softplus

    return softplus(x)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t1[q.probs == 0] = inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t2[q.probs == 1] = inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            "                            be computed using Bregman divergences")
    p_params = [x.detach().requires_grad_() for x in p._natural_params]
    q_params = q._natural_params
    normalizer = p._log_normalizer(*p_params)
    grads = autograd.grad(normalizer.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - normalizer
    for pn, qn, g in zip(p_params, q_params, grads):
        result -= _sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    from .. import broadcast_shapes, linalg

    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    qL, pL = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    half_term1 = (qL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = tuple(broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2])))
    n = p.event_shape[0]
    term2 = _batch_trace_XXT(linalg.solve_triangular(qL.expand(batch + (n, n)),
                                                     pL.expand(batch + (n, n)), upper=False))
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = inf
    return result


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * ratio / math.pi).log()
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Exponential)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = scale_ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * loc_diff_scale_ratio.pow(2)).exp()
    t3 = loc_diff * (math.sqrt(0.5) * loc_diff_scale_ratio).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponetial(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < q.support.lower_bound] = inf
    return result


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          p.reinterpreted_batch_ndims)


@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


# the gamma family (lgamma/digamma from _gamma: leafgrad's ops when present)
from ._gamma import Beta, Dirichlet, Gamma, _digamma, _lgamma  # noqa: E402


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = _lgamma(q.concentration1) + _lgamma(q.concentration0) + _lgamma(sum_params_p)
    t2 = _lgamma(p.concentration1) + _lgamma(p.concentration0) + _lgamma(sum_params_q)
    t3 = (p.concentration1 - q.concentration1) * _digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * _digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * _digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = _lgamma(sum_p) - _lgamma(sum_q)
    t2 = (_lgamma(p.concentration) - _lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = _digamma(p.concentration) - _digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = _lgamma(q.concentration) - _lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * _digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


# torch's other pairs (with the count, Pareto and continuous Bernoulli families)
from . import _kl_more  # noqa: E402,F401
