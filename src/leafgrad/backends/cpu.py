"""``torch.backends.cpu``, and leafgrad's own switches for its CPU kernels.

``get_cpu_capability()`` names the vector instruction set whose kernels torch runs here
(honouring ``ATEN_CPU_CAPABILITY``); leafgrad replays the same one (ops/_isa.py).

leafgrad's switches (not torch's):
``torch_bits``  True makes float32 sigmoid, silu and pow replay torch's SLEEF vector kernels
                operation by operation, for bit-identical results at 20-100x the cost
                (ops/_float_kernels.py, docs/float32-bits.md), and float32/float16 layer_norm and
                group_norm replay ATen's RowwiseMoments (ops/_norm_kernels.py, 2-10x the cost);
                float64 silu, the elu family, softplus, logsigmoid (ops/_sleef_double.py),
                softmax and layer/group norm replay at every size, not only up to their
                default limits.
``mkl_vml``     call Intel MKL's vector math functions where torch does, when the optional
                ``mkl`` package is installed (ops/_mkl.py).
``compiled_loops`` True (the default): leafgrad.compile's replays run the kernels of
                ops/_numba_kernels.py (softmax, log_softmax, nll_loss, SGD's and Adam's updates,
                sums over a dim, relu, a convolution's bias gradient) as numba-compiled loops
                when the optional ``numba`` package is installed, with the same bits as the
                NumPy kernels. ``"eager"``: eager ops use the loops too (the first use of each
                compiles it, a few seconds once; numba caches it on disk). False: NumPy's
                kernels everywhere (for replays: decided when a function is captured). The
                environment variable ``LEAFGRAD_COMPILED_LOOPS`` (``eager``, ``0``) sets it
                at import.
"""

from __future__ import annotations

import os
import sys
import types

torch_bits = False
mkl_vml = True
_compiled_loops = {"eager": "eager", "0": False}.get(
    os.environ.get("LEAFGRAD_COMPILED_LOOPS", ""), True)


class _Switches(types.ModuleType):
    """This module's class: ``compiled_loops`` is checked when set (its ``"eager"`` value
    switches the loops on for eager ops at once)."""

    @property
    def compiled_loops(self):
        return _compiled_loops

    @compiled_loops.setter
    def compiled_loops(self, value):
        global _compiled_loops
        if value not in (True, False, "eager"):
            raise ValueError(f"compiled_loops must be True, False or 'eager', got {value!r}")
        from ..ops import _numba_kernels

        _compiled_loops = value
        _numba_kernels.active = value == "eager" and _numba_kernels.available()


sys.modules[__name__].__class__ = _Switches


def get_cpu_capability() -> str:
    from ..ops import _isa

    return _isa.CAPABILITY.upper()
