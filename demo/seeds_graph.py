"""The seeds' graph as a page: y = (x + w) * (w + 1), its values, gradients and backward replay.

    python demo/seeds_graph.py [-o build/seeds_graph.html]

The picture the seed tutorials draw by hand, made from leafgrad's live graph: w and x are
leaves, a = x + w and b = w + 1 are the two paths from w, y = a * b is the output. The page
replays backward one event at a time: MulBackward0 sends b = 2 to a's branch and a = 3 to b's,
both reach w's accumulator and are summed (w.grad = 5), x gets 2. Open it in a browser: no
network, no files beside it. ``make demo`` ends with it.
"""

from __future__ import annotations

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_page(path: str) -> str:
    try:
        import leafgrad as torch
    except ImportError:  # a fresh clone that was not pip-installed
        sys.path.insert(0, os.path.join(REPO, "src"))
        import leafgrad as torch

    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    a = torch.add(x, w)
    b = torch.add(w, 1)
    y = torch.mul(a, b)  # y = (x + w) * (w + 1)
    with torch.autograd.trace() as trace:
        y.backward()
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    return trace.save(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=os.path.join(REPO, "build", "seeds_graph.html"))
    args = parser.parse_args(argv)
    path = write_page(args.output)
    print("== The seeds' graph, y = (x + w) * (w + 1), with its backward replay:")
    print(f"   open {os.path.abspath(path)} in a browser")
    return 0


if __name__ == "__main__":
    sys.exit(main())
