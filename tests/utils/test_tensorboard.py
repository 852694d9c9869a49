"""``torch.utils.tensorboard.SummaryWriter`` against torch's: the same calls (scalars old and
new style, grouped scalars, histograms with TensorFlow's buckets, explicit bins and max_bins,
text, hparams, purge_step) write the same events (compared as serialized protocol buffers,
the walltime given); the same errors; torch's ImportError without the tensorboard package."""

from __future__ import annotations

import importlib
import os
import sys

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
if os.environ.get("CI"):
    import tensorboard  # noqa: F401 - CI installs the extra; its absence must fail
else:
    pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing.event_file_loader import EventFileLoader  # noqa: E402

import leafgrad.utils.tensorboard  # noqa: E402,F401
import torch.utils.tensorboard  # noqa: E402,F401


def _events(directory) -> dict:
    """{relative run directory: [serialized events, the file_version event's wall time
    dropped]} for every event file under ``directory``."""
    runs = {}
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.startswith("events.out.tfevents"):
                continue
            events = []
            for event in EventFileLoader(os.path.join(root, name)).Load():
                if event.file_version and not event.HasField("summary") and not event.step:
                    continue  # the writer's own first event, stamped with the current time
                events.append(event.SerializeToString())
            runs[os.path.relpath(root, directory)] = events
    return runs


def _write(lib, directory, values):
    writer = lib.utils.tensorboard.SummaryWriter(directory, purge_step=None)
    for step in range(3):
        writer.add_scalar("loss/train", 1.0 / (step + 1), step, walltime=100.0 + step)
        writer.add_scalar("loss/tensor", lib.tensor(0.25 * step), step, walltime=100.0)
        writer.add_scalar("loss/np", np.float32(step), global_step=step, walltime=100.0)
        writer.add_scalar("new", 2.5, step, walltime=100.0, new_style=True)
        writer.add_scalar("new64", 2.5, step, walltime=100.0, new_style=True,
                          double_precision=True)
        writer.add_scalars("group/x", {"a": step, "b": 2 * step}, step, walltime=100.0)
    writer.add_histogram("weights", lib.tensor(values), 7, walltime=100.0)
    writer.add_histogram("weights_np", values, 7, walltime=100.0)
    writer.add_histogram("auto", lib.tensor(values), 8, bins="auto", walltime=100.0)
    writer.add_histogram("ten", lib.tensor(values), 8, bins=10, walltime=100.0, max_bins=3)
    writer.add_histogram("capped", lib.tensor(values), 8, walltime=100.0, max_bins=25)
    writer.add_histogram("int", lib.arange(12), 9, walltime=100.0)
    writer.add_histogram_raw("raw", min=0.0, max=3.0, num=4, sum=6.0, sum_squares=14.0,
                             bucket_limits=[1.0, 2.0, 3.0], bucket_counts=[1, 2, 1],
                             global_step=1, walltime=100.0)
    writer.add_text("notes", "**hello** world", 3, walltime=100.0)
    writer.add_hparams({"lr": 0.1, "opt": "sgd", "layers": 3, "flag": True, "skip": None,
                        "t": lib.tensor([0.5])}, {"hparam/accuracy": 0.9}, run_name="trial",
                       global_step=2)
    writer.add_hparams({"lr": 0.2}, {"acc": 1.0}, hparam_domain_discrete={"lr": [0.1, 0.2]},
                       run_name="domain")
    writer.flush()
    writer.close()
    writer.close()  # a second close does nothing


def test_events_match_torch(tmp_path):
    values = np.random.default_rng(0).standard_normal(500) * 3
    for lib in (torch, leafgrad):
        _write(lib, tmp_path / lib.__name__, values)
    ours, theirs = _events(tmp_path / "leafgrad"), _events(tmp_path / "torch")
    assert sorted(ours) == sorted(theirs)
    for run in theirs:
        if run.startswith(("trial", "domain")):  # hparams runs: wall times are the clock's
            assert len(ours[run]) == len(theirs[run]), run
            continue
        assert ours[run] == theirs[run], run


def test_purge_step_and_reuse_after_close(tmp_path):
    for lib in (torch, leafgrad):
        writer = lib.utils.tensorboard.SummaryWriter(tmp_path / lib.__name__, purge_step=5,
                                                     filename_suffix=".x")
        writer.add_scalar("a", 1.0, 5, walltime=1.0)
        writer.close()
        writer.add_scalar("a", 2.0, 6, walltime=2.0)  # a closed writer opens a new file
        writer.close()
        assert writer.get_logdir() == tmp_path / lib.__name__
    ours, theirs = _events(tmp_path / "leafgrad"), _events(tmp_path / "torch")
    assert {k: sorted(v) for k, v in ours.items()} == {k: sorted(v) for k, v in theirs.items()}
    names = [sorted(n.endswith(".x") for n in os.listdir(tmp_path / lib.__name__))
             for lib in (torch, leafgrad)]
    assert names[0] == names[1]


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return None


def test_errors(tmp_path):
    calls = [
        lambda w, lib: w.add_scalar("x", lib.ones(2), 0),
        lambda w, lib: w.add_histogram("h", lib.ones(0), 0),
        lambda w, lib: w.add_histogram("h", [1, 2], 0),
        lambda w, lib: w.add_histogram_raw("r", 0, 1, 1, 1, 1, [1.0], [1, 2]),
        lambda w, lib: w.add_hparams([1], {}),
        lambda w, lib: w.add_hparams({"a": [1]}, {"m": 1}),
        lambda w, lib: w.add_hparams({"a": 1}, {"m": 1}, hparam_domain_discrete={"b": [1]}),
    ]
    for call in calls:
        outcomes = []
        for lib in (torch, leafgrad):
            with lib.utils.tensorboard.SummaryWriter(tmp_path / lib.__name__) as writer:
                outcomes.append(_error(lambda: call(writer, lib)))
        assert outcomes[0] == outcomes[1] and outcomes[0] is not None


def test_default_log_dir_and_missing_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for lib in (torch, leafgrad):
        writer = lib.utils.tensorboard.SummaryWriter(comment="_exp")
        writer.close()
        assert writer.log_dir.startswith("runs" + os.sep) and writer.log_dir.endswith("_exp")
    messages = []
    for name in ("torch.utils.tensorboard", "leafgrad.utils.tensorboard"):
        saved = {key: module for key, module in sys.modules.items()
                 if key == name or key.startswith(name + ".") or key == "tensorboard"}
        for key in saved:
            del sys.modules[key]
        sys.modules["tensorboard"] = None
        try:
            messages.append(_error(lambda name=name: importlib.import_module(name)))
        finally:
            del sys.modules["tensorboard"]
            sys.modules.update(saved)
    assert messages[0] == messages[1] and messages[0][0] == "ModuleNotFoundError"
