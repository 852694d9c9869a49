"""Convolution weights moved to another memory format (``channels_last`` and back), as
``torch.nn.utils.convert_conv2d_weight_memory_format``: only the weights of (transposed)
convolutions change, recursively through a module's children; the module is returned."""

from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        # a copy in the new layout, set as the weight's data (the Parameter object stays)
        data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = data.resize_(data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every ``Conv2d``/``ConvTranspose2d`` weight in ``module`` the ``memory_format``
    (e.g. ``torch.channels_last``); returns ``module``."""
    from ..modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give every ``Conv3d``/``ConvTranspose3d`` weight in ``module`` the ``memory_format``
    (e.g. ``torch.channels_last_3d``); returns ``module``."""
    from ..modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
