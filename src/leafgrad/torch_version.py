"""``torch.torch_version``: ``TorchVersion``, the string ``leafgrad.__version__`` is.

leafgrad implements PyTorch 2.13's API for the CPU, so ``leafgrad.__version__`` is that
version, ``"2.13.0+cpu"``, as torch's CPU build prints it: code that checks
``torch.__version__`` before using an API (``if version >= "2.0": torch.compile(...)``) takes
the branch written for the behaviour leafgrad has. leafgrad's own release is
``leafgrad.__leafgrad_version__`` (the package's version).

A ``TorchVersion`` is a ``str`` whose comparisons with a version string, a tuple or a list of
numbers follow PEP 440 (``"2.13.0+cpu" >= "2.13"``, ``> (2, 1)``, ``< "2.14.0a0"``); a string
that is not a version compares as a string, and other types raise TypeError, as torch's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TorchVersion", "InvalidVersion"]


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


_PATTERN = re.compile(
    r"v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)"
    r"(?:[-_.]?(?P<pre>a|alpha|b|beta|rc|c|pre|preview)[-_.]?(?P<pre_n>[0-9]+)?)?"
    r"(?:-(?P<post_implicit>[0-9]+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n>[0-9]+)?)?"
    r"(?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>[0-9]+)?)?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?",
    re.IGNORECASE)
_PHASES = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF = float("inf")


def _key(text: str) -> tuple:
    """A tuple ordering versions as PEP 440 does."""
    match = _PATTERN.fullmatch(text.strip())
    if match is None:
        raise InvalidVersion(f"Invalid version: '{text}'")
    release = [int(part) for part in match.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    post = match.group("post_implicit") or match.group("post_n")
    has_post = post is not None or (match.group("post_n") is None and text.lower().find("post") >= 0)
    dev = match.group("dev")
    if match.group("pre"):
        pre = (_PHASES[match.group("pre").lower()], int(match.group("pre_n") or 0))
    elif dev and not has_post:
        pre = (-_INF, 0)  # a dev release sorts before its pre-releases
    else:
        pre = (_INF, 0)
    post_key = (int(post or 0),) if has_post else (-_INF,)
    dev_key = (int(match.group("dev_n") or 0),) if dev else (_INF,)
    local = match.group("local")
    if local is None:
        local_key = ((-_INF, ""),)
    else:
        # numeric segments sort after alphanumeric ones, each compared by value
        local_key = tuple((int(part), "") if part.isdigit() else (-1, part.lower())
                          for part in re.split(r"[-_.]", local))
    return (int(match.group("epoch") or 0), tuple(release), pre, post_key, dev_key, local_key)


def _other_key(other) -> tuple:
    if isinstance(other, str):
        return _key(other)
    if isinstance(other, Iterable):
        return _key(".".join(str(item) for item in other))
    raise InvalidVersion(other)


def _comparison(name: str):
    def compare(self, other):
        try:
            theirs = _other_key(other)
        except InvalidVersion:
            if isinstance(other, str):  # not a version: compared as strings, as torch's
                return getattr(str, name)(self, other)
            return NotImplemented
        return getattr(_key(self), name)(theirs)

    compare.__name__ = name
    return compare


class TorchVersion(str):
    """A version string comparable with versions (see the module docstring)."""

    __slots__ = ()

    __gt__ = _comparison("__gt__")
    __ge__ = _comparison("__ge__")
    __lt__ = _comparison("__lt__")
    __le__ = _comparison("__le__")
    __eq__ = _comparison("__eq__")
    __hash__ = str.__hash__
    # (``!=`` is str's, as in torch: "2.13.0+cpu" != "2.13" is True while == is False too)
