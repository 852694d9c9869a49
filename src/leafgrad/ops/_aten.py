"""``torch.ops.aten``: ATen's operators by name and overload, for the common ops.

``leafgrad.ops.aten.add`` is an OpOverloadPacket (callable: the op's usual function) and
``leafgrad.ops.aten.add.Tensor`` an OpOverload, printed as torch prints them. An overload maps
to the leafgrad function that records the node torch records for it (``aten.add.Scalar`` ->
AddBackward1). ``overloads()`` lists torch 2.13's overload names; the ones leafgrad has no
mapping for raise NotImplementedError when called. The namespace covers the ops below, not all
of ATen: another name raises torch's AttributeError for an unknown operator.
"""

from __future__ import annotations
from .registry import OPS


def _lib():
    import leafgrad

    return leafgrad


def _F():
    from ..nn import functional

    return functional


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}  # ATen's at::Reduction enum


def _scalar(op: str, tensor, number):
    """An op's Scalar overload: torch records its own node for it (aten.add.Scalar:
    AddBackward1; ``tensor + 2`` records AddBackward0)."""
    return OPS[op].apply(tensor, other=number)

def _alias(tensor):
    """aten.alias: a view of the whole tensor (AliasBackward0), as torch's view ops record."""
    return OPS["Alias"].apply(tensor)


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups):
    """aten.convolution: the conv{1,2,3}d / conv_transpose{1,2,3}d its dims name."""
    spatial = input.dim() - 2
    if transposed:
        return getattr(_F(), f"conv_transpose{spatial}d")(
            input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(_F(), f"conv{spatial}d")(input, weight, bias, stride, padding, dilation,
                                            groups)


# name: (torch 2.13's overload names, {overload: function}, the packet's call)
_TABLE = {
    "add": (("Tensor", "Scalar", "out", "Scalar_out", "t", "str", "int", "complex", "float",
             "int_complex", "complex_int", "float_complex", "complex_float", "int_float",
             "float_int", "default"),
            {"Tensor": lambda self, other, *, alpha=1: _lib().add(self, other, alpha=alpha),
             "Scalar": lambda self, other, alpha=1: _scalar("AddScalarFormula", self,
                                                            other * alpha)},
            lambda *a, **k: _lib().add(*a, **k)),
    "sub": (("Tensor", "Scalar", "out", "Scalar_out", "int", "complex", "float", "int_complex",
             "complex_int", "float_complex", "complex_float", "int_float", "float_int",
             "default"),
            {"Tensor": lambda self, other, *, alpha=1: _lib().sub(self, other, alpha=alpha),
             "Scalar": lambda self, other, alpha=1: _scalar("SubScalar", self, other * alpha)},
            lambda *a, **k: _lib().sub(*a, **k)),
    "mul": (("Tensor", "Scalar", "out", "Scalar_out", "left_t", "right_", "int", "complex",
             "float", "int_complex", "complex_int", "float_complex", "complex_float",
             "int_float", "float_int", "default"),
            {"Tensor": lambda self, other: _lib().mul(self, other),
             "Scalar": lambda self, other: _scalar("MulScalar", self, other)},
            lambda *a, **k: _lib().mul(*a, **k)),
    "div": (("Tensor", "Scalar", "Tensor_mode", "Scalar_mode", "out", "out_mode", "Scalar_out",
             "Scalar_mode_out", "int", "complex", "float", "default"),
            {"Tensor": lambda self, other: _lib().div(self, other),
             "Scalar": lambda self, other: _scalar("DivScalar", self, other),
             "Tensor_mode": lambda self, other, *, rounding_mode: _lib().div(
                 self, other, rounding_mode=rounding_mode),
             "Scalar_mode": lambda self, other, *, rounding_mode: _lib().div(
                 self, other, rounding_mode=rounding_mode)},
            lambda *a, **k: _lib().div(*a, **k)),
    "mm": (("default", "out", "dtype_out", "dtype"),
           {"default": lambda self, mat2: _lib().mm(self, mat2)}, None),
    "bmm": (("default", "out", "dtype_out", "dtype"),
            {"default": lambda self, mat2: _lib().bmm(self, mat2)}, None),
    "matmul": (("default", "out"), {"default": lambda self, other: _lib().matmul(self, other)},
               None),
    "addmm": (("default", "out", "dtype_out", "dtype"),
              {"default": lambda self, mat1, mat2, *, beta=1, alpha=1: _lib().addmm(
                  self, mat1, mat2, beta=beta, alpha=alpha)}, None),
    "baddbmm": (("default", "out", "dtype_out", "dtype"),
                {"default": lambda self, batch1, batch2, *, beta=1, alpha=1: _lib().baddbmm(
                    self, batch1, batch2, beta=beta, alpha=alpha)}, None),
    "convolution": (("default", "out"), {"default": lambda *a: _convolution(*a)}, None),
    "_convolution": (("deprecated", "default", "out"),
                     {"default": lambda *a: _convolution(*a[:9]),
                      "deprecated": lambda *a: _convolution(*a[:9])},
                     lambda *a: _convolution(*a[:9])),
    "convolution_backward": (("default", "out"), {}, None),
    "relu": (("default", "out"), {"default": lambda self: _lib().relu(self)}, None),
    "sigmoid": (("default", "out"), {"default": lambda self: _lib().sigmoid(self)}, None),
    "abs": (("default", "out"), {"default": lambda self: _lib().abs(self)}, None),
    "sum": (("dim_IntList", "default", "IntList_out", "out", "int", "float", "complex", "bool"),
            {"default": lambda self, *, dtype=None: _lib().sum(self, dtype=dtype),
             "dim_IntList": lambda self, dim, keepdim=False, *, dtype=None: _lib().sum(
                 self, dim, keepdim=keepdim, dtype=dtype)},
            lambda *a, **k: _lib().sum(*a, **k)),
    "mean": (("default", "dim", "out", "dtype_out"),
             {"default": lambda self, *, dtype=None: _lib().mean(self, dtype=dtype),
              "dim": lambda self, dim, keepdim=False, *, dtype=None: _lib().mean(
                  self, dim, keepdim=keepdim, dtype=dtype)},
             lambda *a, **k: _lib().mean(*a, **k)),
    "view": (("default", "dtype"), {"default": lambda self, size: self.view(size),
                                    "dtype": lambda self, dtype: self.view(dtype)},
             lambda self, arg: self.view(arg)),
    "reshape": (("default",), {"default": lambda self, shape: _lib().reshape(self, shape)},
                None),
    "t": (("default",), {"default": lambda self: _lib().t(self)}, None),
    "transpose": (("int",), {"int": lambda self, dim0, dim1: _lib().transpose(self, dim0, dim1)},
                  None),
    "permute": (("default",), {"default": lambda self, dims: _lib().permute(self, dims)}, None),
    "unsqueeze": (("default",), {"default": lambda self, dim: _lib().unsqueeze(self, dim)},
                  None),
    "squeeze": (("default", "dim", "dims"),
                {"default": lambda self: _lib().squeeze(self),
                 "dim": lambda self, dim: _lib().squeeze(self, dim),
                 "dims": lambda self, dim: _lib().squeeze(self, tuple(dim))},
                lambda *a, **k: _lib().squeeze(*a, **k)),
    "expand": (("default",), {"default": lambda self, size, *, implicit=False: self.expand(size)},
               None),
    "clone": (("default", "out"),
              {"default": lambda self, *, memory_format=None: _lib().clone(self) if
               memory_format is None else _lib().clone(self, memory_format=memory_format)},
              None),
    "detach": (("default",), {"default": lambda self: _lib().detach(self)}, None),
    "cat": (("default", "out"), {"default": lambda tensors, dim=0: _lib().cat(tensors, dim)},
            None),
    "stack": (("default", "out"), {"default": lambda tensors, dim=0: _lib().stack(tensors, dim)},
              None),
    "softmax": (("int", "int_out"),
                {"int": lambda self, dim, dtype=None: _lib().softmax(self, dim, dtype=dtype)},
                lambda *a, **k: _lib().softmax(*a, **k)),
    "log_softmax": (("int", "int_out"),
                    {"int": lambda self, dim, dtype=None: _lib().log_softmax(self, dim,
                                                                              dtype=dtype)},
                    lambda *a, **k: _lib().log_softmax(*a, **k)),
    "pow": (("Tensor_Tensor", "Tensor_Scalar", "Scalar", "Tensor_Tensor_out", "Scalar_out",
             "Tensor_Scalar_out", "int", "complex", "float", "int_float", "float_int",
             "float_complex", "complex_float", "Scalar_Scalar", "int_to_int"),
            {"Tensor_Tensor": lambda self, exponent: _lib().pow(self, exponent),
             "Tensor_Scalar": lambda self, exponent: _lib().pow(self, exponent),
             "Scalar": lambda self, exponent: _lib().pow(self, exponent)},
            lambda *a, **k: _lib().pow(*a, **k)),
    "linear": (("default", "out"),
               {"default": lambda input, weight, bias=None: _F().linear(input, weight, bias)},
               None),
    "mse_loss": (("default", "out"),
                 {"default": lambda self, target, reduction=1: _F().mse_loss(
                     self, target, reduction=_REDUCTIONS[reduction])}, None),
    "gelu": (("default", "out"),
             {"default": lambda self, *, approximate="none": _F().gelu(
                 self, approximate=approximate)}, None),
    "where": (("self", "ScalarOther", "ScalarSelf", "Scalar", "default", "self_out"),
              {"self": lambda condition, self, other: _lib().where(condition, self, other),
               "ScalarOther": lambda condition, self, other: _lib().where(condition, self,
                                                                           other),
               "ScalarSelf": lambda condition, self, other: _lib().where(condition, self,
                                                                          other)},
              lambda *a, **k: _lib().where(*a, **k)),
    "flatten": (("using_ints",),
                {"using_ints": lambda self, start_dim=0, end_dim=-1: _lib().flatten(
                    self, start_dim, end_dim)}, lambda *a, **k: _lib().flatten(*a, **k)),
    "select": (("int", "t"), {"int": lambda self, dim, index: _lib().select(self, dim, index)},
               lambda *a, **k: _lib().select(*a, **k)),
    "index_select": (("default", "out"),
                     {"default": lambda self, dim, index: _lib().index_select(self, dim, index)},
                     None),
    "gather": (("default", "out"),
               {"default": lambda self, dim, index, *, sparse_grad=False: _lib().gather(
                   self, dim, index)}, None),
    "alias": (("default",), {"default": lambda self: _alias(self)}, None),
    "zeros_like": (("default", "out"), {"default": lambda self, **k: _lib().zeros_like(self, **k)},
                   None),
    "ones_like": (("default", "out"), {"default": lambda self, **k: _lib().ones_like(self, **k)},
                  None),
}

for _name in ("tanh", "exp", "neg", "sqrt", "sin", "cos"):
    _TABLE[_name] = (("default", "out", "int", "float", "complex", "Scalar"),
                     {"default": (lambda name: lambda self: getattr(_lib(), name)(self))(_name)},
                     None)


class OpOverload:
    """One overload of an ATen operator (``aten.add.Tensor``)."""

    def __init__(self, packet: "OpOverloadPacket", overload: str, function):
        self.overloadpacket = packet
        self._overloadname = overload
        self._function = function
        self.__name__ = f"{packet.__name__}.{overload}"

    def name(self) -> str:
        base = self.overloadpacket._qualified_op_name
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def __repr__(self) -> str:
        return (f"<OpOverload(op='aten.{self.overloadpacket.__name__}', "
                f"overload='{self._overloadname}')>")

    def __str__(self) -> str:
        return f"aten.{self.overloadpacket.__name__}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        if self._function is None:
            raise NotImplementedError(f"leafgrad has no implementation of {self}")
        return self._function(*args, **kwargs)


class OpOverloadPacket:
    """An ATen operator with its overloads (``aten.add``); calling it calls the op."""

    def __init__(self, name: str, overloads: tuple, functions: dict, call):
        self.__name__ = name
        self._qualified_op_name = f"aten::{name}"
        self._overload_names = overloads
        self._functions = functions
        self._call = call if call is not None else functions.get(overloads[0])

    def overloads(self) -> list:
        return list(self._overload_names)

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__") or overload not in self._overload_names:
            raise AttributeError(f"The underlying op of 'aten.{self.__name__}' has no overload "
                                 f"name '{overload}'")
        found = OpOverload(self, overload, self._functions.get(overload))
        self.__dict__[overload] = found
        return found

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"

    def __str__(self) -> str:
        return f"aten.{self.__name__}"

    def __call__(self, *args, **kwargs):
        if self._call is None:
            raise NotImplementedError(f"leafgrad has no implementation of {self}")
        return self._call(*args, **kwargs)


class _OpNamespace:
    """``ops.aten``: operator packets by name."""

    def __init__(self, name: str):
        self.name = name

    def __getattr__(self, op: str) -> OpOverloadPacket:
        entry = _TABLE.get(op)
        if entry is None or op.startswith("__"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")
        packet = OpOverloadPacket(op, *entry)
        self.__dict__[op] = packet
        return packet

    def __repr__(self) -> str:
        return f"<module 'leafgrad.ops.{self.name}' from 'leafgrad.ops'>"


aten = _OpNamespace("aten")
