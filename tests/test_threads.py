"""Concurrency (issue 11 item 5): threads backpropagating into shared leaves lose no update, the
default generator's draws from several threads are a permutation of the sequential stream's,
and grad/inference mode are per thread while forward-AD levels are global, as in torch.

Every test lowers ``sys.setswitchinterval`` so that the interpreter switches threads every
few bytecodes, inside the read-add-write of ``.grad`` if it is not atomic."""

from __future__ import annotations

import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch


@pytest.fixture(autouse=True)
def _frequent_switches():
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def _in_threads(count: int, work) -> None:
    barrier = threading.Barrier(count)
    errors = []

    def run(index):
        try:
            barrier.wait()
            work(index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def _grad_value(x) -> np.ndarray:
    return x.grad.detach().numpy()


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_first_assignment_is_never_lost(threads):
    # One backward per thread into a fresh leaf, 1,000 times: the first grad is stored, the
    # others add to it. A lost first assignment leaves fewer than `threads`.
    lost = 0
    for _ in range(1000 // threads * 2):
        x = leafgrad.zeros(3, requires_grad=True)
        _in_threads(threads, lambda i: (x * 1.0).sum().backward())
        lost += int(not np.array_equal(_grad_value(x), np.full(3, threads, np.float32)))
    assert lost == 0


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("threads", [2, 4])
def test_repeated_accumulation_is_exact(threads, create_graph):
    per_thread = 100
    for _ in range(10):
        x = leafgrad.zeros(2, requires_grad=True)
        w = leafgrad.full((2,), 2.0, requires_grad=True)

        def work(index):
            for _ in range(per_thread):
                (x * w).sum().backward(create_graph=create_graph)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph's reference-cycle warning
            _in_threads(threads, work)
        total = threads * per_thread
        np.testing.assert_array_equal(_grad_value(x), np.full(2, 2.0 * total, np.float32))
        np.testing.assert_array_equal(_grad_value(w), np.zeros(2, np.float32))
        if create_graph:
            # the accumulated grad is still differentiable: d(sum x.grad)/dw = total per entry
            (dw,) = leafgrad.autograd.grad(x.grad.sum(), w)
            np.testing.assert_array_equal(dw.numpy(), np.full(2, float(total), np.float32))


def test_large_leaf_accumulation_is_exact():
    # NumPy releases the GIL inside the in-place add of a large array: without the per-leaf
    # lock two adds run at once on the same memory.
    size = 1 << 20
    for _ in range(5):
        x = leafgrad.zeros(size, requires_grad=True)

        def work(index):
            for _ in range(10):
                (x * 1.0).sum().backward()

        _in_threads(2, work)
        grad = _grad_value(x)
        assert grad.min() == grad.max() == 20.0


def test_retained_grad_of_a_shared_non_leaf_is_exact():
    for _ in range(20):
        x = leafgrad.zeros(2, requires_grad=True)
        y = x * 1.0
        y.retain_grad()
        loss = y.sum()

        def work(index):
            for _ in range(50):
                loss.backward(retain_graph=True)

        _in_threads(2, work)
        np.testing.assert_array_equal(y.grad.numpy(), np.full(2, 100.0, np.float32))
        np.testing.assert_array_equal(_grad_value(x), np.full(2, 100.0, np.float32))


def test_post_accumulate_hooks_see_every_accumulation():
    x = leafgrad.zeros(2, requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(float(t.grad[0])))
    _in_threads(4, lambda i: [(x * 1.0).sum().backward() for _ in range(50)])
    # each hook call runs right after its own accumulation, under the leaf's lock
    assert sorted(seen) == [float(n) for n in range(1, 201)]


DRAWS = {
    "rand": lambda g: leafgrad.rand(5, generator=g),
    "randn_vectorised": lambda g: leafgrad.randn(40, generator=g),
    "randn_scalar_path": lambda g: leafgrad.randn(3, generator=g),
    "randint": lambda g: leafgrad.randint(0, 1000, (7,), generator=g),
    "randperm": lambda g: leafgrad.randperm(30, generator=g),
    "dropout": lambda g: leafgrad.nn.functional.dropout(leafgrad.ones(50)),
    "normal_": lambda g: leafgrad.empty(17).normal_(generator=g),
}


@pytest.mark.parametrize(
    "draw, default",
    [(draw, default) for draw in sorted(DRAWS) for default in (True, False)
     if default or draw != "dropout"],  # dropout draws from the default generator only
)
def test_draws_from_two_threads_permute_the_sequential_stream(draw, default):
    make = DRAWS[draw]
    per_thread = 300
    generator = leafgrad.default_generator if default else leafgrad.Generator()
    generator.manual_seed(1234)
    sequential = [make(None if default else generator).numpy().tobytes()
                  for _ in range(2 * per_thread)]
    generator.manual_seed(1234)
    drawn = [[], []]
    _in_threads(2, lambda i: drawn[i].extend(
        make(None if default else generator).numpy().tobytes() for _ in range(per_thread)))
    assert sorted(drawn[0] + drawn[1]) == sorted(sequential)
    # and the generator ends where the sequential stream ended
    after_threads = make(None if default else generator).numpy()
    generator.manual_seed(1234)
    for _ in range(2 * per_thread):
        make(None if default else generator)
    np.testing.assert_array_equal(after_threads, make(None if default else generator).numpy())


_MODES_PROGRAM = r"""
import importlib, sys, threading
torch = importlib.import_module(sys.argv[1])
fwAD = torch.autograd.forward_ad
seen = {}

def observe(tag):
    x = torch.ones(2, requires_grad=True)
    seen[tag] = [torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
                 (x * 2).requires_grad]
    try:
        dual = fwAD.make_dual(torch.ones(2), torch.ones(2))
        seen[tag].append(fwAD.unpack_dual(dual).tangent is not None)
    except RuntimeError as error:
        seen[tag].append(str(error).splitlines()[0])

def in_thread(tag):
    thread = threading.Thread(target=observe, args=(tag,))
    thread.start()
    thread.join()

with torch.no_grad():
    in_thread("no_grad")
with torch.inference_mode():
    in_thread("inference_mode")
torch.set_grad_enabled(False)
in_thread("set_grad_enabled")
torch.set_grad_enabled(True)
with fwAD.dual_level():
    in_thread("dual_level")

def enter():
    fwAD.enter_dual_level()
    with torch.no_grad():
        pass

thread = threading.Thread(target=enter)
thread.start()
thread.join()
observe("level_entered_by_another_thread")
fwAD.exit_dual_level()
print(sorted(seen.items()))
"""


def test_modes_are_per_thread_and_dual_levels_global_as_in_torch():
    require_torch()
    printed = {}
    for lib in ("torch", "leafgrad"):
        run = subprocess.run([sys.executable, "-c", _MODES_PROGRAM, lib], capture_output=True,
                             text=True, check=True, timeout=120)
        printed[lib] = run.stdout
    assert printed["leafgrad"] == printed["torch"]
