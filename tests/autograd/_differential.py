"""Run one program under torch and under leafgrad and record what it shows, for comparison:
each ``note(thunk)`` records the thunk's value (strings with ``torch.`` spelled ``leafgrad.``,
object addresses blanked) or the exception it raised (type and first message line)."""

from __future__ import annotations

import re
import warnings

import numpy as np


class _Raised:
    def __init__(self, error: BaseException):
        text = str(error).splitlines()[0] if str(error) else ""
        self.text = f"{type(error).__name__}: {text}".replace("torch.", "leafgrad.")

    def __eq__(self, other):
        return isinstance(other, _Raised) and self.text == other.text

    def __repr__(self):
        return self.text


def _normalise(value):
    if isinstance(value, str):
        return re.sub(r"\bat 0x[0-9a-f]+", "at 0x", value.replace("torch.", "leafgrad."))
    if isinstance(value, (list, tuple)):
        return [_normalise(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def observe(program, lib) -> list:
    seen = []

    def note(thunk):
        try:
            value = thunk()
        except Exception as error:  # noqa: BLE001 - the exception is the observation
            seen.append(_Raised(error))
            return None
        seen.append(_normalise(value))
        return value

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            program(lib, note)
    finally:
        while lib.autograd.forward_ad._current_level >= 0:  # a failed program left a level
            lib.autograd.forward_ad.exit_dual_level()
    return seen


