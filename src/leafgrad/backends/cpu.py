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
``compiled_loops`` leafgrad.compile's replays run softmax/log_softmax (forward and backward)
                and SGD's fused update as numba-compiled loops when the optional ``numba``
                package is installed (ops/_numba_kernels.py: the same bits as the NumPy
                kernels eager code runs). False: NumPy's kernels (decided when a function is
                captured).
"""

from __future__ import annotations

torch_bits = False
mkl_vml = True
compiled_loops = True


def get_cpu_capability() -> str:
    from ..ops import _isa

    return _isa.CAPABILITY.upper()
