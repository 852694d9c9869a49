"""torch.version, torch.cpu/xpu/mps/mtia, torch.distributed, torch.multiprocessing,
nn.DataParallel, nn.attention and torch.utils.hooks against torch 2.13 (CPU build)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        return ("ok", repr(call()).replace("leafgrad.", "torch."))
    except Exception as error:
        return ("error", type(error).__name__, str(error).splitlines()[0])


CALLS = {
    "version.cuda": lambda lib: lib.version.cuda, "version.hip": lambda lib: lib.version.hip,
    "version.debug": lambda lib: lib.version.debug,
    "version is __version__": lambda lib: lib.version.__version__ == lib.__version__,
    "cpu.is_available": lambda lib: lib.cpu.is_available(),
    "cpu.device_count": lambda lib: lib.cpu.device_count(),
    "cpu.current_device": lambda lib: lib.cpu.current_device(),
    "cpu.synchronize": lambda lib: lib.cpu.synchronize(),
    "cpu.is_initialized": lambda lib: lib.cpu.is_initialized(),
    "xpu.is_available": lambda lib: lib.xpu.is_available(),
    "xpu.device_count": lambda lib: lib.xpu.device_count(),
    "xpu.current_device": lambda lib: lib.xpu.current_device(),
    "xpu.synchronize": lambda lib: lib.xpu.synchronize(),
    "xpu.manual_seed": lambda lib: lib.xpu.manual_seed(0),
    "mps.is_available": lambda lib: lib.mps.is_available(),
    "mps.device_count": lambda lib: lib.mps.device_count(),
    "mps.synchronize": lambda lib: lib.mps.synchronize(),
    "mps.empty_cache": lambda lib: lib.mps.empty_cache(),
    "mtia.is_available": lambda lib: lib.mtia.is_available(),
    "mtia.current_device": lambda lib: lib.mtia.current_device(),
    "mtia.empty_cache": lambda lib: lib.mtia.empty_cache(),
    "distributed.is_initialized": lambda lib: lib.distributed.is_initialized(),
    "distributed.get_rank": lambda lib: lib.distributed.get_rank(),
    "distributed.get_world_size": lambda lib: lib.distributed.get_world_size(),
    "multiprocessing strategies": lambda lib: sorted(
        lib.multiprocessing.get_all_sharing_strategies()),
    "multiprocessing strategy": lambda lib: lib.multiprocessing.get_sharing_strategy(),
    "SDPBackend members": lambda lib: [(name, member.value) for name, member
                                       in lib.nn.attention.SDPBackend.__members__.items()],
    "SDPBackend repr": lambda lib: lib.nn.attention.SDPBackend.FLASH_ATTENTION,
    "sdpa_kernel of a string": lambda lib: lib.nn.attention.sdpa_kernel("math").__enter__(),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_as_torch(name):
    assert _outcome(lambda: CALLS[name](leafgrad)) == _outcome(lambda: CALLS[name](torch))


def test_distributed_is_not_available():
    """torch's CPU wheel has the distributed package; leafgrad runs in one process and says
    so (code guarded by is_available() takes its single-process path)."""
    assert leafgrad.distributed.is_available() is False
    with pytest.raises(RuntimeError, match="no distributed backend"):
        leafgrad.distributed.init_process_group("gloo")


@pytest.mark.parametrize("device_ids", [None, [0]])
def test_data_parallel_as_torch(device_ids):
    seen = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        inner = lib.nn.Linear(3, 2)
        model = lib.nn.DataParallel(inner, device_ids=device_ids)
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
        out = model(x)
        out.sum().backward()
        other = lib.nn.DataParallel(lib.nn.Linear(3, 2))
        seen.append((repr(model), model.device_ids, list(model.state_dict()),
                     repr(other.load_state_dict(model.state_dict())), out.tolist(),
                     inner.weight.grad.tolist(), type(out.grad_fn).__name__,
                     model.module is inner))
    assert seen[0] == seen[1]


def test_sdpa_kernel_as_torch():
    seen = []
    for lib in (leafgrad, torch):
        from_attention = lib.nn.attention
        q = lib.tensor(np.linspace(-1, 1, 24).reshape(1, 2, 3, 4).astype(np.float32))
        with from_attention.sdpa_kernel([from_attention.SDPBackend.MATH,
                                         from_attention.SDPBackend.MATH]) as value:
            out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        seen.append((value, np.round(out.numpy(), 6).tolist()))
    assert seen[0] == seen[1]


def test_hook_handles_are_torch_utils_hooks_removable_handles():
    for lib in (leafgrad, torch):
        t = lib.ones(2, requires_grad=True)
        tensor_handle = t.register_hook(lambda g: g * 2)
        module_handle = lib.nn.Linear(1, 1).register_forward_hook(lambda *args: None)
        assert isinstance(tensor_handle, lib.utils.hooks.RemovableHandle)
        assert isinstance(module_handle, lib.utils.hooks.RemovableHandle)
        assert isinstance(tensor_handle.id, int)
        (t * 1).sum().backward()
        assert t.grad.tolist() == [2.0, 2.0]
        tensor_handle.remove()


# torch.cuda as a CPU-only torch answers it: memory statistics of an allocator that never
# started, the runtime's refusals, context managers that change nothing for -1 / CPU tensors,
# the legacy CUDA tensor types (named, never constructed), nvtx's refusal
_CUDA_CALLS = [
    "memory_allocated()", "max_memory_allocated()", "memory_reserved()", "max_memory_reserved()",
    "memory_cached()", "max_memory_cached()", "memory_stats()", "memory_stats_as_nested_dict()",
    "host_memory_stats()", "memory_allocated(0)", "reset_peak_memory_stats()",
    "reset_max_memory_allocated()", "reset_max_memory_cached()",
    "reset_accumulated_memory_stats()", "memory_summary()", "memory_snapshot()",
    "mem_get_info()", "list_gpu_processes()", "set_device(0)", "current_stream()",
    "default_stream()", "get_rng_state()", "get_rng_state_all()",
    "set_rng_state(lib.ByteTensor(8))", "set_rng_state_all([])", "initial_seed()", "init()",
    "ipc_collect()", "is_tf32_supported()", "get_arch_list()", "get_gencode_flags()",
    "get_device_capability()", "get_device_properties(0)", "can_device_access_peer(0, 1)",
    "Stream()", "Event()", "FloatTensor(2)", "LongTensor([1])", "DoubleTensor()",
    "FloatTensor.dtype", "FloatTensor.is_cuda", "has_half", "has_magma", "default_generators",
    "set_per_process_memory_fraction(0.5)", "get_per_process_memory_fraction()",
    "set_sync_debug_mode(0)", "get_sync_debug_mode()", "caching_allocator_alloc(10)",
    "nvtx.range_push('a')", "nvtx.range_pop()", "device(0).idx", "device('cuda:1').idx",
    "device('cpu')", "is_available()", "device_count()",
]


def test_cuda_namespace_as_a_cpu_only_torch():
    import warnings

    failures = []
    for call in _CUDA_CALLS:
        seen = []
        for lib in (torch, leafgrad):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                outcome = _outcome(lambda: eval(f"lib.cuda.{call}", {"lib": lib}))
            seen.append((outcome, [(w.category, str(w.message)) for w in caught]))
        if seen[0] != seen[1]:
            failures.append((call, seen))
    assert not failures, failures
    for lib in (torch, leafgrad):
        assert not isinstance(lib.zeros(1), lib.cuda.FloatTensor)


@pytest.mark.parametrize("code", [
    "with lib.cuda.device(-1): pass", "with lib.cuda.device(0): pass",
    "with lib.cuda.device('cuda:0'): pass", "with lib.cuda.device(None): pass",
    "with lib.cuda.device_of(lib.zeros(1)): pass", "with lib.cuda.stream(None): pass",
    "with lib.cuda.nvtx.range('a'): pass",
])
def test_cuda_context_managers_as_a_cpu_only_torch(code):
    def run(lib):
        exec(code, {"lib": lib})
        return None

    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch))
