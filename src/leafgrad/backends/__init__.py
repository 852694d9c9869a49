"""``leafgrad.backends``: the switches torch code reads and sets, as importable modules
(``import torch.backends.cudnn as cudnn`` is the first line of many training scripts).

A CPU-only build's answers: no cuDNN, CUDA, MPS or NNPACK to run on, so their flags are
recorded and checked as torch checks them but change no result; ``backends.cpu`` also holds
leafgrad's own switches (``torch_bits``, ``mkl_vml``).
"""

from __future__ import annotations

from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, nnpack, openmp, opt_einsum, quantized

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "nnpack", "openmp",
           "opt_einsum", "quantized"]
