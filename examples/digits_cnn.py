"""Train a small CNN on the handwritten digits that ship with scikit-learn, with leafgrad.

    python examples/digits_cnn.py [--backend leafgrad|torch] [--epochs N] [--seed S]
                                  [--save PATH] [--no-progress]

The script is ordinary PyTorch code: ``nn.Sequential`` of convolutions, ``optim.Adam``,
``DataLoader`` over a ``TensorDataset``, a tqdm progress bar, ``torch.save`` of the weights.
Only the import differs (``import leafgrad as torch``); ``--backend torch`` runs the very same
code with PyTorch for comparison. The data (1,797 8x8 images, ``sklearn.datasets.load_digits``)
is part of scikit-learn, so nothing is downloaded. The last line printed is
``digits test accuracy: NN.N%``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_backend(name: str):
    """The module this script calls ``torch``: leafgrad (default) or PyTorch itself."""
    if name == "torch":
        import torch

        return torch
    try:
        import leafgrad
    except ImportError:  # a clone that was not pip-installed: use the source tree
        sys.path.insert(0, os.path.join(REPO, "src"))
        import leafgrad
    return leafgrad


def build_model(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),  # 16 x 8 x 8
        nn.ReLU(),
        nn.MaxPool2d(2),  # 16 x 4 x 4
        nn.Conv2d(16, 32, kernel_size=3, padding=1),  # 32 x 4 x 4
        nn.ReLU(),
        nn.MaxPool2d(2),  # 32 x 2 x 2
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 64),
        nn.ReLU(),
        nn.Linear(64, 10),
    )


def load_digits(torch, seed: int):
    """(train, test) TensorDatasets: images scaled to [0, 1] as (N, 1, 8, 8), labels int64."""
    from sklearn.datasets import load_digits as sklearn_digits

    digits = sklearn_digits()
    images = torch.tensor(digits.images / 16.0, dtype=torch.float32).unsqueeze(1)
    labels = torch.tensor(digits.target, dtype=torch.int64)
    dataset = torch.utils.data.TensorDataset(images, labels)
    generator = torch.Generator().manual_seed(seed)
    return torch.utils.data.random_split(dataset, [0.8, 0.2], generator=generator)


def accuracy(torch, model, loader) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            predictions = model(images).argmax(dim=1)
            correct += (predictions == labels).sum().item()
            total += labels.numel()
    model.train()
    return correct / total


def train(torch, model, optimizer, loader, epochs: int, progress: bool = True) -> None:
    """Cross-entropy training; a tqdm bar per epoch shows the running loss and accuracy."""
    from tqdm import tqdm

    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(1, epochs + 1):
        total_loss = correct = seen = 0
        batches = tqdm(loader, desc=f"epoch {epoch:2d}/{epochs}", leave=False,
                       disable=not progress, unit="batch")
        for images, labels in batches:
            optimizer.zero_grad()
            logits = model(images)
            loss = loss_fn(logits, labels)
            loss.backward()
            optimizer.step()
            total_loss += loss.item() * labels.numel()
            correct += (logits.argmax(dim=1) == labels).sum().item()
            seen += labels.numel()
            batches.set_postfix(loss=f"{total_loss / seen:.3f}", acc=f"{correct / seen:.1%}")
        batches.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("leafgrad", "torch"), default="leafgrad")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--save", default=os.path.join("build", "digits_cnn.pt"))
    parser.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    args = parser.parse_args(argv)

    torch = load_backend(args.backend)

    torch.manual_seed(args.seed)
    train_set, test_set = load_digits(torch, args.seed)
    DataLoader = torch.utils.data.DataLoader
    generator = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              generator=generator)
    test_loader = DataLoader(test_set, batch_size=256)
    model = build_model(torch)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = time.perf_counter()
    train(torch, model, optimizer, train_loader, args.epochs, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    print(f"trained {args.epochs} epochs in {elapsed:.1f} s "
          f"({len(train_set)} training images, {len(test_set)} test images)")
    os.makedirs(os.path.dirname(args.save) or ".", exist_ok=True)
    torch.save(model.state_dict(), args.save)
    print(f"weights saved to {args.save} (a torch.save checkpoint: torch.load reads it)")
    print(f"digits test accuracy: {100 * accuracy(torch, model, test_loader):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
