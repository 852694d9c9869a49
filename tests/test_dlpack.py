"""DLPack exchange (``torch.from_dlpack``, ``torch.utils.dlpack``, ``Tensor.__dlpack__``),
compared with torch over dtypes and layouts (contiguous, transposed, strided, expanded, 0-d,
empty), with memory shared both ways, and with torch's refusals."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def _layouts(dtype):
    base = (np.arange(24) % 7 - 3).astype(dtype)
    cube = base.reshape(2, 3, 4)
    return {"contiguous": cube, "transposed": cube.transpose(2, 0, 1), "strided": cube[:, ::2, 1:],
            "expanded": np.broadcast_to(base[:4], (3, 4)), "0-d": base[5:6].reshape(()),
            "empty": base[:0].reshape(0, 3), "negative-free slice": cube[1]}


def _describe(tensor):
    return (str(tensor.dtype).split(".")[-1], tuple(tensor.shape), tuple(tensor.stride()),
            tensor.numpy().tolist())


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_numpy_producers_shares_memory_as_torch(dtype):
    for name, array in _layouts(dtype).items():
        ours, theirs = leafgrad.from_dlpack(array), torch.from_dlpack(array)
        assert _describe(ours) == _describe(theirs), name
        assert ours.data_ptr() == array.__array_interface__["data"][0], name
        if array.size and array.flags.writeable:
            previous = array.flat[0].copy()
            array.flat[0] = 1
            assert ours.numpy().flat[0] == theirs.numpy().flat[0] == 1, name
            array.flat[0] = previous
        copied = leafgrad.from_dlpack(array, copy=True)
        assert _describe(copied)[:2] == _describe(theirs)[:2]
        if array.size:
            assert copied.data_ptr() != array.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_between_leafgrad_and_torch_both_ways(dtype):
    for name, array in _layouts(dtype).items():
        ours = leafgrad.tensor(np.ascontiguousarray(array))
        theirs = torch.tensor(np.ascontiguousarray(array))
        # torch reads leafgrad's tensor, leafgrad reads torch's, through __dlpack__
        assert _describe(torch.from_dlpack(ours)) == _describe(theirs), name
        assert _describe(leafgrad.from_dlpack(theirs)) == _describe(theirs), name
        # and through legacy capsules
        capsule = leafgrad.utils.dlpack.to_dlpack(ours)
        assert _describe(torch.utils.dlpack.from_dlpack(capsule)) == _describe(theirs), name
        capsule = torch.utils.dlpack.to_dlpack(theirs)
        assert _describe(leafgrad.utils.dlpack.from_dlpack(capsule)) == _describe(theirs), name
        # views keep their layout, and NumPy reads both the same way
        view_ours, view_theirs = ours.t() if ours.dim() == 2 else ours, \
            theirs.t() if theirs.dim() == 2 else theirs
        assert np.array_equal(np.from_dlpack(view_ours), np.from_dlpack(view_theirs))
        if view_ours.numel():  # (torch exports an empty tensor with all strides 0)
            assert np.from_dlpack(view_ours).strides == np.from_dlpack(view_theirs).strides


def test_memory_is_shared_with_torch():
    ours = leafgrad.zeros(4)
    theirs = torch.from_dlpack(ours)
    theirs[1] = 5
    assert ours.tolist() == [0.0, 5.0, 0.0, 0.0]
    back = leafgrad.from_dlpack(theirs)
    back[2] = 7
    assert theirs.tolist() == [0.0, 5.0, 7.0, 0.0]


def _outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return type(result).__name__


def test_refusals_and_capsules_used_once():
    cases = [
        lambda lib: lib.ones(2, requires_grad=True).__dlpack__(),
        lambda lib: np.from_dlpack(lib.ones(2, requires_grad=True)),
        lambda lib: lib.from_dlpack(lib.ones(2, requires_grad=True)),
        lambda lib: lib.tensor([1 + 2j]).conj().__dlpack__(),
        lambda lib: lib.from_dlpack(3),
        lambda lib: lib.from_dlpack("x"),
        lambda lib: lib.from_dlpack(np.ones(2), device="cpu"),
        lambda lib: lib.utils.dlpack.to_dlpack(lib.ones(2, requires_grad=True)),
        lambda lib: lib.ones(2).__dlpack_device__(),
    ]
    for case in cases:
        assert _outcome(lambda: case(leafgrad)) == _outcome(lambda: case(torch))
    for lib in (leafgrad, torch):
        capsule = lib.utils.dlpack.to_dlpack(lib.arange(3))
        lib.from_dlpack(capsule)
        outcome = _outcome(lambda: lib.from_dlpack(capsule))
        assert outcome[1].startswith("from_dlpack received an invalid capsule")
    assert leafgrad.ones(2).__dlpack_device__() == torch.ones(2).__dlpack_device__()
    assert [(m.name, int(m)) for m in leafgrad.utils.dlpack.DLDeviceType] == [
        (m.name, int(m)) for m in torch.utils.dlpack.DLDeviceType]
