"""torch.distributions.constraints: the sets a parameter or a sample must lie in.

A constraint's ``check(value)`` answers elementwise (over the batch: a constraint with
``event_dim`` n reduces the n rightmost dimensions). The reprs are torch's
(``GreaterThan(lower_bound=0.0)``), since they appear in the validation errors.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
    "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "MixtureSameFamilyConstraint", "multinomial", "nonnegative", "nonnegative_integer",
    "one_hot", "positive", "positive_semidefinite", "positive_definite", "positive_integer",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """A region of valid values; ``check`` returns a boolean tensor over the batch."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder whose support depends on other variables (cannot be checked)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint (``Uniform.support`` and the like)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def _all_last(result, ndims: int):
    """Reduce the ``ndims`` rightmost dimensions of a boolean tensor with all()."""
    if ndims == 0:
        return result
    return result.reshape(tuple(result.shape[:result.dim() - ndims]) + (-1,)).all(-1)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more event dimensions."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError("reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise AssertionError("reinterpreted_batch_ndims must be >= 0, got "
                                 f"{reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_last(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(Constraint):
    """The component distribution's support, checked against every component."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & value.sum(-1).eq(1)


class _Bounded(Constraint):
    """A constraint with bounds printed as keyword arguments in its repr."""

    _bounds: tuple = ()

    def __repr__(self):
        args = ", ".join(f"{name}={getattr(self, name)}" for name in self._bounds)
        return f"{type(self).__name__[1:]}({args})"


class _IntegerInterval(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerLessThan(_Bounded):
    is_discrete = True
    _bounds = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False for NaN


class _GreaterThan(_Bounded):
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_Bounded):
    _bounds = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


def _is_lower_triangular(value):
    return _all_last(value.tril() == value, 2)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _is_lower_triangular(value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _is_lower_triangular(value) & positive_diagonal


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        from .. import linalg

        tol = float(np.finfo(value.dtype.np).eps) * value.size(-1) * 10
        row_norm = linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        from .. import _creation, _dtype

        return _creation.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                              dtype=_dtype.bool)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not square.all():
            return square
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        from .. import linalg

        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        from .. import _creation, _dtype

        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        # cholesky_ex(...).info == 0: a Cholesky factor exists for each matrix
        array = value.detach().numpy().astype(np.float64)
        batch = array.reshape((-1,) + array.shape[-2:])
        ok = []
        for matrix in batch:
            try:
                np.linalg.cholesky(matrix)
                ok.append(True)
            except np.linalg.LinAlgError:
                ok.append(False)
        return _creation.tensor(np.array(ok, dtype=bool).reshape(array.shape[:-2]),
                                dtype=_dtype.bool)


class _Cat(Constraint):
    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = list([1] * len(self.cseq) if lengths is None else lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        from .. import cat as _cat

        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} "
                                 "dimensions")
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return _cat(checks, self.dim)


class _Stack(Constraint):
    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        from .. import stack as _stack

        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} "
                                 "dimensions")
        parts = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return _stack([c.check(v) for v, c in zip(parts, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
