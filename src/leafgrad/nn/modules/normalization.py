"""Normalisation layers: ``BatchNorm1d/2d/3d`` (running statistics), ``InstanceNorm1d/2d/3d``,
``LayerNorm``, ``RMSNorm``, ``GroupNorm``, ``LocalResponseNorm``."""

from __future__ import annotations

import numbers
import warnings

from ..._creation import empty, ones, tensor, zeros
from ... import _dtype
from ...tensor import Tensor
from .. import functional as F
from .._functional_batchnorm import batch_norm_impl
from ..._compile.state import state as _capture
from .. import init
from ..parameter import Parameter
from ...autograd.function import Function
from .module import Module
from ...overrides import _state, _wrapped

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


class _NormBase(Module):
    """Parameters, running statistics and checkpoint rules shared by batch and instance norm."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}").format(
                    **self.__dict__, use_bias=self.bias is not None)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints from before num_batches_tracked existed
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked
                                   is not None else tensor(0, dtype=_dtype.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    """Batch statistics in training (updating the running ones), running ones in eval."""

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        batches = None
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average: 1 / num_batches_tracked,
                batches = self.num_batches_tracked  # read by the running-statistics update
        training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats

        if _wrapped.methods_wrapped and (_state.modes or type(input) is not Tensor) \
                and not _capture.active and not _state.all_disabled:
            # a __torch_function__ mode is on or the input is a tensor subclass: the call it
            # sees is F.batch_norm's, as torch's module makes it (the factor
            # 1 / num_batches_tracked as a number, as torch computes it). (Not while
            # leafgrad.compile captures: the kernel reads that factor from the tensor, and a
            # number made from it would be a guard on its value, changed every step.)
            momentum = factor if batches is None else 1.0 / float(batches)
            return F.batch_norm(input, self.running_mean if use_stats else None,
                                self.running_var if use_stats else None, self.weight, self.bias,
                                training, momentum, self.eps)
        return batch_norm_impl(input, self.running_mean if use_stats else None,
                               self.running_var if use_stats else None, self.weight, self.bias,
                               training, factor, self.eps, batches)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) input."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose statistics are synchronised across the processes of a
    distributed job. leafgrad runs in one process (``torch.distributed`` is never initialised),
    so it normalises as the BatchNorm layers do, over any input of 2 or more dims; what it adds
    is ``convert_sync_batchnorm`` for scripts written for distributed training."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm layer in it replaced by a SyncBatchNorm sharing its
        parameters and running statistics (a new layer when ``module`` itself is one)."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group,
                            bias=module.bias is not None)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


class _InstanceNorm(_NormBase):
    """Per-sample, per-channel normalisation; by default no affine and no running stats."""

    _batched_dims = 3

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        dims = self._batched_dims
        if input.dim() not in (dims - 1, dims):
            raise ValueError(f"expected {dims - 1}D or {dims}D input (got {input.dim()}D input)")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            # checkpoints from before 0.4 kept running stats that are no longer tracked
            stale = [prefix + n for n in ("running_mean", "running_var")
                     if prefix + n in state_dict]
            if stale:
                klass = type(self).__name__
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {' and '.join(repr(k) for k in stale)} "
                    f"for {klass} with track_running_stats=False. If state_dict is a checkpoint "
                    f"saved before 0.4.0, this may be expected because {klass} does not track "
                    "running stats by default since 0.4.0. Please remove these keys from "
                    "state_dict. If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the "
                    f"documentation of {klass} for details."
                )
                for key in stale:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - (self._batched_dims - 1)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        unbatched = input.dim() == self._batched_dims - 1
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over (N, C, L) or (C, L) input."""


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or (C, H, W) input."""

    _batched_dims = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation over (N, C, D, H, W) or (C, D, H, W) input."""

    _batched_dims = 5


class LayerNorm(Module):
    """Normalises the last ``len(normalized_shape)`` dims; optional elementwise affine."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}").format(**self.__dict__, use_bias=self.bias is not None)


class GroupNorm(Module):
    """Normalises channels in ``num_groups`` groups; per-channel affine."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(empty(num_channels, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_channels, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


class RMSNorm(Module):
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims, with an
    optional elementwise scale (``eps=None``: the input dtype's machine epsilon)."""

    def __init__(self, normalized_shape, eps: float | None = None,
                 elementwise_affine: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, "
                "elementwise_affine={elementwise_affine}").format(**self.__dict__)


class LocalResponseNorm(Module):
    """Normalise each channel by the squares of ``size`` neighbouring channels (AlexNet)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class _CrossMapLRN2d(Function):
    """torch's legacy cross-channel LRN (nn/_functions.py), its operations in its order: the
    squares summed over a sliding window of channels by adding the next map and removing the
    previous one (with torch's ``c > pre_pad`` bound), ``scale = k + alpha / size * sum``,
    ``out = x * scale ** -beta``; the backward accumulates the ratio the same way."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):  # noqa: A002 - torch's name
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        channels = input.size(1)
        square = input.pow(2)
        scale = zeros(input.shape, dtype=input.dtype)
        pre_pad = int((size - 1) / 2 + 1)
        for c in range(min(pre_pad, channels)):
            scale[:, 0].add_(square[:, c])
        for c in range(1, channels):
            scale[:, c].copy_(scale[:, c - 1])
            if c < channels - pre_pad + 1:
                scale[:, c].add_(square[:, c + pre_pad - 1], alpha=1)
            if c > pre_pad:
                scale[:, c].add_(square[:, c - pre_pad], alpha=-1)
        scale.mul_(alpha / size).add_(k)
        ctx.scale = scale
        output = scale.pow(-beta).mul_(input)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        batch, channels, height, width = input.shape
        padded = zeros((channels + ctx.size - 1, height, width), dtype=input.dtype)
        ratio_value = 2 * ctx.alpha * ctx.beta / ctx.size
        inverse_pre_pad = int(ctx.size - (ctx.size - 1) / 2)
        grad_input = ctx.scale.pow(-ctx.beta).mul_(grad_output)
        center = padded.narrow(0, inverse_pre_pad, channels)
        for n in range(batch):
            center.copy_(grad_output[n] * output[n])
            center.div_(ctx.scale[n])
            accum = padded.narrow(0, 0, ctx.size - 1).sum(0)
            for c in range(channels):
                accum.add_(padded[c + ctx.size - 1])
                grad_input[n][c].addcmul_(input[n][c], accum, value=-ratio_value)
                accum.add_(padded[c], alpha=-1)
        return grad_input, None, None, None, None


_CrossMapLRN2d._backward_cls.__name__ = _CrossMapLRN2d._backward_cls.__qualname__ = \
    "CrossMapLRN2dBackward"  # (torch's Function is called CrossMapLRN2d)
_CrossMapLRN2d._backward_cls.__module__ = "leafgrad.autograd.function"


class CrossMapLRN2d(Module):
    """torch's legacy (Lua Torch) cross-channel local response normalisation for 4-d input."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - torch's name
        return _CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
