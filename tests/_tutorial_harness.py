"""Run one tutorial snippet with torch and with leafgrad in the same process and compare what it
prints: a snippet is a function of the module it runs with (``torch`` or ``leafgrad``)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import pytest


def attempt(function):
    """Print the exception a call raises as torch's tests compare it: type and first line."""
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - the type and first line are what is compared
        print(f"raised {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
        return None


def transcript(snippet, module):
    """What snippet(module) prints, then the first line of each warning it raises; leafgrad's
    own name (``leafgrad.Size``, ``leafgrad.float32``) is read as torch's, object addresses
    as equal."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        attempt(lambda: snippet(module))
    lines = out.getvalue().splitlines()
    for w in caught:  # (less torch's pointer into its C++ sources)
        message = re.sub(r" \(Triggered internally at [^)]*\)", "", str(w.message))
        lines.append(f"warning {w.category.__name__}: {message.splitlines()[0]}")
    lines = [re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", line) for line in lines]
    if module.__name__ != "torch":
        lines = [line.replace(module.__name__, "torch") for line in lines]
    return lines


def first_difference(snippet, ours, theirs):
    """None when both transcripts agree, else the first differing line pair with its number.
    torch runs with its backends' flags settable, as in a script: importing torch's own test
    utilities (any earlier test in the worker may) calls torch.backends.disable_global_flags(),
    after which a snippet's ``cudnn.deterministic = True`` raises (tutorials4's uva_intro and
    tutorials6's reproducibility failed so in one full run)."""
    got = transcript(snippet, ours)
    settable = getattr(getattr(theirs, "backends", None), "__allow_nonbracketed_mutation", None)
    with settable() if settable is not None else contextlib.nullcontext():
        want = transcript(snippet, theirs)
    for number, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return number, a, b
    if len(got) != len(want):
        return min(len(got), len(want)), got[len(want):][:1], want[len(got):][:1]
    return None


@pytest.fixture
def default_validation():
    """Distribution argument validation at its default (on) in torch: its dynamo switches it
    off for the rest of the process once a test in the worker has compiled with it
    (_dynamo/eval_frame.py's TorchPatcher), which made snippets that print a distribution's
    argument error depend on test order (tutorials10's distributions_zoo). A fixture of the
    tutorial files (imported there)."""
    from tests._torch import require_torch

    torch = require_torch()
    saved = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    yield
    torch.distributions.Distribution.set_default_validate_args(saved)
