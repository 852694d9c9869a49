"""NumPy-style keyword aliases torch's argument parser accepts: ``axis`` for ``dim``,
``keepdims`` for ``keepdim`` (``x.sum(axis=0, keepdims=True)`` works in torch).

``add_aliases`` wraps, once at import, every function and Tensor method whose signature has a
``dim`` or ``keepdim`` parameter; the wrapper renames the keywords and calls the original
(about 0.1 us per call, only on functions that take a dim).
"""

from __future__ import annotations

import functools
import inspect

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def _takes_dim(function) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "dim" in parameters or "keepdim" in parameters


# Note: parsed through the aliases' wrapper
# This wrapper sees every call of a function or method taking a dim as it was given
# (positional or keyword, NumPy's names too), which the function's body cannot: for one declared
# in torch's signatures (``_argparse.declared``: sum, mean, softmax, unbind...), a TypeError of
# its body ("must be int", "'<=' not supported...") becomes the parser's error for the call as
# given ("got (Tensor, dim=str)", no "(position N)" for a keyword), at no cost to valid calls.
def _aliased(function):
    parsed = getattr(function, "parsed_name", None)
    method = parsed is not None and parsed.startswith("Tensor.")

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        given = kwargs
        if kwargs:
            for alias, name in _ALIASES:
                if alias in kwargs:
                    if name in kwargs:  # torch's parser then rejects the alias
                        raise TypeError(
                            f"{function.__name__}() got an unexpected keyword argument '{alias}'")
                    if kwargs is given:
                        kwargs = dict(given)
                    kwargs[name] = kwargs.pop(alias)
        try:
            return function(*args, **kwargs)
        except Exception as error:  # (a tensor-like argument: overrides.py)
            from . import overrides

            result = overrides.dispatch_after_failure(wrapper, args, kwargs)
            if result is overrides.NOT_DISPATCHED:
                if error.__class__ is TypeError and parsed is not None:
                    from . import _argparse

                    problem = _argparse.error(parsed, args[1:] if method else args, given)
                    if problem is not None:
                        raise problem from None
                raise
            return result

    wrapper._numpy_aliases = True
    return wrapper


def add_aliases(namespace: dict, names) -> None:
    """Replace ``namespace[name]`` by an aliasing wrapper where the function takes a dim."""
    for name in names:
        value = namespace.get(name)
        if callable(value) and not isinstance(value, type) and not getattr(
                value, "_numpy_aliases", False) and _takes_dim(value):
            namespace[name] = _aliased(value)


def add_method_aliases(cls) -> None:
    for klass in cls.__mro__:
        for name, value in list(vars(klass).items()):
            if name.startswith("_") or not inspect.isfunction(value):
                continue
            if getattr(value, "_numpy_aliases", False) or not _takes_dim(value):
                continue
            setattr(klass, name, _aliased(value))
