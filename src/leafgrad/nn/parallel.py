"""``torch.nn.parallel``: ``DataParallel`` as torch runs it without an accelerator.

With no GPU, torch's DataParallel keeps the module, sets ``device_ids`` to ``[]`` and calls the
module directly; leafgrad's does the same (state dict keys gain the ``module.`` prefix, as in
torch).
"""

from __future__ import annotations

from .modules.module import Module

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]


class DataParallel(Module):
    """Runs ``module`` in this process (there are no devices to split the batch over)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """torch.nn.parallel.data_parallel without devices: ``module(*inputs, **module_kwargs)``."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))


class DistributedDataParallel(Module):
    """torch's DDP needs an initialized process group, which leafgrad never has (it trains in
    one process): constructing one raises torch's error for a missing group. Scripts that
    import it and take their single-process path (``if ddp: ...``) run."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False, **kwargs):
        from ..distributed import _NO_GROUP

        raise ValueError(_NO_GROUP)
