"""Lazy modules: parameters whose shapes come from the first input.

``LazyModuleMixin`` holds ``UninitializedParameter``/``UninitializedBuffer`` entries until the
first call, where a forward pre-hook runs ``initialize_parameters(input)``: the entries are
materialised, the layer's own ``reset_parameters`` initialises them (so a seeded lazy layer
gets the numbers its eager class would have drawn at construction), and the module becomes its
eager class (``LazyLinear`` -> ``Linear``). ``load_state_dict`` materialises them to the loaded
shapes instead (after every check has passed; see Module._load_from_state_dict).
"""

from __future__ import annotations

import itertools

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d,
                            InstanceNorm2d, InstanceNorm3d, _BatchNorm, _InstanceNorm,
                            _NormBase)

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Infers parameter shapes at the first forward (see the module docstring)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(value) for value in
                   itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialised by load_state_dict
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    _spatial = 1

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            with no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._spatial + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: "
                f"torch.Size({list(input.shape)})")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


def _lazy_conv(eager: type, spatial: int, transposed: bool) -> type:
    """``Lazy<eager>``: the eager conv's arguments without ``in_channels``."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, bias=True,
                 device=None, dtype=None, **options):
        names = (("output_padding", "groups", "bias", "dilation", "padding_mode") if transposed
                 else ("dilation", "groups", "bias", "padding_mode"))
        given = dict(zip(names, rest))
        if "bias" in given:
            bias = given.pop("bias")
        given.update(options)
        eager.__init__(self, 0, 0, kernel_size, stride, padding, bias=False, device=device,
                       dtype=dtype, **given)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def init_with_hook(self, *args, **kwargs):
        __init__(self, *args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    name = "Lazy" + eager.__name__
    return type(name, (_LazyConvXdMixin, eager), {
        "__init__": init_with_hook, "cls_to_become": eager, "_spatial": spatial,
        "__doc__": f"``{eager.__name__}`` whose ``in_channels`` comes from the first input.",
        "__module__": __name__, "__qualname__": name})


LazyConv1d = _lazy_conv(Conv1d, 1, False)
LazyConv2d = _lazy_conv(Conv2d, 2, False)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1, True)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2, True)
LazyConv3d = _lazy_conv(Conv3d, 3, False)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3, True)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True) -> None:
        from ... import int64, tensor

        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(eager: type, base: type) -> type:
    name = "Lazy" + eager.__name__
    return type(name, (_LazyNormBase, base), {
        "cls_to_become": eager, "_check_input_dim": eager._check_input_dim,
        **({"_batched_dims": eager._batched_dims} if hasattr(eager, "_batched_dims") else {}),
        "__doc__": f"``{eager.__name__}`` whose ``num_features`` comes from the first input.",
        "__module__": __name__, "__qualname__": name})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, _BatchNorm)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, _BatchNorm)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, _BatchNorm)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, _InstanceNorm)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, _InstanceNorm)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, _InstanceNorm)
