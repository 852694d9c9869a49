"""torch._dynamo, torch.distributed and torch.nn.parallel names scripts import, against torch.

Scripts written for torch.compile set ``torch._dynamo.config`` keys and call ``reset``;
training scripts import ``DistributedDataParallel`` and ``torch.distributed``'s collectives at
the top and take their single-process path. These must import and behave as torch's do in one
process (leafgrad has no process group; its compiler is leafgrad.compile)."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from leafgrad import distributed as dist
from leafgrad._compile import api as compile_api

from ._torch import require_torch

torch = require_torch()
import torch._dynamo  # noqa: E402
import torch.distributed as torch_dist  # noqa: E402


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as error:  # noqa: BLE001 - compared by type and message
        return (type(error).__name__, str(error).splitlines()[0])


def test_config_has_torchs_keys_and_defaults():
    theirs = {key: value for key, value in torch._dynamo.config.get_config_copy().items()
              if not key.startswith("_")}
    ours = leafgrad._dynamo.config.get_config_copy()
    paths = ("base_dir", "debug_dir_root")  # the installation's and the working directory's
    assert ours.keys() == theirs.keys()
    assert {k: v for k, v in ours.items() if k not in paths} == {
        k: v for k, v in theirs.items() if k not in paths}
    assert ours["debug_dir_root"] == theirs["debug_dir_root"]
    for name in ("cache_size_limit", "recompile_limit", "suppress_errors", "verbose"):
        assert getattr(leafgrad._dynamo.config, name) == getattr(torch._dynamo.config, name)
    for lib in (torch, leafgrad):
        assert _outcome(lambda: setattr(lib._dynamo.config, "no_such_flag", 1)) == (
            "AttributeError", "torch._dynamo.config.no_such_flag does not exist")
    assert _outcome(lambda: leafgrad._dynamo.config.no_such_flag) == _outcome(
        lambda: torch._dynamo.config.no_such_flag)


def test_config_patch_restores_and_cache_size_limit_is_the_capture_limit():
    config = leafgrad._dynamo.config
    with config.patch(suppress_errors=True, verbose=True):
        assert config.suppress_errors and config.verbose
    assert not config.suppress_errors and not config.verbose

    @config.patch("cache_size_limit", 2)
    def limited():
        assert config.recompile_limit == 2 == compile_api.cache_size_limit
        f = leafgrad.compile(lambda x: x * 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for n in (1, 2, 3, 4):  # a new shape captures again; the third runs eagerly
                assert f(leafgrad.ones(n)).tolist() == [2.0] * n
        return [str(w.message) for w in caught]

    messages = limited()
    assert len(messages) == 1 and "cache_size_limit" in messages[0]
    assert config.cache_size_limit == 8 == compile_api.cache_size_limit
    # the alias writes the same key, as torch's
    for lib in (torch, leafgrad):
        lib._dynamo.config.cache_size_limit = 3
        assert lib._dynamo.config.recompile_limit == 3
        lib._dynamo.config.recompile_limit = 8


def test_disable_reset_graph_break_and_marks():
    calls = []

    @leafgrad._dynamo.disable
    def eager_only(x):
        calls.append(leafgrad._dynamo.is_compiling())
        return x + 1

    f = leafgrad.compile(lambda x: eager_only(x) * 3)
    assert f(leafgrad.ones(2)).tolist() == [6.0, 6.0] and calls == [False]
    leafgrad._dynamo.reset()

    def breaks(x):
        y = x.sin()
        leafgrad._dynamo.graph_break("here")
        return y.cos()

    x = leafgrad.ones(3)
    assert leafgrad.compile(breaks)(x).tolist() == breaks(x).tolist()
    with pytest.raises(leafgrad._dynamo.Unsupported, match="graph_break"):
        leafgrad.compile(breaks, fullgraph=True)(x)
    report = leafgrad._dynamo.explain(breaks)(x)
    assert report.graph_break_count == 1 and "graph_break(): here" in str(report)
    leafgrad._dynamo.graph_break()  # outside a capture: nothing

    for lib in (torch, leafgrad):
        t = lib.ones(2, 3)
        lib._dynamo.mark_dynamic(t, 0)
        lib._dynamo.mark_dynamic(t, [1])
        lib._dynamo.maybe_mark_dynamic(t, 1)
        lib._dynamo.mark_static(t, 0)
    t_ours, t_theirs = leafgrad.ones(1), torch.ones(1)
    for lib, t in ((leafgrad, t_ours), (torch, t_theirs)):
        lib._dynamo.mark_dynamic(t, [0, 1])
        lib._dynamo.maybe_mark_dynamic(t, 0)
        lib._dynamo.mark_static(t)
    for name in ("_dynamo_dynamic_indices", "_dynamo_weak_dynamic_indices",
                 "_dynamo_static_indices", "_has_dynamo_dim_marking"):
        assert getattr(t_ours, name) == getattr(t_theirs, name)


def test_optimize_is_compile():
    f = leafgrad._dynamo.optimize("inductor")(lambda x: x.exp().sum())
    x = leafgrad.arange(4.0)
    assert f(x).item() == x.exp().sum().item()
    assert leafgrad._dynamo.optimize(disable=True)(len) is len


def test_collectives_and_ddp_without_a_process_group_raise_torchs_error():
    names = ["all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
             "all_gather_object", "broadcast_object_list", "reduce", "gather", "scatter",
             "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
             "send", "recv", "isend", "irecv", "new_group", "get_backend", "monitored_barrier",
             "get_rank", "get_world_size", "barrier", "destroy_process_group"]
    args = {"all_reduce": lambda L: (L.ones(2),), "broadcast": lambda L: (L.ones(2), 0),
            "all_gather": lambda L: ([L.ones(1)], L.ones(1)),
            "all_gather_into_tensor": lambda L: (L.ones(2), L.ones(1)),
            "all_gather_object": lambda L: ([None], 1), "broadcast_object_list": lambda L: ([1],),
            "reduce": lambda L: (L.ones(1), 0), "gather": lambda L: (L.ones(1),),
            "scatter": lambda L: (L.ones(1),), "reduce_scatter": lambda L: (L.ones(1), [L.ones(1)]),
            "reduce_scatter_tensor": lambda L: (L.ones(1), L.ones(1)),
            "all_to_all": lambda L: ([L.ones(1)], [L.ones(1)]),
            "all_to_all_single": lambda L: (L.ones(1), L.ones(1)),
            "send": lambda L: (L.ones(1), 0), "recv": lambda L: (L.ones(1), 0),
            "isend": lambda L: (L.ones(1), 0), "irecv": lambda L: (L.ones(1), 0),
            "new_group": lambda L: ([0],)}
    for name in names:
        with warnings.catch_warnings(record=True) as ours_warned:
            warnings.simplefilter("always")
            ours = _outcome(lambda: getattr(dist, name)(*args.get(name, lambda L: ())(leafgrad)))
        with warnings.catch_warnings(record=True) as theirs_warned:
            warnings.simplefilter("always")
            theirs = _outcome(lambda: getattr(torch_dist, name)(
                *args.get(name, lambda L: ())(torch)))
        assert ours == theirs, name
        assert [(w.category, str(w.message)) for w in ours_warned] == [
            (w.category, str(w.message)) for w in theirs_warned], name
    from leafgrad.nn.parallel import DistributedDataParallel
    from torch.nn.parallel import DistributedDataParallel as TorchDDP
    assert _outcome(lambda: DistributedDataParallel(leafgrad.nn.Linear(2, 2))) == _outcome(
        lambda: TorchDDP(torch.nn.Linear(2, 2)))
    assert leafgrad.nn.parallel.DistributedDataParallel is DistributedDataParallel
    assert [repr(op) for op in dist.ReduceOp] == [repr(getattr(torch_dist.ReduceOp, op.name))
                                                   for op in dist.ReduceOp]
    assert dist.is_initialized() is torch_dist.is_initialized() is False


def test_torchelastic_launch_is_read_from_the_environment(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is torch_dist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "x")
    assert dist.is_torchelastic_launched() is torch_dist.is_torchelastic_launched() is True


def test_c_grad_switch_and_tracing_state():
    for value in (1, None, "x", 0.0):
        assert _outcome(lambda: leafgrad._C._set_grad_enabled(value)) == _outcome(
            lambda: torch._C._set_grad_enabled(value))
    try:
        for lib in (torch, leafgrad):
            lib._C._set_grad_enabled(False)
        assert leafgrad.is_grad_enabled() is torch.is_grad_enabled() is False
        assert not (leafgrad.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        torch._C._set_grad_enabled(True)
        leafgrad._C._set_grad_enabled(True)
    assert leafgrad._C._get_tracing_state() is torch._C._get_tracing_state() is None
