"""leafgrad._rng against torch 2.13's CPU generator: same seeds, same bits, same state bytes.

Every comparison is exact (dtype, shape and raw bytes), and after each draw the two generators'
states must be byte-identical too, so a stream that drifts by one word fails at once.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
import warnings
from fractions import Fraction

import numpy as np
import pytest

import leafgrad
from leafgrad import _rng as _random

from ._torch import require_torch

torch = require_torch()

SEEDS = [0, 1, 42, 2**32 + 5, 2**63 + 12345, 2**64 - 1, -7]
SIZES = [1, 2, 7, 15, 16, 17, 31, 100, 1000, (3, 5, 7)]
FLOATS = {np.float16: torch.float16, np.float32: torch.float32, np.float64: torch.float64}
INTS = {np.int64: torch.int64, np.int32: torch.int32, np.int16: torch.int16, np.int8: torch.int8,
        np.uint8: torch.uint8, np.bool_: torch.bool}
DTYPES = {**FLOATS, **INTS}


def assert_same(ours, theirs):
    """Bit-for-bit equality of a NumPy result and a torch tensor (or two arrays)."""
    ours = np.asarray(ours)
    theirs = theirs.numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert ours.tobytes() == theirs.tobytes(), (
        f"\nours   {ours.ravel()[:8]}\ntheirs {theirs.ravel()[:8]}")


def assert_same_state(ours_generator=None, theirs_generator=None):
    ours = (ours_generator or _random.default_generator).get_state()
    theirs = (theirs_generator or torch.default_generator).get_state()
    assert_same(ours, theirs)


def seed_both(seed):
    torch.manual_seed(seed)
    _random.manual_seed(seed)


def outcome(call):
    """(result, None) or (None, (exception type, first line of message))."""
    try:
        return call(), None
    except Exception as error:  # noqa: BLE001 - comparing whatever torch raises
        return None, (type(error), str(error).splitlines()[0])


def assert_same_outcome(ours_call, theirs_call):
    ours, ours_error = outcome(ours_call)
    theirs, theirs_error = outcome(theirs_call)
    assert ours_error == theirs_error
    if theirs_error is None:
        assert_same(ours, theirs)


def _shape(size):
    return size if isinstance(size, tuple) else (size,)


# -- rand / randn ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("np_dtype", list(FLOATS))
def test_rand_and_randn_match_torch(seed, np_dtype):
    seed_both(seed)
    for size in SIZES:
        shape = _shape(size)
        assert_same(_random.uniform(shape, np_dtype), torch.rand(shape, dtype=FLOATS[np_dtype]))
        # Twice in a row: for small sizes the second call starts from the cached Box-Muller value.
        for _ in range(2):
            assert_same(_random.normal(shape, np_dtype), torch.randn(shape, dtype=FLOATS[np_dtype]))
        assert_same_state()


@pytest.mark.parametrize("np_dtype", list(FLOATS))
@pytest.mark.parametrize("low, high", [(-2.5, 3.75), (0.1, 0.7), (-1e-3, 5.0), (2.5, 2.5000002),
                                       (3.0, 3.0), (-60000.0, -1000.0)])
def test_uniform_range_matches_uniform_(np_dtype, low, high):
    seed_both(3)
    for size in (1, 17, 4000):
        tensor = torch.empty(size, dtype=FLOATS[np_dtype]).uniform_(low, high)
        assert_same(_random.uniform((size,), np_dtype, low, high), tensor)
    assert_same_state()


@pytest.mark.parametrize("np_dtype", list(FLOATS))
@pytest.mark.parametrize("mean, std", [(0.3, 2.5), (-1.5, 0.25), (100.0, 1e-3), (0.0, 0.0)])
def test_normal_mean_std_matches_normal_(np_dtype, mean, std):
    seed_both(11)
    for size in (1, 5, 15, 16, 33, 4000):
        tensor = torch.empty(size, dtype=FLOATS[np_dtype]).normal_(mean, std)
        assert_same(_random.normal((size,), np_dtype, mean, std), tensor)
    assert_same_state()


def test_large_draws_match_torch():
    """Large enough that every code path of the vectorised Box-Muller sees many inputs."""
    seed_both(2024)
    assert_same(_random.normal((1000, 1001), np.float32), torch.randn(1000, 1001))
    assert_same(_random.normal((100_003,), np.float64, 0.5, 3.0),
                torch.empty(100_003, dtype=torch.float64).normal_(0.5, 3.0))
    assert_same(_random.uniform((300_000,), np.float32, -4.0, 9.0),
                torch.empty(300_000).uniform_(-4.0, 9.0))
    assert_same_state()


def test_float32_normal_fill_redoes_tied_blocks_exactly(monkeypatch):
    """Small float32 fills run their FMAs unchecked and redo exactly the blocks where a float64
    sum was a float32 tie: seeds where that happens (counted, so the test sees the path taken)
    must still give torch's bits, for randn and for normal_ with a std (checked FMAs) too."""
    redone = []
    tied_rows = _random._Fma32Unchecked.tied_rows

    def counting(self):
        rows = tied_rows(self)
        redone.append(len(rows))
        return rows

    monkeypatch.setattr(_random._Fma32Unchecked, "tied_rows", counting)
    for seed in (11, 17, 18, 28, 38, 3):
        seed_both(seed)
        for size in (4096, 16, 33, 1000):
            assert_same(_random.normal((size,), np.float32), torch.randn(size))
            assert_same(_random.normal((size,), np.float32, 0.5, 3.0),
                        torch.empty(size).normal_(0.5, 3.0))
            assert_same(_random.normal((size,), np.float32, -1.0, 1.0),
                        torch.empty(size).normal_(-1.0, 1.0))
        assert_same_state()
    assert sum(redone) >= 5 and redone.count(0) > 0


def test_normal_zero_radius_is_a_positive_zero():
    """u1 == 1 gives a radius of 0; fma(-0., 1, 0.) is 0., so randn never gives -0. (seed 34:
    elements 298484 and 298492, the cosine and sine lanes of one pair, both negative)."""
    seed_both(34)
    ours = _random.normal((298496,), np.float32)
    theirs = torch.randn(298496)
    assert ours[298484] == 0 and ours[298492] == 0
    assert_same(ours, theirs)
    assert_same_state()


@pytest.mark.parametrize("np_dtype, torch_dtype", [(np.complex64, torch.complex64),
                                                   (np.complex128, torch.complex128)])
def test_complex_draws_fill_the_real_view(np_dtype, torch_dtype):
    seed_both(5)
    for size in (3, 20):
        assert_same(_random.uniform((size,), np_dtype), torch.rand(size, dtype=torch_dtype))
        assert_same(_random.normal((size,), np_dtype), torch.randn(size, dtype=torch_dtype))
    assert_same_state()


def test_empty_shapes_draw_nothing():
    seed_both(8)
    assert_same(_random.uniform((0, 3), np.float32), torch.rand(0, 3))
    assert_same(_random.normal((0,), np.float64), torch.randn(0, dtype=torch.float64))
    assert_same(_random.randint(0, 5, (0,), np.int64), torch.randint(0, 5, (0,)))
    assert_same(_random.bernoulli(0.5, (0,), np.float32), torch.empty(0).bernoulli_(0.5))
    assert_same_state()


UNIFORM_ERRORS = [(2.0, 1.0, np.float32), (-3e38, 3e38, np.float32), (-60000.0, 60000.0,
                  np.float16), (0.0, 1e39, np.float32), (float("nan"), 1.0, np.float64),
                  (0.0, 1.0, np.int64)]


@pytest.mark.parametrize("low, high, np_dtype", UNIFORM_ERRORS)
def test_uniform_errors_match(low, high, np_dtype):
    torch_dtype = DTYPES[np_dtype]
    assert_same_outcome(lambda: _random.uniform((3,), np_dtype, low, high),
                        lambda: torch.empty(3, dtype=torch_dtype).uniform_(low, high))


def test_normal_errors_match():
    assert_same_outcome(lambda: _random.normal((3,), np.float32, 0.0, -1.0),
                        lambda: torch.empty(3).normal_(0.0, -1.0))
    assert_same_outcome(lambda: _random.normal((3,), np.int64),
                        lambda: torch.randn(3, dtype=torch.int64))


# -- randint / randperm -------------------------------------------------------------------------

RANGES = [(0, 10), (-5, 5), (0, 2), (0, 1), (100, 117), (0, 2**28 - 1), (0, 2**28),
          (-(2**40), 2**40), (-(2**63), 2**63 - 1), (0, 2**24 + 1), (-70000, 70000), (5, 5),
          (6, 5), (0, 300), (-1, 3), (0, 65520), (-65505, 0), (0, 2**31)]


@pytest.mark.parametrize("low, high", RANGES)
def test_randint_matches_torch(low, high):
    seed_both(low % 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float precision warnings: see the test below
        for np_dtype, torch_dtype in DTYPES.items():
            assert_same_outcome(lambda: _random.randint(low, high, (37,), np_dtype),
                                lambda: torch.randint(low, high, (37,), dtype=torch_dtype))
            assert_same_state()


def test_randint_float_precision_warning_matches():
    with pytest.warns(UserWarning) as ours:
        _random.randint(0, 2**25, (2,), np.float32)
    with pytest.warns(UserWarning) as theirs:
        torch.randint(0, 2**25, (2,), dtype=torch.float32)
    assert str(theirs[0].message).startswith(str(ours[0].message))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 10, 100, 1000, 12345, 200_000])
def test_randperm_matches_torch(n):
    for seed in (0, 3, 2**40 + 1):
        seed_both(seed)
        for np_dtype, torch_dtype in {**FLOATS, np.int64: torch.int64, np.int32: torch.int32,
                                      np.uint8: torch.uint8, np.int16: torch.int16,
                                      np.bool_: torch.bool}.items():
            assert_same_outcome(lambda: _random.randperm(n, np_dtype),
                                lambda: torch.randperm(n, dtype=torch_dtype))
        assert_same_state()


@pytest.mark.parametrize("n, np_dtype, torch_dtype", [
    (-3, np.int64, torch.int64), (257, np.uint8, torch.uint8), (256, np.uint8, torch.uint8),
    (129, np.int8, torch.int8), (2049, np.float16, torch.float16),
    (3000, np.float16, torch.float16), (2**24 + 2, np.float32, torch.float32)])
def test_randperm_limits_match(n, np_dtype, torch_dtype):
    seed_both(1)
    assert_same_outcome(lambda: _random.randperm(n, np_dtype),
                        lambda: torch.randperm(n, dtype=torch_dtype))


def test_randperm_equals_the_plain_shuffle_loop():
    """The vectorised replay against torch's loop, written out, on many sizes and seeds."""
    for seed in range(30):
        generator = _random.Generator().manual_seed(seed)
        n = 1 + seed * 37
        state = generator.get_state()
        ours = _random.randperm(n, np.int64, generator=generator)
        words = _random.Generator().set_state(state)._words(n - 1).tolist()
        expected = list(range(n))
        for i, word in enumerate(words):
            j = i + word % (n - i)
            expected[i], expected[j] = expected[j], expected[i]
        assert ours.tolist() == expected


# -- bernoulli ----------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.3333, 0.9, 1.0])
def test_bernoulli_scalar_p_matches_bernoulli_(p):
    seed_both(4)
    for shape in [(1,), (7,), (100,), (3, 4, 5)]:
        for np_dtype in (np.float32, np.float64, np.int64, np.bool_, np.uint8):
            tensor = torch.empty(shape, dtype=DTYPES[np_dtype]).bernoulli_(p)
            assert_same(_random.bernoulli(p, shape, np_dtype), tensor)
    assert_same_state()


@pytest.mark.parametrize("p_dtype", list(FLOATS))
def test_bernoulli_tensor_p_matches_torch(p_dtype):
    seed_both(6)
    for shape in [(1,), (7,), (100,), (3, 4, 5)]:
        p_torch = torch.rand(shape, dtype=FLOATS[p_dtype])
        p_ours = _random.uniform(shape, p_dtype)
        assert_same(p_ours, p_torch)
        assert_same(_random.bernoulli(p_ours, shape, p_dtype), torch.bernoulli(p_torch))
        for np_dtype in (np.float32, np.float64, np.bool_):
            tensor = torch.empty(shape, dtype=DTYPES[np_dtype]).bernoulli_(p_torch)
            assert_same(_random.bernoulli(p_ours, shape, np_dtype), tensor)
        first = p_torch.reshape(-1)[:1]  # p broadcast to the output's shape
        assert_same(_random.bernoulli(first.numpy(), shape, np.float32),
                    torch.empty(shape).bernoulli_(first))
    assert_same_state()


def test_dropout_mask_is_bernoulli_of_keep_probability():
    """torch's CPU dropout is ``empty_like(x).bernoulli_(1 - p) / (1 - p) * x``."""
    for requires_grad in (False, True):
        seed_both(9)
        out = torch.nn.functional.dropout(torch.ones(5, 50, requires_grad=requires_grad), 0.3)
        mask = _random.bernoulli(0.7, (5, 50), np.float32)
        assert_same(mask / np.float32(0.7), out.detach())
        assert_same_state()


def test_bernoulli_errors_match_and_leave_the_same_state():
    seed_both(10)
    assert_same_outcome(lambda: _random.bernoulli(1.5, (3,), np.float32),
                        lambda: torch.empty(3).bernoulli_(1.5))
    assert_same_outcome(lambda: _random.bernoulli(-0.5, (3,), np.float32),
                        lambda: torch.empty(3).bernoulli_(-0.5))
    # torch checks each p inside its loop, after drawing for the elements before it.
    p = np.array([0.5, 0.2, float("nan"), 0.3], dtype=np.float32)
    assert_same_outcome(lambda: _random.bernoulli(p, (4,), np.float32),
                        lambda: torch.bernoulli(torch.from_numpy(p)))
    p = np.array([0.5, 1.5], dtype=np.float64)
    assert_same_outcome(lambda: _random.bernoulli(p, (2,), np.float64),
                        lambda: torch.bernoulli(torch.from_numpy(p)))
    assert_same_state()
    for p, shape in ((np.full(2, 0.5, np.float32), (3,)), (np.full((2, 3), 0.5), (3,)),
                     (np.full((5, 1), 0.5, np.float16), (4, 3))):
        assert_same_outcome(lambda: _random.bernoulli(p, shape, np.float32),
                            lambda: torch.empty(shape).bernoulli_(torch.from_numpy(p)))


# -- the stream across calls and generators -------------------------------------------------------


def test_interleaved_calls_stay_in_step():
    rng = random.Random(5)
    for trial in range(25):
        seed = rng.randrange(-(2**63), 2**64)
        theirs_generator = torch.Generator().manual_seed(seed)
        ours_generator = _random.Generator().manual_seed(seed)
        seed_both(seed // 3)
        for _ in range(25):
            operation = rng.choice(["rand", "randn", "randint", "randperm", "bernoulli",
                                    "normal_", "uniform_", "bernoulli_tensor"])
            n = rng.choice([1, 2, 3, 5, 15, 16, 17, 40, 623, 624, 625, 1300])
            np_dtype = rng.choice(list(FLOATS))
            dtype = FLOATS[np_dtype]
            use_generator = rng.random() < 0.5
            theirs_kw = {"generator": theirs_generator} if use_generator else {}
            ours_kw = {"generator": ours_generator} if use_generator else {}
            if operation == "rand":
                pair = _random.uniform((n,), np_dtype, **ours_kw), torch.rand(n, dtype=dtype,
                                                                              **theirs_kw)
            elif operation == "randn":
                pair = _random.normal((n,), np_dtype, **ours_kw), torch.randn(n, dtype=dtype,
                                                                              **theirs_kw)
            elif operation == "randint":
                high = rng.choice([2, 10, 1000, 2**28, 2**33])
                pair = (_random.randint(-3, high, (n,), np.int64, **ours_kw),
                        torch.randint(-3, high, (n,), **theirs_kw))
            elif operation == "randperm":
                pair = _random.randperm(n, np.int64, **ours_kw), torch.randperm(n, **theirs_kw)
            elif operation == "bernoulli":
                pair = (_random.bernoulli(0.4, (n,), np.float32, **ours_kw),
                        torch.empty(n).bernoulli_(0.4, **theirs_kw))
            elif operation == "bernoulli_tensor":
                p = np.linspace(0, 1, n).astype(np_dtype)
                pair = (_random.bernoulli(p, (n,), np_dtype, **ours_kw),
                        torch.bernoulli(torch.from_numpy(p), **theirs_kw))
            elif operation == "normal_":
                pair = (_random.normal((n,), np_dtype, -1.5, 0.25, **ours_kw),
                        torch.empty(n, dtype=dtype).normal_(-1.5, 0.25, **theirs_kw))
            else:
                pair = (_random.uniform((n,), np_dtype, 1.0, 4.0, **ours_kw),
                        torch.empty(n, dtype=dtype).uniform_(1.0, 4.0, **theirs_kw))
            assert_same(*pair)
        assert_same_state(ours_generator, theirs_generator)
        assert_same_state()


def test_generators_are_independent_of_the_default_one():
    seed_both(0)
    before = _random.get_rng_state()
    generator = _random.Generator().manual_seed(0)
    assert_same(_random.uniform((5,), np.float32, generator=generator), torch.rand(5))
    assert_same(_random.get_rng_state(), before)
    assert_same(_random.uniform((5,), np.float32), _random.uniform(
        (5,), np.float32, generator=_random.Generator().manual_seed(0)))


def test_fresh_generator_matches_torch_generator():
    assert_same(_random.Generator().get_state(), torch.Generator().get_state())
    assert _random.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert_same(_random.uniform((4,), np.float32, generator=_random.Generator()),
                torch.rand(4, generator=torch.Generator()))


# -- state ----------------------------------------------------------------------------------------


def test_state_round_trips_both_ways():
    seed_both(123)
    for step in range(6):
        # Leave the scalar normal's cache filled half the time: it is part of the state.
        _random.normal((step % 3 + 1,), np.float64)
        torch.randn(step % 3 + 1, dtype=torch.float64)
        _random.uniform((300 * step,), np.float32)
        torch.rand(300 * step)
        assert_same_state()
        state = _random.get_rng_state()
        expected = _random.normal((5,), np.float32), _random.uniform((700,), np.float64)
        _random.set_rng_state(torch.get_rng_state().numpy())
        assert_same(_random.normal((5,), np.float32), expected[0])
        assert_same(_random.uniform((700,), np.float64), expected[1])
        torch.set_rng_state(torch.from_numpy(state))
        assert_same(torch.randn(5), expected[0])
        assert_same(torch.rand(700, dtype=torch.float64), expected[1])
        assert_same_state()


def test_set_state_accepts_what_torch_accepts():
    """A state whose ``left`` and ``next`` disagree is never produced, but torch loads it and
    reads ``left - 1`` words from ``next`` before twisting."""
    raw = torch.Generator().manual_seed(3).get_state().numpy().copy()
    raw[8:12] = np.frombuffer(np.int32(10).tobytes(), np.uint8)
    raw[16:24] = np.frombuffer(np.uint64(100).tobytes(), np.uint8)
    theirs = torch.Generator().set_state(torch.from_numpy(raw))
    ours = _random.Generator().set_state(leafgrad.from_numpy(raw))
    assert_same_state(ours, theirs)
    for size in (5, 700):
        assert_same(_random.uniform((size,), np.float32, generator=ours),
                    torch.rand(size, generator=theirs))
        assert_same_state(ours, theirs)


@pytest.mark.parametrize("state", [np.zeros(5056, np.float32), np.zeros(100, np.uint8),
                                   np.zeros(5056, np.uint8)])
def test_set_state_errors_match(state):
    assert_same_outcome(lambda: _random.Generator().set_state(leafgrad.from_numpy(state)),
                        lambda: torch.Generator().set_state(torch.from_numpy(state)))


# -- seeds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, -1, -(2**63), 2**64 - 1, 2**32, 2**32 + 5, np.int64(9),
                                  np.uint64(2**63 + 3)])
def test_seeds_are_taken_like_torch(seed):
    seed_both(seed)
    assert _random.initial_seed() == torch.initial_seed()
    assert_same(_random.uniform((5,), np.float32), torch.rand(5))
    assert_same_state()


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1, 1.5, "3", None, True, 2.0])
def test_bad_seeds_fail_like_torch(seed):
    for ours, theirs in ((_random.manual_seed, torch.manual_seed),
                         (_random.Generator().manual_seed, torch.Generator().manual_seed)):
        ours_result, ours_error = outcome(lambda: ours(seed).initial_seed())
        theirs_result, theirs_error = outcome(lambda: theirs(seed).initial_seed())
        assert (ours_result, ours_error) == (theirs_result, theirs_error)


def test_manual_seed_clears_the_normal_cache():
    seed_both(0)
    _random.normal((1,), np.float32)
    torch.randn(1)
    seed_both(0)
    assert_same(_random.normal((3,), np.float32), torch.randn(3))


def test_seed_is_nondeterministic_and_recorded():
    first, second = _random.seed(), _random.seed()
    assert first != second
    assert _random.initial_seed() == second
    torch.manual_seed(second)
    assert_same(_random.uniform((3,), np.float32), torch.rand(3))


# -- the other capability path --------------------------------------------------------------------


def test_default_cpu_capability_path_matches_torch():
    """torch built for plain x86-64 (ATEN_CPU_CAPABILITY=default) calls the C library's logf and
    sincosf for float32 normals and does not fuse uniform_'s multiply-add; replay both."""
    program = textwrap.dedent("""
        import numpy as np, torch
        from leafgrad import _rng as _random
        assert torch.backends.cpu.get_cpu_capability() == "DEFAULT", "capability not forced"
        assert _random._CAPABILITY == "default" and not _random._FUSED_UNIFORM
        for seed in (0, 99):
            torch.manual_seed(seed); _random.manual_seed(seed)
            pairs = [
                (_random.normal((4001,), np.float32, 0.5, 1.7),
                 torch.empty(4001).normal_(0.5, 1.7)),
                (_random.normal((100,), np.float16), torch.randn(100, dtype=torch.float16)),
                (_random.normal((7,), np.float32, 2.0, 3.0), torch.empty(7).normal_(2.0, 3.0)),
                (_random.uniform((4000,), np.float32, -1.3, 2.9),
                 torch.empty(4000).uniform_(-1.3, 2.9)),
                (_random.uniform((4000,), np.float64, -1.3, 2.9),
                 torch.empty(4000, dtype=torch.float64).uniform_(-1.3, 2.9)),
                (_random.get_rng_state(), torch.get_rng_state()),
            ]
            for ours, theirs in pairs:
                assert ours.tobytes() == theirs.numpy().tobytes()
        print("same")
    """)
    environment = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    environment["PYTHONPATH"] = source + os.pathsep + environment.get("PYTHONPATH", "")
    finished = subprocess.run([sys.executable, "-c", program], env=environment,
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert finished.stdout.strip() == "same"


# -- the exact arithmetic underneath --------------------------------------------------------------


def _round_to_float32(value: Fraction) -> np.float32:
    """Correct rounding of an exact rational to float32 (ties to even), by brute comparison."""
    guess = np.float32(float(value))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess,
                  np.nextafter(guess, np.float32(np.inf))]
    best = min(candidates, key=lambda c: (abs(Fraction(float(c)) - value),
                                          int(np.array(c).view(np.uint32)) & 1))
    return best


def test_fma32_rounds_once():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(3000) * 2.0 ** rng.integers(-20, 20, 3000)).astype(np.float32)
    b = (rng.standard_normal(3000) * 2.0 ** rng.integers(-20, 20, 3000)).astype(np.float32)
    c = (rng.standard_normal(3000) * 2.0 ** rng.integers(-40, 40, 3000)).astype(np.float32)
    # Cases where float64 lands exactly on a float32 midpoint: naive double rounding fails.
    one_up = np.float32(1 + 2.0**-23)
    tie_a = np.array([2.0**-12 * (1 + 2.0**-23)] * 2, dtype=np.float32)
    tie_b = np.array([2.0**-12 * (1 - 2.0**-23), 2.0**-12 * (1 + 2.0**-23)], dtype=np.float32)
    tie_c = np.array([one_up, -one_up], dtype=np.float32)
    a, b, c = (np.concatenate(pair) for pair in ((a, tie_a), (b, tie_b), (c, tie_c)))
    ours = _random._fma32(a, b, c)
    expected = [_round_to_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                for x, y, z in zip(a, b, c)]
    assert_same(ours, np.array(expected, dtype=np.float32))
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert naive[-2] != ours[-2]  # the constructed tie really defeats plain double rounding


def test_fma64_rounds_once():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(3000) * 2.0 ** rng.integers(-30, 30, 3000)
    b = rng.standard_normal(3000) * 2.0 ** rng.integers(-30, 30, 3000)
    c = -a * b * (1 + rng.integers(-3, 4, 3000) * 2.0**-52)  # heavy cancellation
    c[::3] = rng.standard_normal(1000) * 2.0 ** rng.integers(-60, 60, 1000)
    # 1 + 2**-52 + 2**-53 - 2**-157: just below a midpoint, which two roundings would reach.
    a = np.append(a, 1 + 2.0**-52)
    b = np.append(b, 2.0**-53 - 2.0**-105)
    c = np.append(c, 1 + 2.0**-52)
    ours = _random._fma64(a, b, c)
    expected = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert_same(ours, np.array(expected))
    assert ours[-1] == 1 + 2.0**-52


# -- through the public API -----------------------------------------------------------------------


def test_public_factories_follow_the_same_stream():
    leafgrad.manual_seed(7)
    torch.manual_seed(7)
    assert_same(leafgrad.rand(2, 3).numpy(), torch.rand(2, 3))
    assert_same(leafgrad.randn(40).numpy(), torch.randn(40))
    assert_same(leafgrad.randint(0, 10, (6,)).numpy(), torch.randint(0, 10, (6,)))
    assert_same(leafgrad.randperm(9).numpy(), torch.randperm(9))
    generator = leafgrad.Generator().manual_seed(3)
    assert_same(leafgrad.rand(4, generator=generator).numpy(),
                torch.rand(4, generator=torch.Generator().manual_seed(3)))
    assert leafgrad.initial_seed() == torch.initial_seed() == 7


def test_normal_with_tensor_mean_and_std_follows_torchs_stream():
    torch = require_torch()
    import leafgrad

    leafgrad.manual_seed(3)
    torch.manual_seed(3)
    ours = leafgrad.normal(leafgrad.arange(20.0), leafgrad.ones(20) * 2).tolist()
    theirs = torch.normal(torch.arange(20.0), torch.ones(20) * 2).tolist()
    assert ours == theirs
