"""Dynamic and static graphs, live: the same training step run eagerly and through
``leafgrad.compile``.

    python demo/dynamic_vs_static.py [--steps N]

The seed tutorials contrast PyTorch's dynamic graph (built while the code runs, rebuilt on every
step) with TensorFlow's static graph (defined once, then run). leafgrad has both: eager mode
records a fresh graph each step; ``leafgrad.compile`` captures the step once (forward,
backward and optimizer step) and replays it as straight-line NumPy.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import leafgrad as torch
import leafgrad.nn.functional as F


def make_model(seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.Tanh(), torch.nn.Linear(32, 10))
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def graph_size(tensor) -> int:
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(child for child, _ in node.next_functions)
    return len(seen)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    batches = [(torch.tensor(rng.standard_normal((32, 64)).astype(np.float32)),
                torch.tensor(rng.integers(0, 10, 32))) for _ in range(8)]

    print("== Dynamic vs static: one training step, eager and compiled")
    model, optimizer = make_model()

    def train_step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    print("\nEager (define-by-run): every step records a new graph while it runs.")
    for step in range(3):
        x, y = batches[step]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        print(f"  step {step}: loss {loss.item():.4f}, graph of {graph_size(loss)} nodes, "
              f"grad_fn {type(loss.grad_fn).__name__} at 0x{id(loss.grad_fn):x} (new object)")
        loss.backward()
        optimizer.step()

    model, optimizer = make_model()
    compiled = torch.compile(train_step)
    print("\nCompiled (define-then-run): the first call captures the step, later calls replay.")
    for step in range(3):
        loss = compiled(*batches[step])
        print(f"  step {step}: loss {loss.item():.4f}, captures so far {len(compiled.captures)}, "
              f"replays {compiled.replays}")
    graph = compiled.graph
    lines = str(graph).splitlines()
    print(f"\nThe captured graph ({len(graph.live_nodes())} nodes: forward, backward, "
          f"the .grad stores and the optimizer call), first and last lines:")
    for line in lines[:6] + ["  ..."] + lines[-6:]:
        print("  " + line)
    code = compiled.code.splitlines()
    print(f"\nIts generated code ({len(code)} lines of straight-line NumPy), a few lines:")
    body = [line for line in code if " = F" in line or " = U" in line]
    for line in body[:4]:
        print("  " + line.strip())

    print("\nSame results: 20 eager steps and 20 compiled steps from the same start.")
    model_a, opt_a = make_model()
    model_b, opt_b = make_model()

    def step_a(x, y):
        opt_a.zero_grad()
        loss = F.cross_entropy(model_a(x), y)
        loss.backward()
        opt_a.step()
        return loss

    def step_b(x, y):
        opt_b.zero_grad()
        loss = F.cross_entropy(model_b(x), y)
        loss.backward()
        opt_b.step()
        return loss

    step_b = torch.compile(step_b)
    for i in range(20):
        step_a(*batches[i % 8])
        step_b(*batches[i % 8])
    same = all(np.array_equal(p.detach().numpy(), q.detach().numpy())
               for p, q in zip(model_a.parameters(), model_b.parameters()))
    print(f"  weights identical bit for bit: {same}")

    print(f"\nTiming {args.steps} steps (batch 32, 64-32-10 MLP, SGD with momentum, "
          f"{torch.get_num_threads()} thread{'s' if torch.get_num_threads() > 1 else ''}):")
    timings = {}
    for name, fn in (("eager", step_a), ("compiled", step_b)):
        fn(*batches[0])
        start = time.perf_counter()
        for i in range(args.steps):
            fn(*batches[i % 8])
        timings[name] = (time.perf_counter() - start) / args.steps
    print(f"  eager    {timings['eager'] * 1e6:8.1f} us per step (graph rebuilt every step)")
    print(f"  compiled {timings['compiled'] * 1e6:8.1f} us per step (graph built once)  "
          f"-> {timings['eager'] / timings['compiled']:.1f}x faster")

    print("\nControl flow picks the graph: two captures of one function, diffed.")

    def forward(x, activation):
        h = x * 2.0
        return torch.tanh(h) if activation == "tanh" else torch.relu(h)

    f = torch.compile(forward)
    x = batches[0][0]
    f(x, "tanh")
    tanh_graph = f.graph
    f(x, "relu")
    for line in tanh_graph.diff(f.graph).splitlines():
        print("  " + line)

    print("\nData-dependent Python cannot be captured; explain() says where and why:")

    def clipped_step(x, y):
        loss = F.cross_entropy(model(x), y)
        if loss.item() > 10.0:  # reads a value into Python
            loss = loss * 0.1
        return loss.detach()

    report = torch.compile.explain(clipped_step, *batches[0])
    for line in str(report).splitlines():
        print("  " + line.replace(sys.path[0], "demo"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
