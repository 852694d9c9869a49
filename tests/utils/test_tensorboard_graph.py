"""``SummaryWriter.add_graph`` (utils/tensorboard/_graph.py) against torch's: for the same
models and inputs, the GraphDef both write has the same ops in the same module scopes with the
same output shapes, in order (torch's JIT names some ops differently, ``aten::_convolution``
for a convolution layer, and adds constant and list nodes for ops' arguments: the comparison
is of the scopes and shapes of the ops that make tensors), the same input and output nodes'
shapes, the same tagged step statistics, and leaves the model's training mode as torch leaves
it. Every node's inputs name nodes of the graph."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
if os.environ.get("CI"):
    import tensorboard  # noqa: F401 - CI installs the extra; its absence must fail
else:
    pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing.event_file_loader import (  # noqa: E402
    RawEventFileLoader)
from tensorboard.compat.proto.event_pb2 import Event  # noqa: E402
from tensorboard.compat.proto.config_pb2 import RunMetadata  # noqa: E402
from tensorboard.compat.proto.graph_pb2 import GraphDef  # noqa: E402

# torch's add_graph runs torch.jit.trace, which warns that the JIT is deprecated
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _cnn(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 4 * 4, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 4 * 4)
            return self.fc2(F.relu(self.fc1(x)))

    return Net(), (lib.randn(4, 1, 28, 28),)


def _sequential(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    return model, lib.randn(2, 5)  # a single tensor, not a tuple


def _batch_norm(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU())
            self.head = nn.Linear(6, 2)

        def forward(self, x):
            return self.head(self.body(x))

    model = Block()
    model.train()
    return model, (lib.randn(3, 4),)


def _two_inputs_two_outputs(lib):
    nn = lib.nn

    class Pair(nn.Module):
        def __init__(self):
            super().__init__()
            self.shared = nn.Linear(3, 3)

        def forward(self, a, b):
            left = self.shared(a)
            right = self.shared(b)  # one module called twice
            return left + right, (left * right).sum(dim=1)

    model = Pair()
    model.eval()
    return model, (lib.randn(2, 3), lib.randn(2, 3))


MODELS = {"cnn": _cnn, "sequential": _sequential, "batch_norm": _batch_norm,
          "two_in_two_out": _two_inputs_two_outputs}


def _written(lib, directory, name):
    lib.manual_seed(0)
    model, args = MODELS[name](lib)
    writer = importlib.import_module(lib.__name__ + ".utils.tensorboard").SummaryWriter(directory)
    writer.add_graph(model, args)
    writer.close()
    graphs, metadata = [], []
    for file in sorted(os.listdir(directory)):
        for record in RawEventFileLoader(os.path.join(directory, file)).Load():
            event = Event.FromString(record)  # (as written: no migration to summaries)
            if event.graph_def:
                graphs.append(GraphDef.FromString(event.graph_def))
            if event.HasField("tagged_run_metadata"):
                tagged = event.tagged_run_metadata
                metadata.append((tagged.tag, RunMetadata.FromString(tagged.run_metadata)))
    modes = [module.training for module in model.modules()]
    return graphs, metadata, modes


def _shapes(node):
    return [[d.size for d in shape.dim] for shape in node.attr["_output_shapes"].list.shape]


def _summary(graph):
    ops, inputs, outputs = [], [], []
    for node in graph.node:
        if node.op == "IO Node":
            (outputs if node.name.startswith("output/") else inputs).append(_shapes(node))
        elif node.op.startswith("aten::") and _shapes(node):
            ops.append((node.name.rsplit("/", 1)[0], _shapes(node)))
    return ops, inputs, outputs


@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_matches_torchs(tmp_path, name):
    ours = _written(leafgrad, tmp_path / "leafgrad", name)
    theirs = _written(torch, tmp_path / "torch", name)
    assert len(ours[0]) == len(theirs[0]) == 1
    assert _summary(ours[0][0]) == _summary(theirs[0][0])
    assert [tag for tag, _ in ours[1]] == [tag for tag, _ in theirs[1]] == ["step1"]
    assert ours[1][0][1] == theirs[1][0][1]  # the one CPU device
    assert ours[2] == theirs[2]  # training modes after the call
    assert ours[0][0].versions == theirs[0][0].versions
    names = [node.name for node in ours[0][0].node]
    assert len(set(names)) == len(names)
    for node in ours[0][0].node:
        assert all(source in names for source in node.input), node


def test_verbose_prints_the_graph(tmp_path, capsys):
    leafgrad.manual_seed(0)
    model, args = _sequential(leafgrad)
    writer = leafgrad.utils.tensorboard.SummaryWriter(tmp_path)
    writer.add_graph(model, args, verbose=True)
    writer.close()
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "input/input = IO Node() : [2, 5]"
    assert "Sequential/Linear[0]/linear.1 = aten::linear(input/input, "
    "Sequential/Linear[0]/weight, Sequential/Linear[0]/bias) : [2, 8]" in printed
    assert printed[-1] == "output/output.1 = IO Node(Sequential/Linear[2]/linear.2) : [2, 3]"
    np.testing.assert_equal(len(printed), 9)
