"""makemore-style training (Karpathy's makemore parts 1-4, torch.func-free) as a smoke:
bigram counts and sampling, a neural bigram trained by hand, an MLP with hand-written batch
norm and running statistics, and the manual backward pass compared with autograd's. The
printed output must be torch's, number for number (the training data are generated names)."""

from __future__ import annotations

import contextlib
import io

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _program(torch):
    F = torch.nn.functional
    torch.manual_seed(42)

    syll = ["an", "el", "ma", "ri", "ja", "son", "li", "ka", "ro", "be", "th", "ne", "da", "vi",
            "o", "a", "ys", "mi", "lu", "ze"]
    words = []
    for i in range(400):
        n = 1 + (i * 7) % 3
        words.append("".join(syll[(i * (k + 3) + k * k) % len(syll)] for k in range(n)))
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    V = len(stoi)
    print(V, words[:5])

    # bigram counts
    N = torch.zeros((V, V), dtype=torch.int32)
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            N[stoi[ch1], stoi[ch2]] += 1
    print(N[0, :10], N.sum())
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    g = torch.Generator().manual_seed(2147483647)
    for i in range(5):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0:
                break
        print("".join(out))
    log_likelihood = 0.0
    n = 0
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            prob = P[stoi[ch1], stoi[ch2]]
            log_likelihood += torch.log(prob)
            n += 1
    print(f"{log_likelihood=}")
    print(f"{-log_likelihood/n}")

    # neural bigram
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1]); ys.append(stoi[ch2])
    xs = torch.tensor(xs); ys = torch.tensor(ys)
    num = xs.nelement()
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((V, V), generator=g, requires_grad=True)
    for k in range(20):
        xenc = F.one_hot(xs, num_classes=V).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
        if k % 5 == 0:
            print(k, loss.item(), loss)
        W.grad = None
        loss.backward()
        W.data += -50 * W.grad
    print(W.grad.shape, W.grad[0, :4])

    # MLP with batchnorm (makemore part 3)
    block_size = 3
    def build_dataset(words):
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context); Y.append(ix)
                context = context[1:] + [ix]
        return torch.tensor(X), torch.tensor(Y)
    Xtr, Ytr = build_dataset(words[:320])
    Xdev, Ydev = build_dataset(words[320:])
    print(Xtr.shape, Ytr.shape, Xtr.dtype)
    n_embd, n_hidden = 10, 64
    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((V, n_embd), generator=g)
    fan_in = n_embd * block_size
    W1 = torch.randn((fan_in, n_hidden), generator=g) * (5 / 3) / (fan_in ** 0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.1
    W2 = torch.randn((n_hidden, V), generator=g) * 0.1
    b2 = torch.randn(V, generator=g) * 0.1
    bngain = torch.randn((1, n_hidden)) * 0.1 + 1.0
    bnbias = torch.randn((1, n_hidden)) * 0.1
    bnmean_running = torch.zeros((1, n_hidden))
    bnstd_running = torch.ones((1, n_hidden))
    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    print(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True
    lossi = []
    for i in range(120):
        ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
        Xb, Yb = Xtr[ix], Ytr[ix]
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with torch.no_grad():
            bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
            bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < 60 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        if i % 40 == 0:
            print(f"{i:7d}/{120:7d}: {loss.item():.4f}")
        lossi.append(loss.log10().item())
    print(torch.tensor(lossi).view(-1, 20).mean(1))

    @torch.no_grad()
    def split_loss(X, Y):
        emb = C[X]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        return F.cross_entropy(logits, Y).item()
    print(split_loss(Xtr, Ytr), split_loss(Xdev, Ydev))
    g = torch.Generator().manual_seed(2147483647 + 10)
    for _ in range(5):
        out = []
        context = [0] * block_size
        while True:
            emb = C[torch.tensor([context])]
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            logits = h @ W2 + b2
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) > 20:
                break
        print("".join(itos[i] for i in out))

    # manual backprop (makemore part 4)
    n = 32
    ix = torch.randint(0, Xtr.shape[0], (n,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff ** 2
    bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum ** -1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()
    for p in parameters:
        p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes,
              logits, h, hpreact, bnraw, bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
              embcat, emb]:
        t.retain_grad()
    loss.backward()
    print(loss)
    def cmp(s, dt, t):
        ex = torch.all(dt == t.grad).item()
        app = torch.allclose(dt, t.grad)
        maxdiff = (dt - t.grad).abs().max().item()
        print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")
    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0 / n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-counts_sum ** -2) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h ** 2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dbnraw = bngain * dhpreact
    dbnbias = dhpreact.sum(0, keepdim=True)
    dbndiff = bnvar_inv * dbnraw
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
    dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
    dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
    dbndiff += (2 * bndiff) * dbndiff2
    dhprebn = dbndiff.clone()
    dbnmeani = (-dbndiff).sum(0)
    dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]
    for name, d, t in [("logprobs", dlogprobs, logprobs), ("probs", dprobs, probs),
                       ("counts_sum_inv", dcounts_sum_inv, counts_sum_inv),
                       ("counts", dcounts, counts), ("logits", dlogits, logits), ("h", dh, h),
                       ("W2", dW2, W2), ("b2", db2, b2), ("hpreact", dhpreact, hpreact),
                       ("bngain", dbngain, bngain), ("bnvar", dbnvar, bnvar),
                       ("hprebn", dhprebn, hprebn), ("W1", dW1, W1), ("emb", demb, emb),
                       ("C", dC, C)]:
        cmp(name, d, t)
    # fused cross entropy backward
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n
    cmp("logits fused", dlogits, logits)
    print(F.cross_entropy(logits, Yb).item(), loss.item())


def _printed(lib) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _program(lib)
    return out.getvalue().replace("leafgrad.", "torch.")


def test_makemore_prints_torchs_numbers():
    expected = _printed(torch)
    got = _printed(leafgrad)
    assert len(expected.splitlines()) > 40
    assert got.splitlines() == expected.splitlines()
