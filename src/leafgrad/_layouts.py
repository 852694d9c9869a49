"""``leafgrad.layout`` and its values (torch's ``torch.strided``, ``torch.sparse_coo``, ...).

A leafgrad tensor is dense and strided (``Tensor.layout`` is ``strided``) or a sparse COO
tensor of leafgrad.sparse (``sparse_coo``); the other values exist so that code comparing or
passing layouts runs (factories take ``layout=`` and, like torch's dense CPU kernels, build
strided tensors)."""

from __future__ import annotations


class layout:  # noqa: N801 - torch's name
    """A tensor memory layout; compares by identity, prints as torch prints it."""

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.layout'>

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"leafgrad.{self._name}"

    def __reduce__(self):
        return self._name  # unpickles to the module-level instance


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")
_mkldnn = layout("_mkldnn")

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
           "sparse_bsc", "jagged"]
