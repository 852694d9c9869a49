"""The seeds' closing example: model A feeds model B through ``detach()``; only B is trained.

    python examples/detach_two_models.py [--backend leafgrad|torch]

From the first seed tutorial: "suppose we have model A and model B, A's output is B's input,
but we only train B: ``input_B = output_A.detach()``". ``detach()`` cuts the graph, so
``backward`` on B's loss stops at ``input_B``: A's parameters get no gradient at all (their
``.grad`` stays None), and ``optimizer.zero_grad()`` clears B's gradients between steps because
PyTorch accumulates them otherwise. The script prints what happens to each model's parameters.
"""

from __future__ import annotations

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_backend(name: str):
    if name == "torch":
        import torch

        return torch
    try:
        import leafgrad
    except ImportError:
        sys.path.insert(0, os.path.join(REPO, "src"))
        import leafgrad
    return leafgrad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("leafgrad", "torch"), default="leafgrad")
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args(argv)
    torch = load_backend(args.backend)
    nn = torch.nn

    torch.manual_seed(0)
    model_a = nn.Sequential(nn.Linear(2, 8), nn.Tanh())  # a frozen feature extractor
    model_b = nn.Linear(8, 1)  # the model we train
    optimizer = torch.optim.SGD(model_b.parameters(), lr=0.1)

    # Targets: y = x0 - 2 * x1, which B must learn from A's random features.
    x = torch.randn(64, 2)
    y = (x[:, :1] - 2 * x[:, 1:]).detach()
    a_before = [p.detach().clone() for p in model_a.parameters()]

    for step in range(args.steps):
        output_a = model_a(x)
        input_b = output_a.detach()  # the cut: B's graph starts here, as a leaf
        loss = ((model_b(input_b) - y) ** 2).mean()
        optimizer.zero_grad()  # gradients accumulate otherwise
        loss.backward()
        optimizer.step()
        if step == 0:
            print("output_a.requires_grad:", output_a.requires_grad,
                  "| input_b.requires_grad:", input_b.requires_grad,
                  "| input_b.is_leaf:", input_b.is_leaf)
            print("model A grads after backward:", [p.grad for p in model_a.parameters()])
            print("model B weight grad is set:", model_b.weight.grad is not None)
            print(f"step   0: loss {loss.item():.4f}")
    print(f"step {args.steps:3d}: loss {loss.item():.4f}")
    unchanged = all(torch.equal(p, q) for p, q in zip(model_a.parameters(), a_before))
    print("model A unchanged:", unchanged)
    return 0


if __name__ == "__main__":
    sys.exit(main())
