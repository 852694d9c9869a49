"""Findings of the AVX-512 sweep: bit differences from torch 2.13 found on an AVX-512 machine
(and checked under ATEN_CPU_CAPABILITY=avx2 too)."""

import numpy as np

import leafgrad
from tests._torch import require_torch


def test_reduced_precision_rsqrt_rounds_once():  # (float16 and bfloat16)
    """float16 rsqrt is float32's 1 / sqrt rounded once (torch's vector op converts
    to float) in the vectorised elements, and its scalar op's sqrt rounded to half first in the
    rest; NumPy's float16 loop rounded the sqrt everywhere (36 of 111 values 1 ulp off)."""
    torch = require_torch()
    gen = torch.Generator().manual_seed(0)
    special = torch.tensor([0.0, -0.0, -1.0, float("inf"), float("nan"), 1e-8])
    for dtype in ("float16", "bfloat16"):
        for shape in ((0,), (7,), (3, 37), (5, 100)):
            base = torch.randn(shape, generator=gen).abs() * 10
            forms = (base, torch.cat([base.flatten(), special]),
                     base.t() if base.dim() == 2 else base)
            for x in forms:
                x = x.to(getattr(torch, dtype))
                ours = leafgrad.tensor(x.double().numpy()).to(getattr(leafgrad, dtype))
                if x.dim() == 2 and not x.is_contiguous():
                    ours = leafgrad.tensor(x.t().double().numpy()).to(getattr(leafgrad, dtype)).t()
                expected = x.rsqrt()
                got = ours.rsqrt()
                assert str(got.dtype) == str(expected.dtype).replace("torch", "leafgrad")
                np.testing.assert_array_equal(got.double().numpy(), expected.double().numpy(),
                                              err_msg=f"{dtype} {tuple(x.shape)} {x.stride()}")
