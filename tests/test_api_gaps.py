"""Names torch 2.13 has that leafgrad lacked (docs/coverage.md), each against torch:
autograd.set_multithreading_enabled, nn.Container, nn.NLLLoss2d, nn.SyncBatchNorm (and its
convert_sync_batchnorm), nn.utils.convert_conv2d/3d_weight_memory_format,
func.replace_all_batch_norm_modules_."""

import threading

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - type and first line compared with torch's
        return type(error).__name__, str(error).splitlines()[0]
    return None


def _is_enabled(lib):
    return lib._C._is_multithreading_enabled()


def test_set_multithreading_enabled():
    def run(lib):
        out = [_is_enabled(lib)]
        switch = lib.autograd.set_multithreading_enabled(False)  # takes effect when made
        out.append(_is_enabled(lib))
        with switch:
            out.append(_is_enabled(lib))
        out.append(_is_enabled(lib))  # restored on leaving
        with lib.autograd.set_multithreading_enabled(False):
            seen = []
            worker = threading.Thread(target=lambda: seen.append(_is_enabled(lib)))
            worker.start()
            worker.join()
            out.append(seen)  # thread-local: another thread has the default
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            (x * x).sum().backward()  # backward runs as usual
            out.append(x.grad.tolist())

        @lib.autograd.set_multithreading_enabled(True)
        def decorated():
            return _is_enabled(lib)

        out.append(decorated())
        out.append(_error(lambda: lib.autograd.set_multithreading_enabled(1)))
        lib._C._set_multithreading_enabled(True)
        out.append(_is_enabled(lib))
        return out

    assert run(lg) == run(torch)


def test_container_and_nllloss2d():
    def run(lib):
        lib.manual_seed(0)
        box = lib.nn.Container(first=lib.nn.Linear(2, 3), second=lib.nn.ReLU())
        loss = lib.nn.NLLLoss2d(weight=lib.tensor([1.0, 2.0, 0.5]), ignore_index=1)
        scores = lib.randn(2, 3, 4, 5).log_softmax(1).requires_grad_()
        target = lib.tensor(np.random.default_rng(0).integers(0, 3, (2, 4, 5)))
        value = loss(scores, target)
        value.backward()
        return (repr(box), [name for name, _ in box.named_parameters()], repr(loss),
                isinstance(loss, lib.nn.NLLLoss), value.item(), scores.grad.numpy().tolist())

    assert run(lg) == run(torch)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 3)])
def test_sync_batch_norm_normalises_as_batch_norm(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    w = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    results = []
    for lib in (lg, torch):
        layer = lib.nn.SyncBatchNorm(3, momentum=None if len(shape) == 3 else 0.2)
        inp = lib.tensor(x, requires_grad=True)
        out = layer(inp)
        (out * lib.tensor(w)).sum().backward()
        layer(inp * 2)
        layer.eval()
        evaluated = layer(inp)
        results.append([out.detach().numpy(), inp.grad.numpy(), layer.weight.grad.numpy(),
                        layer.running_mean.numpy(), layer.running_var.numpy(),
                        layer.num_batches_tracked.numpy(), evaluated.detach().numpy(),
                        repr(layer), type(out.grad_fn).__name__])
    for ours, theirs in zip(*results):
        if isinstance(ours, str):
            assert ours == theirs
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_sync_batch_norm_errors_and_conversion():
    def run(lib):
        out = [_error(lambda: lib.nn.SyncBatchNorm(3)(lib.ones(3))),
               _error(lambda: lib.nn.SyncBatchNorm(0)(lib.ones(2, 0, 3)))]
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2, affine=False),
                                  lib.nn.Sequential(lib.nn.Flatten(), lib.nn.BatchNorm1d(8)))
        inner_bn = model[2][1]
        inner_bn.eval()
        converted = lib.nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group="group")
        out.append(converted is model)
        out.append(repr(converted))
        synced = converted[2][1]
        out.append([type(synced).__name__, synced.weight is inner_bn.weight,
                    synced.running_mean is inner_bn.running_mean, synced.training,
                    synced.process_group, converted[1].weight is None])
        single = lib.nn.BatchNorm1d(4, bias=False)
        made = lib.nn.SyncBatchNorm.convert_sync_batchnorm(single)
        out.append([made is single, type(made).__name__, made.bias is None,
                    list(made.state_dict())])
        return out

    assert run(lg) == run(torch)


def test_convert_conv_weight_memory_format():
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.Conv1d(2, 2, 2),
                                  lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 2)),
                                  lib.nn.Conv3d(1, 2, 2))
        weights = [p for p in model.parameters()]
        values = [p.detach().numpy().copy() for p in weights]
        returned = lib.nn.utils.convert_conv2d_weight_memory_format(model, lib.channels_last)
        lib.nn.utils.convert_conv3d_weight_memory_format(model, lib.channels_last_3d)
        out = [returned is model,
               [p.stride() for p in model.parameters()],
               all(a is b for a, b in zip(weights, model.parameters())),
               all(np.array_equal(v, p.detach().numpy()) for v, p in zip(values, weights)),
               model[0].weight.is_contiguous(memory_format=lib.channels_last)]
        lib.nn.utils.convert_conv2d_weight_memory_format(model, lib.contiguous_format)
        out.append([p.stride() for p in model.parameters()])
        x = lib.randn(1, 3, 5, 5)
        out.append(model[0](x).detach().numpy().round(5).tolist())
        return out

    assert run(lg) == run(torch)


def test_replace_all_batch_norm_modules():
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
                                  lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False)),
                                  lib.nn.InstanceNorm1d(4, track_running_stats=True))
        returned = lib.func.replace_all_batch_norm_modules_(model)
        bn = lib.nn.BatchNorm1d(4)
        lib.func.replace_all_batch_norm_modules_(bn)
        x = lib.randn(5, 3)
        model.eval()
        y = model[:3](x)
        return [returned is model, list(model.state_dict()), model[1].running_mean,
                model[1].track_running_stats, model[3].track_running_stats,
                bn.track_running_stats, repr(model), y.detach().numpy().round(5).tolist()]

    assert run(lg) == run(torch)
