"""Random numbers that match PyTorch 2.13's CPU generator bit for bit, on NumPy.

``leafgrad.manual_seed(0); leafgrad.rand(3)`` gives the same float32 values as torch, and the
stream stays in step through any mix of ``rand``, ``randn``, ``randint``, ``randperm`` and
``bernoulli``. What torch does, as read from its 2.13 sources and machine code and checked
against it (tests/test_random.py):

- The engine is mt19937 seeded with ``init_genrand(seed mod 2**32)``; ``initial_seed()`` keeps all
  64 bits. NumPy's ``MT19937`` bit generator runs the same twist and tempering, so only the
  initial key is computed here; every draw is ``random_raw``. A 64-bit draw is two words, the
  first one high.
- float32/float16 uniforms use the low 24 bits of one word; float64 uniforms the low 53 bits of
  a 64-bit draw.
- ``normal_`` on 16 or more elements fills uniforms, then turns each block of 16 into normals
  with Box-Muller (element j pairs with j + 8); a ragged tail draws 16 fresh uniforms and
  rewrites the last 16 outputs. Fewer than 16 elements use a scalar Box-Muller in float64 that
  caches its second value in the generator (that cache is part of ``get_state``).
- float32 blocks on x86 CPUs with AVX2 use Cephes-style polynomial log/sincos on 8 lanes, which
  the compiler fused into FMAs; ``_fill16_avx2`` replays that instruction sequence exactly.
  float64 blocks call the C library's ``log`` and ``sincos``, reached here through ``math``.
- ``randint`` takes ``word % range`` (a 64-bit draw once range >= 2**28); ``randperm`` is a
  Fisher-Yates shuffle driven by ``word % (n - i)``; ``bernoulli`` compares a uniform to p,
  except ``bernoulli_(float)`` (dropout's) on Intel CPUs, which runs MKL's MCG31 generator.

See "Note: CPU capability" for the one place results depend on the machine, as torch's do.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import os
import platform
import secrets
import threading
import warnings

import numpy as np

from ._compile.state import state as _capture
from .autograd._vmap_state import check_draw, state as _vmap_state
from ._device import CPU
from . import _dtype
from .tensor import _wrap, Tensor
from ._argparse import typename

__all__ = [
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
    "set_rng_state", "uniform", "normal", "randint", "randperm", "bernoulli",
]

_STATE_N = 624  # mt19937 words
_DEFAULT_SEED = 67280421310721  # torch.Generator()'s seed (the default generator is random)
_STATE_BYTES = 5056  # sizeof(at::CPUGeneratorImplState)
_U64 = np.uint64


# -- Note: CPU capability -----------------------------------------------------------------------
# torch compiles its CPU kernels once per instruction set and picks one at start-up
# (ATEN_CPU_CAPABILITY overrides the choice). Two visible consequences for random numbers:
# - normal_ on float32: the AVX2 kernel (used on AVX2 and AVX-512 machines alike, torch never
#   dispatches normal_ to AVX-512) uses vectorised polynomial log/sincos; the default kernel calls
#   the C library's logf/sincosf/fmaf per element.
# - uniform_(a, b): the compiler fuses ``x * (b - a) + a`` into one FMA in the AVX2/AVX-512
#   builds, not in the x86 default build. (torch.rand's range [0, 1) is exact either way.)
# Both paths are replayed here and checked against torch's Linux x86-64 wheel (built by GCC) with
# ATEN_CPU_CAPABILITY forced to each. Not checked, for want of such machines: ARM builds (taken
# as "default" kernels with fused uniform_), and the Windows/macOS wheels, whose compilers may
# fuse fewer multiply-adds; there normal_/uniform_(a, b) may differ from torch in last bits.


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")


def _cpu_capability() -> str:
    """'avx2' where torch runs its AVX2 (or AVX-512) kernels, else 'default'."""
    if not _X86:
        return "default"
    requested = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if requested in ("avx2", "avx512"):
        return "avx2"  # torch trusts the variable without checking the CPU
    if requested == "default":
        return "default"
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as features
        except ImportError:
            return "default"
    return "avx2" if features.get("AVX2") and features.get("FMA3") else "default"


_CAPABILITY = _cpu_capability()
_FUSED_UNIFORM = _CAPABILITY == "avx2" or not _X86


# -- the generator ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _initial_key(seed32: int) -> np.ndarray:
    """mt19937's init_genrand key; cached because tests and training loops reseed often."""
    key = np.empty(_STATE_N, dtype=np.uint32)
    value = seed32
    key[0] = value
    for index in range(1, _STATE_N):
        value = (1812433253 * (value ^ (value >> 30)) + index) & 0xFFFFFFFF
        key[index] = value
    key.setflags(write=False)
    return key


def _temper(words: np.ndarray) -> np.ndarray:
    """mt19937's output tempering of raw state words (uint64 arrays holding 32-bit values)."""
    y = words.astype(_U64)
    y ^= y >> _U64(11)
    y ^= (y << _U64(7)) & _U64(0x9D2C5680)
    y ^= (y << _U64(15)) & _U64(0xEFC60000)
    y ^= y >> _U64(18)
    return y & _U64(0xFFFFFFFF)


def _check_seed(seed) -> int:
    """torch.Generator.manual_seed's argument rules; returns the seed as an unsigned 64-bit int."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = seed.__index__()
    if not -(2**63) <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return seed % 2**64


class Generator:
    """A CPU random number generator with torch.Generator's state, API and streams.

    >>> g = Generator().manual_seed(0)
    >>> uniform((2,), np.float32, generator=g)
    array([0.4962566, 0.7682218], dtype=float32)
    """

    __module__ = "leafgrad._C"  # as torch shows it: <class 'torch._C.Generator'>

    def __init__(self, device="cpu"):
        name = str(device)
        if name != "cpu":
            raise RuntimeError(f"leafgrad only has CPU generators, got device '{name}'")

        self.device = CPU
        # Note: one draw at a time. Every draw (a whole kernel call: uniform, normal, randint,
        # ...) and every state read/write holds this lock, as torch's kernels hold the
        # generator's mutex: draws from several threads interleave whole, so together they
        # are a permutation of the sequential stream's draws. Reentrant: a draw may call
        # another under it.
        self._lock = threading.RLock()
        self._bitgen = np.random.MT19937(0)
        self._reseed(_DEFAULT_SEED)

    def __repr__(self) -> str:
        return f"<leafgrad._C.Generator object at {id(self):#x}>"  # torch's class is in torch._C

    def __getstate__(self) -> dict:  # copies and pickles get a lock of their own
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    # state --------------------------------------------------------------------------------
    def _reseed(self, seed: int) -> None:
        if _capture.active:
            _capture_break("a generator was seeded during the capture (manual_seed, seed): a "
                           "replay would not seed it again")
        self._seed = seed
        self._load(_initial_key(seed & 0xFFFFFFFF), _STATE_N)
        self._exhausted_next = 0  # torch's ``next`` while no word is left: 0 right after seeding
        self._pending = None
        self._next_double = None  # Box-Muller's cached second value (scalar normal path)
        self._next_float = None  # torch has a float cache too; no kernel here fills it

    def _load(self, key: np.ndarray, pos: int) -> None:
        self._bitgen.state = {
            "bit_generator": "MT19937", "state": {"key": np.array(key, np.uint32), "pos": pos},
        }

    def manual_seed(self, seed) -> "Generator":
        """Seed like torch: ints in [-2**63, 2**64) (negatives wrap); returns self."""
        seed = _check_seed(seed)
        with self._lock:
            self._reseed(seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed."""
        new_seed = secrets.randbits(64)
        with self._lock:
            self._reseed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        """The seed last set (as an unsigned 64-bit integer)."""
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor of 5056 bytes laid out exactly like torch's
        ``get_state()``; states from torch load here and the other way round."""
        return _wrap(self.state_array())

    def state_array(self) -> np.ndarray:
        """``get_state`` as a NumPy array (for leafgrad's own save/restore code)."""
        with self._lock:
            return self._get_state()

    def _get_state(self) -> np.ndarray:
        state = self._bitgen.state["state"]
        if self._pending is not None:
            left, next_ = len(self._pending[0]) + 1, self._pending[1]
        elif state["pos"] >= _STATE_N:
            left, next_ = 1, self._exhausted_next
        else:
            left, next_ = _STATE_N + 1 - state["pos"], state["pos"]
        raw = np.zeros(_STATE_BYTES, dtype=np.uint8)
        raw[0:8] = np.frombuffer(np.uint64(self._seed).tobytes(), np.uint8)
        raw[8:12] = np.frombuffer(np.int32(left).tobytes(), np.uint8)
        raw[12:16] = np.frombuffer(np.int32(1).tobytes(), np.uint8)  # seeded
        raw[16:24] = np.frombuffer(np.uint64(next_).tobytes(), np.uint8)
        raw[24:5016] = np.frombuffer(state["key"].astype("<u8").tobytes(), np.uint8)
        if self._next_double is not None:  # torch keeps only normal_y, and the valid flag
            raw[5024:5032] = np.frombuffer(np.float64(self._next_double).tobytes(), np.uint8)
            raw[5040] = 1
        if self._next_float is not None:
            raw[5048:5052] = np.frombuffer(np.float32(self._next_float).tobytes(), np.uint8)
            raw[5052] = 1
        return raw

    def set_state(self, new_state) -> "Generator":
        """Load a state from ``get_state`` (this class's or torch's); returns self."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {typename(new_state)}")
        if new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() == _STATE_BYTES and not new_state.is_contiguous():
            raise RuntimeError("RNG state must be contiguous")
        return self.load_state_array(new_state._data)

    def load_state_array(self, new_state) -> "Generator":
        """``set_state`` from a NumPy uint8 array (for leafgrad's own save/restore code)."""
        with self._lock:
            return self._set_state(new_state)

    def _set_state(self, new_state) -> "Generator":
        if _capture.active:
            _capture_break("a generator's state was set during the capture (set_rng_state, "
                           "set_state): a replay would not set it again")
        raw = np.asarray(new_state)
        if raw.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(raw).reshape(-1)
        if raw.size != _STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input "
                f"RNG state size to be {raw.size}")
        seed = int(raw[0:8].view("<u8")[0])
        left = int(raw[8:12].view("<i4")[0])
        seeded = int(raw[12:16].view("<i4")[0])
        next_ = int(raw[16:24].view("<u8")[0]) & 0xFFFFFFFF  # torch keeps 32 bits of it
        key = (raw[24:5016].view("<u8") & 0xFFFFFFFF).astype(np.uint32)
        if not (seeded != 0 and 0 < left <= _STATE_N and next_ <= _STATE_N):
            raise RuntimeError("Invalid mt19937 state")
        self._seed = seed
        self._pending = None
        if left == 1:
            self._load(key, _STATE_N)
            self._exhausted_next = next_
        elif left + next_ == _STATE_N + 1:
            self._load(key, next_)
        elif next_ + left - 1 <= _STATE_N:
            # Not a state torch produces itself, but it accepts it: it reads key[next:] for
            # left - 1 words, then twists. Replay that before handing over to NumPy.
            self._load(key, _STATE_N)
            self._pending = (_temper(key[next_:next_ + left - 1]), next_)
        else:
            raise RuntimeError(
                f"mt19937 state with left={left} and next={next_} would make torch read past "
                "its state array; leafgrad refuses it")
        self._next_double = float(raw[5024:5032].view("<f8")[0]) if raw[5040] else None
        self._next_float = float(raw[5048:5052].view("<f4")[0]) if raw[5052] else None
        return self

    # draws --------------------------------------------------------------------------------
    def _words(self, count: int) -> np.ndarray:
        """The next ``count`` 32-bit outputs of mt19937, as uint64."""
        if count <= 0:
            return np.empty(0, dtype=_U64)
        if _capture.active:  # recorded draws (registry.array_kernel) run with capture off
            _capture_break("random numbers were drawn outside a recorded draw (rand, randn, "
                           "dropout... are recorded): a replay would repeat them")
        if self._pending is not None:
            return self._pending_words(count)
        self._exhausted_next = _STATE_N
        return self._bitgen.random_raw(count)

    def _pending_words(self, count: int) -> np.ndarray:
        words, next_ = self._pending
        taken = words[:count]
        if count < len(words):
            self._pending = (words[count:], next_ + count)
            return taken
        self._pending = None
        self._exhausted_next = next_ + len(words)
        return np.concatenate([taken, self._words(count - len(words))])

    def _words64(self, count: int) -> np.ndarray:
        """The next ``count`` 64-bit draws (torch's random64: first word high)."""
        words = self._words(2 * count)
        return (words[0::2] << _U64(32)) | words[1::2]


def _capture_break(reason: str) -> None:
    """leafgrad.compile: a generator changed outside a recorded draw (any generator: the
    capture's own check compares only the default one's state); each reason once per capture."""
    tracer = _capture.tracer
    if tracer is None or threading.get_ident() != tracer.thread:
        return  # another thread's draw: not the captured function's
    seen = tracer.__dict__.setdefault("generator_breaks", set())
    if reason not in seen:
        seen.add(reason)
        tracer.broke(reason)


default_generator = Generator()
default_generator.seed()  # torch seeds its default generator from the OS at start-up


def manual_seed(seed) -> Generator:
    """Seed the default generator (``int(seed)`` first, as torch does); returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Reseed the default generator nondeterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> np.ndarray:
    """The default generator's state (5056 bytes, torch's layout)."""
    return default_generator.state_array()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state from ``get_rng_state``."""
    default_generator.load_state_array(new_state)


def _generator(generator) -> Generator:
    if _vmap_state.active:
        check_draw()  # vmap's randomness modes
    return default_generator if generator is None else generator


# -- exact floating-point helpers ---------------------------------------------------------------
# torch's compiled kernels use fused multiply-adds; NumPy has none, so they are emulated exactly.

_LOW29 = _U64(0x1FFFFFFF)
_HALF_LSB32 = _U64(0x10000000)


def _fma32(a, b, c) -> np.ndarray:
    """Single-rounded float32 ``a * b + c``.

    The float64 product of two float32 values is exact, so ``p + c`` in float64 is off the true
    sum by under half a float64 ulp. Rounding that to float32 can only go wrong when it lands
    exactly halfway between two float32 values; there the sign of the float64 error decides.
    """
    total = np.multiply(a, b, dtype=np.float64)
    total += c
    bits = total.view(_U64)
    ties = (bits & _LOW29) == _HALF_LSB32
    if ties.any():
        where = np.nonzero(ties)
        product = np.multiply(np.broadcast_to(a, total.shape)[where],
                              np.broadcast_to(b, total.shape)[where], dtype=np.float64)
        addend = np.broadcast_to(np.asarray(c, np.float64), total.shape)[where]
        sums = total[where]
        error = _two_sum_error(product, addend, sums)
        step = np.where(error == 0, 0, np.where((error > 0) == (sums > 0), 1, -1))
        bits[where] = (bits[where].astype(np.int64) + step).astype(_U64)
    return total.astype(np.float32)


_NO_ROWS = np.empty(0, dtype=np.intp)


class _Fma32Unchecked:
    """``_fma32`` without its tie check, for a kernel's sequence of multiply-adds on arrays of
    one shape: each float64 sum is kept in a row of one buffer, and ``ties()`` checks them all
    at once afterwards. Where it finds one (rare where the product has many significant bits: a
    float64 sum exactly halfway between two float32 values), the kernel is run again with
    ``_fma32`` on the rows concerned. Half the NumPy calls per FMA."""

    __slots__ = ("_sums", "_used")

    def __init__(self, count: int, shape):
        self._sums = np.empty((count,) + tuple(shape), dtype=np.float64)
        self._used = 0

    def __call__(self, a, b, c) -> np.ndarray:
        total = self._sums[self._used]
        self._used += 1
        np.multiply(a, b, out=total, dtype=np.float64)
        total += c
        return total.astype(np.float32)

    def tied_rows(self) -> np.ndarray:
        """Indices along the arrays' first axis where some FMA's float64 sum was a tie."""
        bits = self._sums[: self._used].view(_U64)
        tied = (bits & _LOW29) == _HALF_LSB32
        if not tied.any():
            return _NO_ROWS
        return np.flatnonzero(tied.reshape(self._used, bits.shape[1], -1).any(axis=(0, 2)))


def _two_sum_error(a, b, total):
    """Exact ``a + b - total`` where ``total`` is the rounded float sum (Knuth's TwoSum)."""
    b_virtual = total - a
    return (a - (total - b_virtual)) + (b - b_virtual)


def _split(a):
    """Veltkamp's split of float64 values into 26- and 27-bit halves."""
    t = a * 134217729.0  # 2**27 + 1
    high = t - (t - a)
    return high, a - high


def _fma64(a, b, c) -> np.ndarray:
    """Single-rounded float64 ``a * b + c`` (Boldo and Melquiond's emulation, round-to-odd).

    Exact away from overflow and underflow, which the uniform/normal kernels stay clear of.
    """
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    high = c + product
    high_error = _two_sum_error(c, product, high)
    inner = high_error + product_error
    inner_error = _two_sum_error(high_error, product_error, inner)
    # Round ``inner`` to odd: if inexact and its last bit is even, step towards the error.
    inner_bits = np.asarray(inner).view(_U64)
    even = (inner_bits & _U64(1)) == 0
    fix = even & (inner_error != 0)
    if np.any(fix):
        step = np.where((inner_error > 0) == (inner > 0), 1, -1)
        inner_bits = np.where(fix, (inner_bits.astype(np.int64) + step).astype(_U64), inner_bits)
        inner = inner_bits.view(np.float64)
    return high + inner


# -- uniform ------------------------------------------------------------------------------------

_TWO_POW_M24 = np.float32(2.0**-24)
_TWO_POW_M53 = 2.0**-53


def _uniform24(gen: Generator, count: int) -> np.ndarray:
    """float32 in [0, 1) from the low 24 bits of one word each."""
    return (gen._words(count) & _U64(0xFFFFFF)).astype(np.float32) * _TWO_POW_M24


def _uniform53(gen: Generator, count: int) -> np.ndarray:
    """float64 in [0, 1) from the low 53 bits of one 64-bit draw each."""
    return (gen._words64(count) & _U64(2**53 - 1)).astype(np.float64) * _TWO_POW_M53


def _format(x: float) -> str:
    """A double as C++'s ``ostream <<`` prints it (6 significant digits)."""
    return "%g" % x


_TYPE_NAMES = {  # at::toString(ScalarType), as in torch's messages
    "float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
    "int32": "Int", "int64": "Long", "uint8": "Byte", "uint16": "UInt16", "uint32": "UInt32",
    "uint64": "UInt64", "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
    "bfloat16": "BFloat16",
}
_CPP_NAMES = {  # the C++ type names torch prints via TypeMeta on Linux
    "float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
    "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
    "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int",
    "bool": "bool", "bfloat16": "c10::BFloat16",
}


def _is_bfloat16(dtype: np.dtype) -> bool:
    """ml_dtypes' bfloat16 (kind "V"): drawn as float16 is, in float32 then rounded."""
    return dtype.kind == "V" and dtype.name == "bfloat16"


def _finfo(dtype: np.dtype):
    if _is_bfloat16(dtype):
        import ml_dtypes

        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def _wide_unsigned(np_dtype) -> bool:
    """uint16/32/64 (Note: wide unsigned support, ops/_uint.py)."""
    kind = np.dtype(np_dtype)
    return kind.kind == "u" and kind.itemsize > 1


def _not_implemented(kernel: str, dtype: np.dtype):
    return NotImplementedError(
        f'"{kernel}" not implemented for \'{_TYPE_NAMES.get(dtype.name, dtype.name)}\'')


def _real_dtype(dtype: np.dtype) -> np.dtype:
    """Complex tensors are filled through their real view, as torch does."""
    return np.dtype(np.float32 if dtype == np.complex64 else np.float64)


def uniform(shape, np_dtype, low=0.0, high=1.0, generator=None) -> np.ndarray:
    """``torch.rand`` / ``Tensor.uniform_(low, high)``: values in [low, high) of ``np_dtype``.

    >>> _ = manual_seed(0); uniform((3,), np.float32)
    array([0.4962566 , 0.7682218 , 0.08847743], dtype=float32)
    """
    dtype = np.dtype(np_dtype)
    shape = tuple(shape)
    if dtype.kind == "c":
        real = uniform(shape + (2,), _real_dtype(dtype), low, high, generator)
        return real.view(dtype).reshape(shape)
    if dtype.kind != "f" and not _is_bfloat16(dtype):
        raise _not_implemented("check_uniform_bounds", dtype)
    low, high = float(low), float(high)
    if low == 0.0 and high == 1.0 and (dtype == np.float32 or dtype == np.float64):
        # torch.rand: the draws themselves (in range, never 1, no scaling to round)
        count = math.prod(shape)
        draw = _uniform24 if dtype == np.float32 else _uniform53
        return draw(_generator(generator), count).reshape(shape)
    finfo = _finfo(dtype)
    for value, name in ((low, "from"), (high, "to")):
        if not float(finfo.min) <= value <= float(finfo.max):
            raise RuntimeError(f"{name} is out of bounds for {_CPP_NAMES[dtype.name]}")
    if not low <= high:
        raise RuntimeError(
            "uniform_ expects to return a [from, to) range, but found "
            f"from={_format(low)} > to={_format(high)}")
    if not high - low <= float(finfo.max):
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_TYPE_NAMES[dtype.name]}>::max(), "
            f"but found to={_format(high)} and from={_format(low)} which result in to-from to "
            "exceed the limit")
    count = math.prod(shape)
    gen = _generator(generator)
    if dtype == np.float64:
        x = _uniform53(gen, count)
        values = _scale(x, np.float64(high) - np.float64(low), np.float64(low), _fma64)
        result, top, bottom = values, np.float64(high), np.float64(low)
    else:
        # float16 computes in float32 ("opmath"), then rounds; torch's double -> Half
        # conversions go through float, and so do these.
        x = _uniform24(gen, count)
        low32, high32 = np.float32(low), np.float32(high)
        values = _scale(x, high32 - low32, low32, _fma32)
        result = values.astype(dtype)
        top, bottom = np.float32(high).astype(dtype), np.float32(low).astype(dtype)
    # torch maps a value that rounded up to ``high`` back to ``low``.
    result = np.where(result == top, bottom, result).astype(dtype)
    return result.reshape(shape)


uniform.draws_random = True  # leafgrad.compile: a kernel drawing these is replayed


def _scale(x, width, low, fma):
    """torch's ``x * (to - from) + from``, fused or not as the compiled kernel is."""
    if width == 1 and low == 0:
        return x
    if _FUSED_UNIFORM:
        return fma(x, width, low)
    return x * width + low


# -- normal -------------------------------------------------------------------------------------


def normal(shape, np_dtype, mean=0.0, std=1.0, generator=None, serial=False) -> np.ndarray:
    """``torch.randn`` / ``Tensor.normal_(mean, std)`` for a fresh contiguous tensor; with
    ``serial``, the kernel's one-at-a-time path it takes for a non-contiguous tensor.

    >>> _ = manual_seed(0); normal((2,), np.float32)
    array([ 1.5409961, -0.2934289], dtype=float32)
    """
    dtype = np.dtype(np_dtype)
    shape = tuple(shape)
    mean, std = float(mean), float(std)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_format(std)}")
    if dtype.kind == "c":  # real and imaginary parts each get half the variance
        real = normal(shape + (2,), _real_dtype(dtype), mean, std / math.sqrt(2), generator,
                      serial)
        return real.view(dtype).reshape(shape)
    if dtype.kind != "f" and not _is_bfloat16(dtype):
        raise _not_implemented("normal_kernel_cpu", dtype)
    count = math.prod(shape)
    gen = _generator(generator)
    if count < 16 or serial:
        values = _normal_scalar(gen, count, mean, std)
        if dtype != np.float64:
            values = values.astype(np.float32)
    elif dtype == np.float64:
        values = _normal_fill(gen, count, mean, std, _uniform53, _fill16_double)
    else:
        fill = _fill16_avx2 if _CAPABILITY == "avx2" else _fill16_float_libm
        values = _normal_fill(gen, count, np.float32(mean), np.float32(std), _uniform24, fill,
                              draw_ragged=dtype == np.float32)
    return values.astype(dtype).reshape(shape)


normal.draws_random = True  # leafgrad.compile: a kernel drawing these is replayed


def _normal_fill(gen, count, mean, std, draw, fill16, draw_ragged=True) -> np.ndarray:
    """torch's normal_fill: uniforms for every element, Box-Muller per block of 16; a ragged
    tail draws 16 more uniforms and rewrites the last 16 outputs.

    float16 goes through a float32 buffer one block at a time, which never draws the uniforms
    of the ragged elements (``draw_ragged=False``): the stream then moves on 16 fewer words.
    """
    whole = count // 16 * 16
    uniforms = draw(gen, count if draw_ragged else whole)[:whole].reshape(-1, 16)
    if count % 16:
        uniforms = np.concatenate([uniforms, draw(gen, 16).reshape(1, 16)])
    blocks = np.empty_like(uniforms)
    # Chunks of 2048 blocks keep the ~40 temporaries of a fill in cache: 25% faster at 10**6.
    for start in range(0, len(uniforms), 2048):
        blocks[start:start + 2048] = fill16(uniforms[start:start + 2048], mean, std)
    out = np.empty(count, dtype=blocks.dtype)
    out[:whole] = blocks[: whole // 16].reshape(-1)
    if count % 16:
        out[count - 16:] = blocks[-1]
    return out


_TWO_PI = 2.0 * math.pi


def _normal_scalar(gen: Generator, count: int, mean: float, std: float) -> np.ndarray:
    """at::normal_distribution<double>: Box-Muller on two 53-bit uniforms, the sine half cached
    in the generator for the next element (even across calls)."""
    values = []
    if count and gen._next_double is not None:
        values.append(gen._next_double)
        gen._next_double = None
    pairs = (count - len(values) + 1) // 2
    if pairs:  # (the pairs' uniforms are consecutive draws: one call draws them all)
        uniforms = _uniform53(gen, 2 * pairs).tolist()
        sqrt, log1p, sin, cos = math.sqrt, math.log1p, math.sin, math.cos
        for first in range(0, 2 * pairs, 2):
            radius = sqrt(-2.0 * log1p(-uniforms[first + 1]))
            theta = _TWO_PI * uniforms[first]
            values.append(radius * cos(theta))
            if len(values) < count:
                values.append(radius * sin(theta))
            else:  # cached for the next draw
                gen._next_double = radius * sin(theta)
    standard = np.array(values, dtype=np.float64)
    # The compiled ``value * std + mean`` is fused.
    return _fma_or_exact64(standard, std, mean) if _FUSED_UNIFORM else standard * std + mean


def _libm_map(function, values: np.ndarray) -> np.ndarray:
    """Apply a ``math`` function (the C library's, as torch calls it) element by element.

    NumPy's own float64 log differs from the C library's in the last bit for about 0.4% of
    inputs, so the C library's is called; ``map`` keeps it at ~30 ns an element.
    """
    return np.fromiter(map(function, values.tolist()), dtype=np.float64, count=values.size)


def _fill16_double(u: np.ndarray, mean, std) -> np.ndarray:
    """NormalFill16<double>: glibc log and sincos, then ``fma(radius * cos, std, mean)``."""
    u1 = 1.0 - u[:, :8]
    u2 = u[:, 8:]
    radius = np.sqrt(-2.0 * _libm_map(math.log, u1.ravel()).reshape(u1.shape))
    theta = (_TWO_PI * u2).ravel()
    cos = _libm_map(math.cos, theta).reshape(u2.shape)
    sin = _libm_map(math.sin, theta).reshape(u2.shape)
    out = np.empty_like(u)
    out[:, :8] = _fma_or_exact64(radius * cos, std, mean)
    out[:, 8:] = _fma_or_exact64(radius * sin, std, mean)
    return out


def _fma_or_exact64(x, std, mean):
    """fma(x, std, mean); with std 1 it is the one rounding of x + mean (x itself for randn's
    (1, 0), where -0. + 0. is 0. as in the FMA)."""
    if std == 1:
        return x + mean
    return _fma64(x, std, mean)


def _fma_or_exact32(x, std, mean):
    if std == 1:
        return x + mean
    return _fma32(x, std, mean)


# The constants of torch's avx_mathfun.h (Cephes' logf/sinf/cosf), as float32 bit patterns.
def _f32(bits: int) -> np.float32:
    return np.array(bits, dtype=np.uint32).view(np.float32)[()]


_LOG_POLY = [_f32(b) for b in (0x3D9021BB, 0xBDEBD1B8, 0x3DEF251A, 0xBDFE5D4F, 0x3E11E9BF,
                               0xBE2AAE50, 0x3E4CCEAC, 0xBE7FFFFC, 0x3EAAAAAA)]
_LOG_Q1, _LOG_Q2 = _f32(0xB95E8083), _f32(0x3F318000)  # ln 2 split in two
_SQRT_HALF, _MIN_NORMAL = _f32(0x3F3504F3), _f32(0x00800000)
_TWO_PI_F32, _FOUR_OVER_PI = _f32(0x40C90FDB), _f32(0x3FA2F983)
_DP1, _DP2, _DP3 = _f32(0xBF490000), _f32(0xB97DA000), _f32(0xB3222169)  # -pi/4 in three parts
_COS_POLY = (_f32(0x37CCF5CE), _f32(0xBAB6061A), _f32(0x3D2AAAA5))
_SIN_POLY = (_f32(0xB94CA1F9), _f32(0x3C08839E), _f32(0xBE2AAAA3))
_ONE, _HALF, _ZERO = np.float32(1.0), np.float32(0.5), np.float32(0.0)
_SIGN_BIT = np.uint32(0x80000000)


# Up to this many blocks the FMAs run unchecked first (fewer NumPy calls); past it the kept
# sums fall out of cache and the checked FMAs are as fast.
_AVX2_UNCHECKED_BLOCKS = 256


def _fill16_avx2(u: np.ndarray, mean, std) -> np.ndarray:
    """NormalFill16<float> of torch's AVX2 build, one NumPy op per instruction.

    The order of operations and which multiply-adds are fused follow the compiled code of
    torch 2.13 (libtorch_cpu.so, 22 FMA instructions), not its C++ source: GCC fused 20
    separate multiply and add intrinsics of avx_mathfun.h; two FMAs are explicit. The FMAs run
    unchecked first and again exactly only where a float32 tie turned up.
    """
    if len(u) > _AVX2_UNCHECKED_BLOCKS:
        return _fill16_avx2_with(u, mean, std, _fma32)
    unchecked = _Fma32Unchecked(18, (u.shape[0], 8))
    out = _fill16_avx2_with(u, mean, std, unchecked)
    tied = unchecked.tied_rows()
    if len(tied):
        out[tied] = _fill16_avx2_with(u[tied], mean, std, _fma32)
    return out


def _fill16_avx2_with(u: np.ndarray, mean, std, fma32) -> np.ndarray:
    u1 = _ONE - u[:, :8]
    u2 = u[:, 8:]
    # log256_ps(u1)
    x = np.maximum(u1, _MIN_NORMAL)
    x_bits = x.view(np.uint32)
    exponent = ((x_bits >> np.uint32(23)).astype(np.int32) - 127).astype(np.float32) + _ONE
    x = ((x_bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
    small = x < _SQRT_HALF
    shifted = np.where(small, x, _ZERO)
    exponent = exponent - np.where(small, _ONE, _ZERO)
    x = (x + np.float32(-1.0)) + shifted
    z = x * x
    y = fma32(_LOG_POLY[0], x, _LOG_POLY[1])
    for coefficient in _LOG_POLY[2:]:
        y = fma32(y, x, coefficient)
    y = fma32(x * y, z, exponent * _LOG_Q1)
    # Exact products (z / 2; a 7-bit exponent times ln 2's 9-bit high part): these two FMAs
    # are float32 additions, which need no emulation (and their sums are often ties).
    y = y - z * _HALF
    log_u1 = exponent * _LOG_Q2 + (x + y)
    radius = np.sqrt(log_u1 * np.float32(-2.0))
    # sincos256_ps(2 pi u2)
    theta = _TWO_PI_F32 * u2
    magnitude = np.abs(theta)
    octant = (magnitude * _FOUR_OVER_PI).astype(np.int32) + 1
    even_octant = octant & ~1
    y = even_octant.astype(np.float32)
    sin_sign = (theta.view(np.uint32) & _SIGN_BIT) ^ ((octant & 4) << 29).astype(np.uint32)
    cos_sign = ((~(even_octant - 2)) & 4).astype(np.uint32) << np.uint32(29)
    use_sine_poly = (octant & 2) == 0
    x = fma32(y, _DP1, magnitude)
    x = fma32(_DP2, y, x)
    x = fma32(y, _DP3, x)
    z = x * x
    cos_poly = fma32(_COS_POLY[0], z, _COS_POLY[1])
    cos_poly = fma32(cos_poly, z, _COS_POLY[2])
    cos_poly = fma32(z, z * cos_poly, -(z * _HALF)) + _ONE
    sin_poly = fma32(_SIN_POLY[0], z, _SIN_POLY[1])
    sin_poly = fma32(sin_poly, z, _SIN_POLY[2])
    sin_poly = fma32(x, z * sin_poly, x)
    sin_part = np.where(use_sine_poly, sin_poly, _ZERO)
    cos_part = np.where(use_sine_poly, _ZERO, cos_poly)
    sine = (sin_part + cos_part).view(np.uint32) ^ sin_sign
    cosine = ((sin_poly - sin_part) + (cos_poly - cos_part)).view(np.uint32) ^ cos_sign
    out = np.empty_like(u)
    # Checked: with a power-of-two std these sums are often ties.
    out[:, :8] = _fma_or_exact32(radius * cosine.view(np.float32), std, mean)
    out[:, 8:] = _fma_or_exact32(radius * sine.view(np.float32), std, mean)
    return out


@functools.lru_cache(maxsize=1)
def _libm():
    """The C library's float functions through ctypes, or None (then float64 stand-ins)."""
    try:
        library = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        functions = []
        for name in ("logf", "sinf", "cosf"):
            function = getattr(library, name)
            function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
            functions.append(function)
        return tuple(functions)
    except (OSError, AttributeError):
        return None


def _float_map(name: str, values: np.ndarray) -> np.ndarray:
    functions = _libm()
    if functions is None:  # correctly rounded; the C library differs in ~1% of last bits
        return getattr(np, {"logf": "log", "sinf": "sin", "cosf": "cos"}[name])(
            values.astype(np.float64)).astype(np.float32)
    function = functions[("logf", "sinf", "cosf").index(name)]
    return np.fromiter(map(function, values.tolist()), dtype=np.float32, count=values.size)


def _fill16_float_libm(u: np.ndarray, mean, std) -> np.ndarray:
    """NormalFill16<float> of torch's default build: logf, sincosf and fmaf per element.

    Slow (a ctypes call per element): only machines without AVX2 take this path.
    """
    u1 = (_ONE - u[:, :8]).ravel()
    radius = np.sqrt(_float_map("logf", u1) * np.float32(-2.0)).reshape(-1, 8)
    theta = (u[:, 8:].astype(np.float64) * _TWO_PI).astype(np.float32).ravel()
    cos = _float_map("cosf", theta).reshape(-1, 8)
    sin = _float_map("sinf", theta).reshape(-1, 8)
    out = np.empty_like(u)
    out[:, :8] = _fma_or_exact32(radius * cos, std, mean)
    out[:, 8:] = _fma_or_exact32(radius * sin, std, mean)
    return out


# -- integers -----------------------------------------------------------------------------------

_DIGITS = {"float16": 11, "float32": 24, "float64": 53, "bfloat16": 8}


def _through_dtype(value: int, dtype: np.dtype) -> int:
    """``static_cast<int64_t>(static_cast<scalar_t>(value))`` as torch's x86 build computes it:
    int64 -> float (-> Half) rounds to nearest; an out-of-range result (inf, or >= 2**63) becomes
    INT64_MIN, which is what the cvttss2si/cvttsd2si instructions return."""
    as_float = np.array(value, dtype=np.int64).astype(
        np.float32 if dtype.itemsize == 2 else dtype).astype(dtype).astype(np.float64)
    if not -(2.0**63) <= float(as_float) < 2.0**63:
        return -(2**63)
    return int(as_float)


def _update_from(low: int, dtype: np.dtype) -> int:
    """torch's update_from: move ``from`` up until casting ``from + 1`` to dtype can't go below."""
    from_plus_1 = _through_dtype(low + 1, dtype)
    if from_plus_1 < low:
        n = abs(low + 1).bit_length() - 1
        low = from_plus_1 + (1 << (n - _DIGITS[dtype.name] + 1))
    return low


def _update_to(high: int, dtype: np.dtype) -> int:
    """torch's update_to: move ``to`` down until casting ``to - 1`` to dtype stays below it."""
    to_minus_1 = _through_dtype(high - 1, dtype)
    if to_minus_1 >= high:
        n = abs(high - 1).bit_length() - 1
        high = to_minus_1 - (1 << (n - _DIGITS[dtype.name] + 1))
    return high


def _check_int_range(low: int, high_inclusive: int, dtype: np.dtype) -> None:
    """check_from_to_in_range: errors for integer dtypes, warnings for float precision."""
    name = _CPP_NAMES.get(dtype.name, dtype.name)
    if dtype.kind == "f" or _is_bfloat16(dtype):
        info = _finfo(dtype)
        bounds = (float(info.min), float(info.max))
    elif dtype == np.uint64:
        bounds = (0, 2**63 - 1)
    elif dtype == np.bool_:
        bounds = (0, 1)
    else:
        info = np.iinfo(dtype)
        bounds = (int(info.min), int(info.max))
    for value, label in ((low, "from"), (high_inclusive, "to - 1")):
        if not bounds[0] <= value <= bounds[1]:
            raise RuntimeError(f"{label} is out of bounds for {name}")
    if dtype.kind == "f" or _is_bfloat16(dtype):
        digits = _DIGITS[dtype.name]
        for value, label in ((low, "from"), (high_inclusive, "to - 1")):
            if value < -(1 << digits) or value > (1 << digits):
                warnings.warn(
                    f"{label} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {name} can support discrete uniform distribution only within "
                    "this range. This warning will become an error in version 1.7 release, "
                    "please fix the code in advance", UserWarning, stacklevel=3)


def randint(low, high, shape, np_dtype, generator=None) -> np.ndarray:
    """``torch.randint(low, high, shape)``: integers in [low, high) stored as ``np_dtype``.

    >>> _ = manual_seed(0); randint(0, 10, (4,), np.int64)
    array([4, 9, 3, 0])
    """
    dtype = np.dtype(np_dtype)
    shape = tuple(shape)
    low, high = int(low), int(high)
    for value in (low, high):
        if not -(2**63) <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dtype.kind == "f" or _is_bfloat16(dtype):
        low, high = _update_from(low, dtype), _update_to(high, dtype)
        if not low < high:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                f"but got from={low} >= to={high}")
    elif dtype.kind == "c":  # torch checks the bounds before it looks for a kernel
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types")
    elif dtype.kind not in "iub":
        raise _not_implemented("random_from_to_kernel_cpu", dtype)
    _check_int_range(low, high - 1, dtype)
    count = math.prod(shape)
    if count == 0:
        return np.empty(shape, dtype=dtype)
    gen = _generator(generator)
    span = (high - low) % 2**64
    # torch draws 64 bits once the range reaches 2**28 (to keep the modulo bias near 5%).
    words = gen._words64(count) if span >= 2**28 else gen._words(count)
    offsets = words % _U64(span)
    values = (offsets + _U64(low % 2**64)).view(np.int64)  # uint64 wrap-around, as in C++
    if dtype == np.bool_:
        return (values != 0).reshape(shape)
    if dtype.itemsize == 2 and dtype.kind in "fV":  # int64 -> float -> Half/BFloat16, as c10
        values = values.astype(np.float32)
    return values.astype(dtype).reshape(shape)


randint.draws_random = True  # leafgrad.compile: a kernel drawing these is replayed


def random_full(shape, np_dtype, generator=None) -> np.ndarray:
    """``tensor.random_()`` with no range: torch's uniform_int over the dtype's default range.

    int64 and float64 take one 64-bit draw per element, other dtypes one 32-bit draw; the value
    is the draw modulo max + 1 (integers), modulo 2**digits + 1 (floats), or its low bit
    (bool), as torch's CPU kernel computes it.
    """
    if _wide_unsigned(np_dtype) or np.dtype(np_dtype).kind == "c":
        raise _not_implemented("random_kernel_cpu", np.dtype(np_dtype))
    gen = _generator(generator)
    dtype = np.dtype(np_dtype)
    count = int(np.prod(shape, dtype=np.int64))
    wide = dtype in (np.dtype(np.int64), np.dtype(np.float64))
    raw = gen._words64(count) if wide else gen._words(count)
    if dtype.kind == "b":
        values = (raw & _U64(1)).astype(bool)
    elif dtype.kind == "f":
        values = (raw % _U64((1 << (np.finfo(dtype).nmant + 1)) + 1)).astype(dtype)
    elif _is_bfloat16(dtype):  # up to 2**8 + 1, through float32 (no uint64 -> bfloat16 cast)
        values = (raw % _U64((1 << 8) + 1)).astype(np.float32).astype(dtype)
    else:
        values = (raw % _U64(int(np.iinfo(dtype).max) + 1)).astype(dtype)
    return values.reshape(shape)


def randperm(n, np_dtype, generator=None) -> np.ndarray:
    """``torch.randperm(n)``: torch's Fisher-Yates shuffle, ``swap(i, i + word % (n - i))``.

    >>> _ = manual_seed(0); randperm(5, np.int64)
    array([4, 0, 1, 3, 2])
    """
    dtype = np.dtype(np_dtype)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype == np.bool_ or dtype.kind not in "iuf" or dtype in (np.uint16, np.uint32,
                                                                  np.uint64):
        raise _not_implemented("randperm", dtype)
    if dtype.kind == "f":
        limit = (1 << _DIGITS[dtype.name]) + 1
        if n > limit:
            digits = _DIGITS[dtype.name]
            raise RuntimeError(
                f"n cannot be greater than 2^{digits}+1 for {_TYPE_NAMES[dtype.name]} type."
                if dtype != np.float16 else "n cannot be greater than 2049 for Half type.")
    elif n > 0 and n - 1 > np.iinfo(dtype).max:
        raise RuntimeError(
            f"value cannot be converted to type {dtype.name}_t without overflow")
    gen = _generator(generator)
    if n < (2**32 - 1) // 20:
        perm = _fisher_yates(gen, n)
    else:
        perm = _inside_out_shuffle(gen, n)
    return perm.astype(dtype)


randperm.draws_random = True  # leafgrad.compile: a kernel drawing these is replayed


def _fisher_yates(gen: Generator, n: int) -> np.ndarray:
    """Replay ``for i: swap(a[i], a[i + z_i])`` with z_i = word % (n - i), without a Python loop.

    Position i is final after step i, and it receives what position ``j_i = i + z_i`` held then.
    A position p >= i holds its original value p unless an earlier step k swapped into it
    (j_k == p), in which case it holds whatever position k held just before step k. So with
    ``before[k]`` = the value at position k before step k,
        result[i] = before[k] for the last step k < i with j_k == j_i, else j_i;
        before[i] = before[k] for the last step k < i with j_k == i, else i.
    The second rule is a forest of pointers to smaller indices, resolved by pointer doubling.
    """
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    steps = np.arange(n - 1, dtype=np.int64)
    targets = steps + (gen._words(n - 1) % (_U64(n) - steps.astype(_U64))).astype(np.int64)
    # Group the steps by target, in step order; within a group each step's predecessor is the
    # last earlier step with the same target.
    # Sorting the keys target * n + step (< 2**55 here) is ~10x faster than a stable argsort.
    keys = np.sort(targets * n + steps)
    sorted_targets, order = np.divmod(keys, n)
    same_as_previous = np.concatenate([[False], sorted_targets[1:] == sorted_targets[:-1]])
    previous_same = np.full(n - 1, -1, dtype=np.int64)
    previous_same[order[same_as_previous]] = order[np.nonzero(same_as_previous)[0] - 1]
    # For position p: the last step k < p with j_k == p (k == p itself is excluded: a step that
    # targets itself swaps nothing into its own position from before).
    last_into = np.full(n, -1, dtype=np.int64)
    group_end = np.concatenate([sorted_targets[1:] != sorted_targets[:-1], [True]])
    last_steps = order[group_end]
    own = last_steps == targets[last_steps]  # the last step into p is step p itself
    candidate = np.where(own, previous_same[last_steps], last_steps)
    last_into[targets[last_steps]] = candidate
    # before[p] = before[last_into[p]], else p: follow the pointers to their roots.
    pointer = np.where(last_into >= 0, last_into, np.arange(n))
    while True:
        jumped = pointer[pointer]
        if np.array_equal(jumped, pointer):
            break
        pointer = jumped
    before = pointer  # each root r is an untouched position: before[r] == r
    result = np.empty(n, dtype=np.int64)
    has_previous = previous_same >= 0
    result[:-1] = np.where(has_previous, before[np.maximum(previous_same, 0)], targets)
    result[-1] = before[n - 1]
    return result


def _inside_out_shuffle(gen: Generator, n: int) -> np.ndarray:
    """torch's variant for n >= 2**32 / 20 (the output alone is then >= 1.7 GB):
    ``a[i] = a[z]; a[z] = i`` with z = random64 % (i + 1). A plain loop: 10**8 steps take
    minutes in Python, but no smaller input reaches here."""
    draws = gen._words64(n)
    swaps = (draws % (np.arange(n, dtype=_U64) + _U64(1))).tolist()
    perm = [0] * n
    for i, z in enumerate(swaps):
        perm[i] = perm[z]
        perm[z] = i
    return np.array(perm, dtype=np.int64)


# -- bernoulli ----------------------------------------------------------------------------------


def bernoulli(p, shape, np_dtype, generator=None) -> np.ndarray:
    """``torch.bernoulli`` / ``Tensor.bernoulli_(p)``: 1 where a uniform draw is below p.

    ``p`` is a Python float (bernoulli_(float), as dropout uses) or an array broadcast to
    ``shape``: a float64 array compares 53-bit uniforms in float64, any other float array 24-bit
    uniforms in float32, exactly as torch's kernels do.

    torch 2.13's bernoulli_(float) draws one 53-bit uniform per element from mt19937 on every
    CPU. (Older releases ran MKL's MCG31 generator on Intel CPUs; checked on an Intel Xeon with
    torch 2.13, whose cpuinfo reports the Intel vendor: values and generator state follow the
    mt19937 path.)
    """
    if _wide_unsigned(np_dtype):  # torch 2.13 has no uint16/32/64 bernoulli kernel
        kernel = ("bernoulli_tensor_cpu_self_" if isinstance(p, np.ndarray)
                  else "bernoulli_scalar_cpu_")
        raise _not_implemented(kernel, np.dtype(np_dtype))
    dtype = np.dtype(np_dtype)
    shape = tuple(shape)
    gen = _generator(generator)
    count = math.prod(shape)
    if isinstance(p, np.ndarray):
        return _bernoulli_tensor(gen, p, shape, dtype)
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_format(p)}")
    if count == 0:
        return np.empty(shape, dtype=dtype)
    hits = _uniform53(gen, count) < p
    return hits.astype(dtype).reshape(shape)


bernoulli.draws_random = True  # leafgrad.compile: a kernel drawing these is replayed


def _bernoulli_tensor(gen: Generator, p: np.ndarray, shape, dtype) -> np.ndarray:
    if not _dtype.is_floating(p):
        raise _not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
    try:
        probabilities = np.broadcast_to(p, shape)
    except ValueError:
        raise RuntimeError(_expand_message(p.shape, shape, p.dtype)) from None
    flat = probabilities.reshape(-1)
    count = flat.size
    if count == 0:
        return np.empty(shape, dtype=dtype)
    if p.dtype == np.float64:
        draw, compare = _uniform53, flat
    else:
        draw, compare = _uniform24, flat.astype(np.float32)
    bad = np.nonzero(~((compare >= 0) & (compare <= 1)))[0]
    if bad.size:  # torch checks inside its loop: the draws before the bad element happen
        draw(gen, int(bad[0]))
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)")
    return (draw(gen, count) < compare).astype(dtype).reshape(shape)


def _expand_message(small, target, dtype) -> str:
    """torch's message when p does not broadcast to the output's shape."""
    small, target = tuple(small), tuple(target)
    offset = len(target) - len(small)
    if offset < 0:
        legacy = _TYPE_NAMES.get(dtype.name, dtype.name)
        return (f"expand(torch.{legacy}Tensor{{{list(small)}}}, size={list(target)}): the number "
                f"of sizes provided ({len(target)}) must be greater or equal to the number of "
                f"dimensions in the tensor ({len(small)})")
    for index in range(len(small) - 1, -1, -1):
        if small[index] != 1 and small[index] != target[index + offset]:
            return (f"The expanded size of the tensor ({target[index + offset]}) must match the "
                    f"existing size ({small[index]}) at non-singleton dimension "
                    f"{index + offset}.  Target sizes: {list(target)}.  Tensor sizes: "
                    f"{list(small)}")
    return "expand failed"


def multinomial(probabilities: np.ndarray, num_samples: int, replacement: bool,
                generator=None) -> np.ndarray:
    """Category indices drawn from each row of ``probabilities`` (weights, not normalised).

    With replacement this is torch's CPU kernel draw for draw: per row, the running sums in
    the weights' dtype divided by the total, the last bucket set to 1, then for each sample
    one 53-bit uniform double (a 64-bit draw) located by binary search. Without replacement,
    torch's exponential race (the top ``num_samples`` of ``p / q``, q ~ Exp(1)), with
    exponentials from this generator's uniforms: the same distribution, not torch's numbers.
    """
    gen = _generator(generator)
    rows = np.atleast_2d(probabilities)
    count = rows.shape[1]
    if not replacement or num_samples == 1:
        # torch's fast path: q = empty_like(p).exponential_(1) (-log1p(-u) of a 53-bit
        # uniform, in double with the C library's log1p, rounded to p's dtype), then the
        # argmax (one sample) or the top num_samples of p / q in p's dtype
        u = _uniform53(gen, rows.size)
        q = (-1.0 * _libm_map(math.log1p, -u)).astype(rows.dtype).reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = rows / q
        if num_samples == 1:
            order = np.argmax(keys, axis=1).reshape(-1, 1)
        else:
            order = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
        return order.reshape(probabilities.shape[:-1] + (num_samples,)).astype(np.int64)
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for r, row in enumerate(rows):
        cumulative = np.cumsum(row, dtype=row.dtype)
        total = cumulative[-1]
        cumulative = (cumulative / total).astype(row.dtype)
        cumulative[-1] = 1
        draws = _uniform53(gen, num_samples)
        # left-most slot whose cumulative probability is >= the draw (torch's binary search)
        out[r] = np.searchsorted(cumulative.astype(np.float64), draws, side="left")
    return out.reshape(probabilities.shape[:-1] + (num_samples,))


# Note: one draw at a time. The public draws, each made atomic on its generator's lock.
def _atomic(draw, generator_position: int):
    @functools.wraps(draw)
    def locked(*args, **kwargs):
        generator = kwargs.get("generator")
        if generator is None and len(args) > generator_position:
            generator = args[generator_position]
        with _generator(generator)._lock:
            return draw(*args, **kwargs)

    return locked


uniform = _atomic(uniform, 4)
normal = _atomic(normal, 4)
randint = _atomic(randint, 4)
random_full = _atomic(random_full, 2)
randperm = _atomic(randperm, 2)
bernoulli = _atomic(bernoulli, 3)
multinomial = _atomic(multinomial, 3)
