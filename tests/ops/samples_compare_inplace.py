"""Samples for ops/compare_inplace.py: the in-place comparisons on a non-leaf copy (an in-place
op on a leaf that requires grad is an error); a number ``other`` (Backward0) or a tensor one,
broadcast or not, that may require grad too (Backward1)."""

from __future__ import annotations

from .samples import Sample

A, S23, S3, S0 = "any", (2, 3), (3,), ()


def _scalar(method: str, value):
    return [Sample(lambda lib, x: getattr(x * 1, method)(value), ((S23, A),)),
            Sample(lambda lib, x: getattr(x.t() * 1, method)(value), ((S23, A),)),
            Sample(lambda lib, x: getattr(x * 1, method)(value), ((S0, A),))]


def _tensor(method: str):
    return [Sample(lambda lib, x, y: getattr(x * 1, method)(y), ((S23, A), (S23, A))),
            Sample(lambda lib, x, y: getattr(x * 1, method)(y), ((S23, A), (S3, A))),
            Sample(lambda lib, x, y: getattr(x * 1, method)(y), ((S3, A), (S0, A)))]


SAMPLES = {}
for _name, _method in (("Eq", "eq_"), ("Ne", "ne_"), ("Lt", "lt_"), ("Le", "le_"),
                       ("Gt", "gt_"), ("Ge", "ge_")):
    SAMPLES[f"{_name}Inplace"] = _scalar(_method, 0.25)
    SAMPLES[f"{_name}TensorInplace"] = _tensor(_method)
