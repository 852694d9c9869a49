"""``nn.utils``: gradient clipping, flattening parameters to one vector, batch-norm fusion,
``skip_init`` and the hook-based ``weight_norm``."""

from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from . import rnn  # noqa: E402 - nn.utils.rnn, as torch exposes it
from .weight_norm import remove_weight_norm, weight_norm
from . import parametrize, parametrizations, stateless  # noqa: E402 - torch's submodules
from .spectral_norm import remove_spectral_norm, spectral_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init",
           "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm",
           "parametrize", "parametrizations", "stateless", "convert_conv2d_weight_memory_format",
           "convert_conv3d_weight_memory_format"]
