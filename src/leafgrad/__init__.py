"""leafgrad: PyTorch's autograd, readable, in pure Python on NumPy.

>>> import leafgrad as torch
>>> x = torch.tensor([2.], requires_grad=True)
>>> y = x * x + 1
>>> y.backward()
>>> x.grad
tensor([4.])
"""

from __future__ import annotations

from .torch_version import TorchVersion as _TorchVersion

# the API version leafgrad implements, as torch's CPU build prints it (torch_version.py)
__version__ = _TorchVersion("2.13.0+cpu")
__leafgrad_version__ = "0.1.0"  # leafgrad's own release (pyproject.toml)

from ._dtype import (  # noqa: F401 - torch's names
    bool, double, dtype, float, float16, float32, float64, get_default_dtype, half, int, int8,
    int16, int32, int64, long, public_promote_types as promote_types,
    result_type as _result_type, set_default_dtype, short, uint8, uint16, uint32, uint64,
    public_can_cast as can_cast, bfloat16,
)
from ._device import device
from ._layouts import (  # noqa: F401 - torch's names
    _mkldnn, jagged, layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided)
from ._memory_format import (  # noqa: F401 - torch's names
    channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format)
from .tensor import Size, Tensor
from .autograd.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)
from .autograd.anomaly_mode import (  # noqa: F401 - torch's names
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled,
)
from ._creation import (
    arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace, normal,
    ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm, tensor,
    zeros, zeros_like,
)
from ._functions import *  # noqa: F403 - the torch.<op> namespace, listed in _functions.__all__
from ._functions_math import *  # noqa: F403
from ._functions_reductions import *  # noqa: F403
from ._functions_shape import *  # noqa: F403
from ._functions_linalg import *  # noqa: F403
from ._functions_complex import *  # noqa: F403
from ._printing import set_printoptions
from ._info import *  # noqa: F403 - constants, finfo/iinfo, thread and determinism settings
from ._legacy import *  # noqa: F403 - FloatTensor(...) and the other legacy constructors
from ._functions_random import *  # noqa: F403 - poisson, binomial
from ._storage import TypedStorage, UntypedStorage  # noqa: F401 - t.storage()'s types
from ._storage import LEGACY_STORAGES as _LEGACY_STORAGES  # noqa: E402

globals().update(_LEGACY_STORAGES)  # FloatStorage, LongStorage, ... (torch's legacy classes)
Storage = _LEGACY_STORAGES["FloatStorage"]  # (torch.Storage is torch.FloatStorage)
from . import storage  # noqa: F401,E402 - torch.storage
from . import _C  # noqa: F401,E402 - torch._C.Generator
from . import _tensor_str  # noqa: F401,E402 - torch._tensor_str (PRINT_OPTS, _Formatter)
from ._functions_linalg_more import *  # noqa: F403 - cholesky_solve, lu_unpack, qr, ...
from ._rng import Generator, default_generator, initial_seed, manual_seed, seed
from . import autograd, func, linalg, nn, ops, optim, utils  # noqa: E402
from .func import vmap  # noqa: E402 - torch.vmap
from .serialization import load, save  # noqa: E402
from ._functions_extra import *  # noqa: F403,E402 - torch's top-level aliases and extras
from ._functions_inplace import *  # noqa: F403,E402 - torch.sin_(x) and friends
from ._functions_math_extra import *  # noqa: F403,E402 - distances, special functions
from ._functions_misc import *  # noqa: F403,E402 - matrix/scatter/elementwise extras
from ._functions_composites import *  # noqa: F403,E402 - diff, splits, trapezoid, ...
from ._foreach import *  # noqa: F403,E402 - torch._foreach_add and the other list ops
from ._functions_nn_aliases import *  # noqa: F403,E402 - torch.kl_div(...) and friends
from ._functions_stats import *  # noqa: F403,E402 - cummax, quantile, cov, histogram, ...
from ._functions_copies import *  # noqa: F403,E402 - permute_copy and the other view copies
from ._functions_more import *  # noqa: F403,E402 - adjoint, fill, constant_pad_nd, ...
from ._asarray import *  # noqa: F403,E402 - asarray, frombuffer
from ._functions_native import *  # noqa: F403,E402 - native_layer_norm, cholesky, convolution, ...
from . import accelerator, backends, cuda, library, profiler, random  # noqa: E402
from ._control_flow import cond, while_loop  # noqa: E402,F401 - torch.cond, torch.while_loop
from . import amp, distributions, testing  # noqa: E402 - torch.amp, .distributions, .testing
from .amp import GradScaler  # noqa: E402 - torch.GradScaler (torch.amp's, re-exported)
from .amp.autocast_mode import (  # noqa: E402 - torch's autocast names
    autocast, autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache,
    get_autocast_dtype, is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled,
    set_autocast_dtype, set_autocast_enabled,
)
from . import viz  # noqa: E402 - leafgrad's own: graph pictures (not in torch)
from . import special  # noqa: E402 - torch.special
from . import sparse  # noqa: E402 - torch.sparse: COO tensors
from .sparse import sparse_coo_tensor, spmm  # noqa: E402,F401 - torch.sparse_coo_tensor
from . import fft  # noqa: E402 - torch.fft
from . import jit  # noqa: E402 - torch.jit (scripting and tracing run as Python)
from . import cpu, distributed, mps, mtia, multiprocessing, version, xpu  # noqa: E402
# torch.__future__ (module conversion switches); the file has another name, since one named
# __future__.py would replace the standard library's when Python runs in this directory
from . import _future_flags as __future__  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".__future__"] = __future__
del _sys
from ._windows import *  # noqa: F403,E402 - hann_window and the other window functions
from ._stft import istft, stft  # noqa: E402 - torch.stft, torch.istft
from ._compile.api import compile  # noqa: E402 - torch.compile: capture and replay
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402 - torch.from_dlpack
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402 - torch.svd_lowrank, .pca_lowrank
from ._api_extra import *  # noqa: F403,E402 - OutOfMemoryError, is_storage, get_device_module, ...
from ._sym import *  # noqa: F403,E402 - sym_int, sym_max, ..., norm_except_dim, is_distributed
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402
from . import hub  # noqa: E402 - torch.hub: checkpoints from URLs, hubconf.py entry points
from . import signal  # noqa: E402 - torch.signal.windows
from . import compiler  # noqa: E402 - torch.compiler: is_compiling, disable, set_stance, reset
from . import _dynamo  # noqa: E402 - torch._dynamo: reset, disable, config, explain, ...
from ._numpy_aliases import add_aliases as _add_aliases, add_method_aliases as _add_methods

# x.sum(axis=0, keepdims=True) and torch.mean(x, axis=1) work, as in torch
_add_methods(Tensor)
_add_aliases(globals(), [n for n in dir() if not n.startswith("_")])
del _add_aliases, _add_methods
from . import functional, types  # noqa: E402 - torch.functional (after the aliases), torch.types


def get_rng_state() -> Tensor:
    """The default generator's state as a uint8 tensor (torch's byte layout)."""
    from . import _rng as _random
    from .tensor import _wrap

    return _wrap(_random.get_rng_state())


def set_rng_state(new_state) -> None:
    from . import _rng as _random

    _random.set_rng_state(new_state._data if isinstance(new_state, Tensor) else new_state)


from . import _argparse as _parse  # noqa: E402


@_parse.parsed("bernoulli")
def bernoulli(input, p=_parse.NOT_GIVEN, *, generator=None) -> Tensor:
    """0/1 draws with probabilities ``input`` (the same stream as torch for the same seed)."""
    from . import _rng as _random
    from .tensor import _wrap

    if p is _parse.NOT_GIVEN:
        p = None
    else:  # (a C double: a tensor only 0-d and not requiring grad; no None)
        p, = _parse.fill_doubles("bernoulli", p)
    probabilities = input._data if p is None else p
    return _wrap(_random.bernoulli(probabilities, tuple(input.shape), input._data.dtype,
                                   generator=generator))


def result_type(tensor1, tensor2) -> dtype:
    """The dtype torch computes ``tensor1 op tensor2`` in (Python numbers are weak)."""
    return _result_type(tensor1, tensor2)


from . import overrides  # noqa: E402, F401 - the __torch_function__ protocol


def _assert(condition, message):
    """torch._assert: Python's assert as a function symbolic tracing records (a proxy
    condition dispatches through ``__torch_function__``)."""
    if type(condition) is not Tensor and overrides.has_torch_function((condition,)):
        return overrides.handle_torch_function(_assert, (condition,), condition, message)
    assert condition, message


def __getattr__(name: str):
    """``leafgrad.fx`` (torch.fx), imported on first use: no import cost for programs that
    do not trace."""
    if name == "fx":
        import importlib

        return importlib.import_module(".fx", __name__)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def _freeze_import_state() -> None:
    """Note: frozen import state. Importing leafgrad leaves ~44,000 objects that the cyclic
    garbage collector tracks (modules, classes, functions, op tables), alive until the process
    ends. A recorded graph allocates ~4 tracked objects per op, and each full collection it
    sets off walked all of them again. They are moved once to the collector's permanent
    generation, which collections skip; reference counting still frees any of them that dies.
    In-process A/B of the 4-op chain (benchmarks/bench_chain.py's, 1 element, min of 10
    alternating rounds): 2,000 ops fwd+bwd 21.7 -> 20.1 us/op; 20,000 ops, forward 18.4 -> 11.0
    us/op. (A full collection first would free ~5 objects of the import's garbage for ~20 ms;
    it is skipped.) ``LEAFGRAD_GC_FREEZE=0`` turns this off; ``gc.unfreeze()`` undoes it (and
    thaws what the program made before importing leafgrad, which is frozen too: a reference
    cycle among those objects is collected only after that)."""
    import gc
    import os

    if os.environ.get("LEAFGRAD_GC_FREEZE", "1") != "0" and gc.isenabled():
        gc.freeze()


_freeze_import_state()
