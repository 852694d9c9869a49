"""A character-level language model (embedding, LSTM, linear) trained on a few sonnets.

    python examples/char_lm.py [--backend leafgrad|torch] [--cell lstm|gru] [--steps N]
                               [--seed S] [--no-progress]

The text is examples/data/sonnets.txt: six of Shakespeare's sonnets (1609, public domain),
3.7 kB. Training samples random windows of 64 characters, predicts each next character with
``nn.CrossEntropyLoss``, and clips the gradient norm with ``nn.utils.clip_grad_norm_`` as RNN
training usually does. At the end the model writes a few lines, one character at a time,
starting from "Shall I". ``--backend torch`` runs the same code with PyTorch.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


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


def make_model(torch, vocabulary: int, cell: str, hidden: int = 128):
    nn = torch.nn

    class CharModel(nn.Module):
        """Characters -> embeddings -> recurrent layer -> next-character logits."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocabulary, 32)
            recurrent = nn.LSTM if cell == "lstm" else nn.GRU
            self.rnn = recurrent(32, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocabulary)

        def forward(self, chars, state=None):
            output, state = self.rnn(self.embed(chars), state)
            return self.head(output), state

    return CharModel()


def sample(torch, model, start: str, stoi: dict, itos: list, length: int) -> str:
    """Write ``length`` characters after ``start``, drawing each from the model's softmax."""
    model.eval()
    text = start
    with torch.no_grad():
        chars = torch.tensor([[stoi[c] for c in start]])
        logits, state = model(chars)
        for _ in range(length):
            probabilities = torch.softmax(logits[0, -1] / 0.8, dim=0)
            # inverse-CDF draw from torch's stream: the same code runs on both backends
            index = int((probabilities.cumsum(0) < torch.rand(1)).sum().clamp(max=len(itos) - 1))
            text += itos[index]
            logits, state = model(torch.tensor([[index]]), state)
    model.train()
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("leafgrad", "torch"), default="leafgrad")
    parser.add_argument("--cell", choices=("lstm", "gru"), default="lstm")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    torch = load_backend(args.backend)
    from tqdm import tqdm

    with open(os.path.join(HERE, "data", "sonnets.txt"), encoding="utf-8") as f:
        text = f.read()
    itos = sorted(set(text))
    stoi = {c: i for i, c in enumerate(itos)}
    data = torch.tensor([stoi[c] for c in text])

    torch.manual_seed(args.seed)
    model = make_model(torch, len(itos), args.cell)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    window, batch = 64, 32
    start = time.perf_counter()
    steps = tqdm(range(args.steps), disable=args.no_progress, leave=False, unit="step")
    for _ in steps:
        offsets = torch.randint(0, len(data) - window - 1, (batch,))
        rows = offsets.unsqueeze(1) + torch.arange(window + 1)
        chunk = data[rows]  # (batch, window + 1) character indices
        logits, _ = model(chunk[:, :-1])
        loss = loss_fn(logits.reshape(-1, len(itos)), chunk[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        steps.set_postfix(loss=f"{loss.item():.3f}")
    steps.close()
    elapsed = time.perf_counter() - start
    print(f"{args.cell.upper()} trained {args.steps} steps in {elapsed:.1f} s, "
          f"final loss {loss.item():.3f} (uniform guessing: {torch.log(torch.tensor(float(len(itos)))).item():.3f})")
    print(sample(torch, model, "Shall I", stoi, itos, 200))
    return 0


if __name__ == "__main__":
    sys.exit(main())
