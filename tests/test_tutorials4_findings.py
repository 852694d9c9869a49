"""Code from other people's tutorials and courses not covered before (karpathy's makemore part
5 WaveNet and minGPT; pytorch/tutorials' "What is torch.nn really?", double backward and
forward-mode AD with custom Functions, saved-tensor hooks, neural tangent kernels,
parametrizations, extending torch.func, fusing convolution and batch norm,
torch.autograd.functional and autograd mechanics; pytorch/examples' mnist_rnn;
phlippe/uvadlc_notebooks' introduction, activation functions, initialisation and optimisation,
Inception/ResNet/DenseNet blocks, transformers, GNNs, normalising flows, energy-based models,
adversarial attacks, PixelCNN and SimCLR; fastai course22p2's matmul, meanshift, backprop and
minibatch notebooks; CS231n's PyTorch and network visualization notebooks; mrdbourke's PyTorch
course 01-02; rasbt's LLMs-from-scratch chapters 3-5; d2l-en's Gaussian processes), shrunk to
small synthetic data made with torch's own RNG and run with torch and with leafgrad in one
process: every printed line, warning and error must be the same (tests/_tutorial_harness.py);
then one test per defect found, sweeping its class of inputs."""

import itertools
import math
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch
from tests._tutorial_harness import first_difference

torch = require_torch()
with warnings.catch_warnings():  # torch's first jacfwd imports a module that warns once per
    warnings.simplefilter("ignore")  # process (torch.jit.script's deprecation): not a snippet's
    torch.func.jacfwd(torch.sin)(torch.zeros(1))


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data)

def makemore_wavenet(torch):
    # karpathy/nn-zero-to-hero lectures/makemore/makemore_part5_cnn1.ipynb
    class Linear:
        def __init__(self, fan_in, fan_out, bias=True):
            self.weight = torch.randn((fan_in, fan_out)) / fan_in**0.5
            self.bias = torch.zeros(fan_out) if bias else None
        def __call__(self, x):
            self.out = x @ self.weight
            if self.bias is not None:
                self.out += self.bias
            return self.out
        def parameters(self):
            return [self.weight] + ([] if self.bias is None else [self.bias])
    class BatchNorm1d:
        def __init__(self, dim, eps=1e-5, momentum=0.1):
            self.eps = eps; self.momentum = momentum; self.training = True
            self.gamma = torch.ones(dim); self.beta = torch.zeros(dim)
            self.running_mean = torch.zeros(dim); self.running_var = torch.ones(dim)
        def __call__(self, x):
            if self.training:
                if x.ndim == 2:
                    dim = 0
                elif x.ndim == 3:
                    dim = (0, 1)
                xmean = x.mean(dim, keepdim=True)
                xvar = x.var(dim, keepdim=True)
            else:
                xmean = self.running_mean; xvar = self.running_var
            xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
            self.out = self.gamma * xhat + self.beta
            if self.training:
                with torch.no_grad():
                    self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                    self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
            return self.out
        def parameters(self):
            return [self.gamma, self.beta]
    class Tanh:
        def __call__(self, x):
            self.out = torch.tanh(x); return self.out
        def parameters(self): return []
    class Embedding:
        def __init__(self, num_embeddings, embedding_dim):
            self.weight = torch.randn((num_embeddings, embedding_dim))
        def __call__(self, IX):
            self.out = self.weight[IX]; return self.out
        def parameters(self): return [self.weight]
    class FlattenConsecutive:
        def __init__(self, n): self.n = n
        def __call__(self, x):
            B, T, C = x.shape
            x = x.view(B, T//self.n, C*self.n)
            if x.shape[1] == 1:
                x = x.squeeze(1)
            self.out = x; return self.out
        def parameters(self): return []
    class Sequential:
        def __init__(self, layers): self.layers = layers
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            self.out = x; return self.out
        def parameters(self): return [p for layer in self.layers for p in layer.parameters()]
    torch.manual_seed(42)
    vocab_size, block_size, n_embd, n_hidden = 27, 8, 6, 16
    model = Sequential([
        Embedding(vocab_size, n_embd),
        FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
        FlattenConsecutive(2), Linear(n_hidden*2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
        FlattenConsecutive(2), Linear(n_hidden*2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, vocab_size),
    ])
    with torch.no_grad():
        model.layers[-1].weight *= 0.1
    parameters = model.parameters()
    print(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True
    Xtr = torch.randint(0, vocab_size, (64, block_size)); Ytr = torch.randint(0, vocab_size, (64,))
    F = torch.nn.functional
    lossi = []
    for i in range(6):
        ix = torch.randint(0, Xtr.shape[0], (8,))
        Xb, Yb = Xtr[ix], Ytr[ix]
        logits = model(Xb)
        loss = F.cross_entropy(logits, Yb)
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < 150000 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        lossi.append(loss.log10().item())
    print(lossi)
    print(torch.tensor(lossi).view(-1, 3).mean(1))
    for layer in model.layers:
        print(layer.__class__.__name__, ':', tuple(layer.out.shape))
    for layer in model.layers:
        layer.training = False
    with torch.no_grad():
        logits = model(Xtr[:10])
        print(F.cross_entropy(logits, Ytr[:10]).item())
    e = torch.randn(4, 8, 10)
    emean = e.mean((0, 1), keepdim=True)
    evar = e.var((0, 1), keepdim=True)
    ehat = (e - emean) / torch.sqrt(evar + 1e-5)
    print(ehat.shape, model.layers[3].running_mean.shape, emean, evar)
    print(torch.cat([e[:, ::2, :], e[:, 1::2, :]], dim=2).shape,
          (e.view(4, 4, 20) == torch.cat([e[:, ::2, :], e[:, 1::2, :]], dim=2)).all())
    for _ in range(3):
        out = []
        context = [0] * block_size
        while True:
            logits = model(torch.tensor([context]))
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) > 10:
                break
        print(out)


def mingpt_pieces(torch):
    # karpathy/minGPT mingpt/model.py (NewGELU, CausalSelfAttention, Block, configure_optimizers,
    # generate) and mingpt/trainer.py's step
    nn = torch.nn; F = torch.nn.functional
    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    class CausalSelfAttention(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout = nn.Dropout(0.1)
            self.resid_dropout = nn.Dropout(0.1)
            self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                                         .view(1, 1, block_size, block_size))
            self.n_head = n_head; self.n_embd = n_embd
        def forward(self, x):
            B, T, C = x.size()
            q, k ,v  = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            y = self.resid_dropout(self.c_proj(y))
            return y
    class Block(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention(n_embd, n_head, block_size)
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.ModuleDict(dict(
                c_fc    = nn.Linear(n_embd, 4 * n_embd),
                c_proj  = nn.Linear(4 * n_embd, n_embd),
                act     = NewGELU(),
                dropout = nn.Dropout(0.1),
            ))
            m = self.mlp
            self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlpf(self.ln_2(x))
            return x
    class GPT(nn.Module):
        def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd):
            super().__init__()
            self.block_size = block_size
            self.transformer = nn.ModuleDict(dict(
                wte = nn.Embedding(vocab_size, n_embd),
                wpe = nn.Embedding(block_size, n_embd),
                drop = nn.Dropout(0.1),
                h = nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(n_layer)]),
                ln_f = nn.LayerNorm(n_embd),
            ))
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * n_layer))
            n_params = sum(p.numel() for p in self.transformer.parameters())
            print("number of parameters: %.2fM" % (n_params/1e6,), n_params)
        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            elif isinstance(module, nn.LayerNorm):
                torch.nn.init.zeros_(module.bias)
                torch.nn.init.ones_(module.weight)
        def configure_optimizers(self, weight_decay, learning_rate, betas):
            decay = set(); no_decay = set()
            whitelist_weight_modules = (torch.nn.Linear, )
            blacklist_weight_modules = (torch.nn.LayerNorm, torch.nn.Embedding)
            for mn, m in self.named_modules():
                for pn, p in m.named_parameters():
                    fpn = '%s.%s' % (mn, pn) if mn else pn
                    if pn.endswith('bias'):
                        no_decay.add(fpn)
                    elif pn.endswith('weight') and isinstance(m, whitelist_weight_modules):
                        decay.add(fpn)
                    elif pn.endswith('weight') and isinstance(m, blacklist_weight_modules):
                        no_decay.add(fpn)
            param_dict = {pn: p for pn, p in self.named_parameters()}
            inter_params = decay & no_decay
            union_params = decay | no_decay
            assert len(inter_params) == 0
            assert len(param_dict.keys() - union_params) == 0
            optim_groups = [
                {"params": [param_dict[pn] for pn in sorted(list(decay))], "weight_decay": weight_decay},
                {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
            ]
            return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)
        def forward(self, idx, targets=None):
            b, t = idx.size()
            assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
            pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
            tok_emb = self.transformer.wte(idx)
            pos_emb = self.transformer.wpe(pos)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss
        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, top_k)
                    logits[logits < v[:, [-1]]] = -float('Inf')
                probs = F.softmax(logits, dim=-1)
                if do_sample:
                    idx_next = torch.multinomial(probs, num_samples=1)
                else:
                    _, idx_next = torch.topk(probs, k=1, dim=-1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx
    torch.manual_seed(3407)
    model = GPT(vocab_size=5, block_size=6, n_layer=2, n_head=2, n_embd=8)
    optimizer = model.configure_optimizers(0.1, 5e-4, (0.9, 0.95))
    print([len(g['params']) for g in optimizer.param_groups])
    # the sort dataset: targets are the sorted inputs, the first half masked with -1
    for it in range(3):
        inp = torch.randint(5, size=(4, 3), dtype=torch.long)
        sol = torch.sort(inp, dim=1)[0]
        cat = torch.cat((inp, sol), dim=1)
        x = cat[:, :-1].clone(); y = cat[:, 1:].clone()
        y[:, :3 - 1] = -1
        logits, loss = model(x, y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        optimizer.step()
        print(it, loss.item(), loss.grad_fn)
    model.eval()
    out = model.generate(torch.tensor([[1, 4, 2]]), 3, do_sample=False)
    print(out)
    out = model.generate(torch.tensor([[1, 4, 2], [0, 0, 3]]), 3, do_sample=True, top_k=3)
    print(out, logits[0, :2])
    print(NewGELU()(torch.linspace(-3, 3, 7)), F.gelu(torch.linspace(-3, 3, 7), approximate='tanh'))


def pt_nn_tutorial(torch):
    # pytorch/tutorials beginner_source/nn_tutorial.py (MNIST replaced by random 28x28 images)
    nn, optim = torch.nn, torch.optim
    F = torch.nn.functional
    TensorDataset = torch.utils.data.TensorDataset
    DataLoader = torch.utils.data.DataLoader
    torch.manual_seed(0)
    x_train = torch.rand(64, 784); y_train = torch.randint(0, 10, (64,))
    x_valid = torch.rand(32, 784); y_valid = torch.randint(0, 10, (32,))
    n, c = x_train.shape
    print(x_train, y_train)
    print(x_train.shape, y_train.min(), y_train.max())
    weights = torch.randn(784, 10) / math.sqrt(784)
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)
    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)
    def model(xb):
        return log_softmax(xb @ weights + bias)
    bs = 16
    xb = x_train[0:bs]
    preds = model(xb)
    print(preds[0], preds.shape)
    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()
    loss_func = nll
    yb = y_train[0:bs]
    print(loss_func(preds, yb))
    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()
    print(accuracy(preds, yb))
    lr = 0.5; epochs = 2
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    print(loss_func(model(xb), yb), accuracy(model(xb), yb))
    loss_func = F.cross_entropy
    def model(xb):
        return xb @ weights + bias
    print(loss_func(model(xb), yb), accuracy(model(xb), yb))
    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(784, 10)
        def forward(self, xb):
            return self.lin(xb)
    model = Mnist_Logistic()
    print(loss_func(model(xb), yb))
    def get_model():
        model = Mnist_Logistic()
        return model, optim.SGD(model.parameters(), lr=lr)
    model, opt = get_model()
    train_ds = TensorDataset(x_train, y_train)
    train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
    for epoch in range(epochs):
        for xb, yb in train_dl:
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
    print(loss_func(model(xb), yb))
    valid_ds = TensorDataset(x_valid, y_valid)
    def get_data(train_ds, valid_ds, bs):
        return (DataLoader(train_ds, batch_size=bs, shuffle=True),
                DataLoader(valid_ds, batch_size=bs * 2))
    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)
    import numpy as np
    def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
        for epoch in range(epochs):
            model.train()
            for xb, yb in train_dl:
                loss_batch(model, loss_func, xb, yb, opt)
            model.eval()
            with torch.no_grad():
                losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
            val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
            print(epoch, val_loss)
    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    class Mnist_CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1)
            self.conv2 = nn.Conv2d(4, 4, kernel_size=3, stride=2, padding=1)
            self.conv3 = nn.Conv2d(4, 10, kernel_size=3, stride=2, padding=1)
        def forward(self, xb):
            xb = xb.view(-1, 1, 28, 28)
            xb = F.relu(self.conv1(xb))
            xb = F.relu(self.conv2(xb))
            xb = F.relu(self.conv3(xb))
            xb = F.avg_pool2d(xb, 4)
            return xb.view(-1, xb.size(1))
    lr = 0.1
    model = Mnist_CNN()
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    fit(1, model, loss_func, opt, train_dl, valid_dl)
    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func
        def forward(self, x):
            return self.func(x)
    def preprocess(x):
        return x.view(-1, 1, 28, 28)
    model = nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(4, 4, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(4, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    print(model)
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    fit(1, model, loss_func, opt, train_dl, valid_dl)
    print(model[1].weight.grad is None, model[1].weight[0, 0])


def pt_double_backward(torch):
    # pytorch/tutorials intermediate_source/custom_function_double_backward_tutorial.rst
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2
        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return grad_out * 2 * x
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(Square.apply, x))
    print(torch.autograd.gradgradcheck(Square.apply, x))
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = torch.exp(x)
            ctx.save_for_backward(result)
            return result
        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out
    torch.manual_seed(0)
    x = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
    print(torch.autograd.gradcheck(Exp.apply, x), torch.autograd.gradgradcheck(Exp.apply, x))
    out = Exp.apply(x)
    print(out, out.grad_fn, out.grad_fn.next_functions)
    class Sinh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx
        @staticmethod
        def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += _grad_out_exp * expx
            grad_input -= _grad_out_negexp * expnegx
            return grad_input
    def sinh(x):
        return Sinh.apply(x)[0]
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(sinh, x), torch.autograd.gradgradcheck(sinh, x))
    out = sinh(x)
    g, = torch.autograd.grad(out.sum(), x, create_graph=True)
    print(g.grad_fn, torch.allclose(g, torch.cosh(x)))
    gg, = torch.autograd.grad(g.sum(), x)
    print(torch.allclose(gg, torch.sinh(x)))
    class SinhBad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.expx = expx
            ctx.expnegx = expnegx
            return (expx - expnegx) / 2
        @staticmethod
        def backward(ctx, grad_out):
            expx = ctx.expx
            expnegx = ctx.expnegx
            grad_input = grad_out * (expx + expnegx) / 2
            return grad_input
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(SinhBad.apply, x))
    try:
        torch.autograd.gradgradcheck(SinhBad.apply, x)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    class CubeFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X):
            ctx.save_for_backward(X)
            return X ** 3
        @staticmethod
        def backward(ctx, M):
            X, = ctx.saved_tensors
            return CubeBackward.apply(X, M)
    def _cube_backward(X, M):
        return M * 3 * X ** 2
    def _cube_backward_backward(X, M, V):
        return V * 6 * X * M, V * 3 * X ** 2
    class CubeBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, M):
            ctx.save_for_backward(X, M)
            return _cube_backward(X, M)
        @staticmethod
        def backward(ctx, V):
            X, M = ctx.saved_tensors
            return _cube_backward_backward(X, M, V)
    x = torch.tensor(2., requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(CubeFn.apply, x), torch.autograd.gradgradcheck(CubeFn.apply, x))
    out = CubeFn.apply(x)
    grad_x, = torch.autograd.grad(out, x, create_graph=True)
    print(grad_x, grad_x.grad_fn, grad_x.grad_fn.next_functions)


def pt_forward_ad(torch):
    # pytorch/tutorials intermediate_source/forward_ad_usage.py
    fwAD = torch.autograd.forward_ad
    torch.manual_seed(0)
    primal = torch.randn(10, 10)
    tangent = torch.randn(10, 10)
    def fn(x, y):
        return x ** 2 + y ** 2
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        assert fwAD.unpack_dual(dual_input).tangent is tangent
        dual_input_alt = fwAD.make_dual(primal, tangent.T)
        assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
        plain_tensor = torch.randn(10, 10)
        dual_output = fn(dual_input, plain_tensor)
        jvp = fwAD.unpack_dual(dual_output).tangent
        print(jvp[0], fwAD.unpack_dual(dual_output).primal[1, :3])
        print(fwAD.unpack_dual(dual_input_alt).tangent.stride(), dual_output.grad_fn)
    print(fwAD.unpack_dual(dual_output).tangent)
    nn = torch.nn
    model = nn.Linear(5, 5)
    input = torch.randn(16, 5)
    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: torch.rand_like(p) for name, p in params.items()}
    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))
        out = model(input)
        jvp = fwAD.unpack_dual(out).tangent
    print(jvp[:2])
    functional_call = torch.func.functional_call
    model = nn.Linear(5, 5)
    dual_params = {}
    with fwAD.dual_level():
        for name, p in params.items():
            dual_params[name] = fwAD.make_dual(p, tangents[name])
        out = functional_call(model, dual_params, input)
        jvp2 = fwAD.unpack_dual(out).tangent
    print(torch.allclose(jvp, jvp2))
    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            result = torch.exp(foo)
            ctx.result = result
            return result
        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            del ctx.result
            return gO
    fn = Fn.apply
    primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
    tangent = torch.randn(10, 10)
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        dual_output = fn(dual_input)
        jvp = fwAD.unpack_dual(dual_output).tangent
        print(jvp.dtype, jvp[0, :3], dual_output.grad_fn)
    print(torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                   check_backward_ad=False, check_undefined_grad=False,
                                   check_batched_grad=False))
    ft = torch.func
    primal0 = torch.randn(10, 10); tangent0 = torch.randn(10, 10)
    primal1 = torch.randn(10, 10); tangent1 = torch.randn(10, 10)
    def fn(x, y):
        return x ** 2 + y ** 2
    primal_out, tangent_out = ft.jvp(fn, (primal0, primal1), (tangent0, tangent1))
    print(tangent_out[0])
    primal = torch.randn(10, 10); tangent = torch.randn(10, 10); y = torch.randn(10, 10)
    import functools
    new_fn = functools.partial(fn, y=y)
    primal_out, tangent_out = ft.jvp(new_fn, (primal,), (tangent,))
    print(primal_out[0, :2], tangent_out[0, :2])
    model = nn.Linear(5, 5)
    func, params = ft.functional_call, dict(model.named_parameters())
    def func_params_only(p):
        return functional_call(model, p, input)
    model_output, jvp_out = ft.jvp(func_params_only, (params,), (tangents,))
    print(jvp_out[0])


def pt_saved_tensor_hooks(torch):
    # pytorch/tutorials intermediate_source/autograd_saved_tensors_hooks_tutorial.py
    torch.manual_seed(0)
    a = torch.randn(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True)
    def f(x, y):
        return x * y
    y = f(a, b)
    print(y.grad_fn._saved_self is a, y.grad_fn._saved_other is b)
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    print(y.grad_fn._saved_self is x)
    y = x.exp()
    print(y.grad_fn._saved_result.equal(y), y.grad_fn._saved_result is y)
    x = torch.randn(5, requires_grad=True)
    y = x.sin().sin()
    print(y.grad_fn._raw_saved_self, type(y.grad_fn._raw_saved_self).__name__)
    def pack_hook(x):
        print("Packing", x)
        return x
    def unpack_hook(x):
        print("Unpacking", x)
        return x
    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
    y.sum().backward()
    def pack_hook(x):
        return None
    def unpack_hook(x):
        return None
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a.pow(2)
    try:
        y.sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook) if False else None
    def pack(x):
        return x * 2
    def unpack(x):
        return x / 2
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x.sum(), lambda x: torch.ones(5) * x / 5)
    y.sum().backward()
    print(x.grad)
    try:
        y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
        y = torch.pow(x, 2)
    print(y.grad_fn._saved_self.equal(x))
    storage = []
    def pack_hook(x):
        storage.append(x)
        return len(storage) - 1
    def unpack_hook(x):
        return storage[x]
    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x * x
    y.sum().backward()
    print(len(storage), torch.equal(x.grad, 2 * x))
    with torch.autograd.graph.save_on_cpu(pin_memory=False):
        w = torch.randn(3, 3, requires_grad=True)
        z = (w @ w).relu().sum()
    z.backward()
    print(w.grad)
    class SelfDeletingTempFile():
        pass
    import weakref
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(5))
        def forward(self, x):
            with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
                y = self.w * x
            return y
    m = Model()
    out = m(torch.ones(5))
    out.sum().backward()
    print(m.w.grad, out.grad_fn._saved_self)
    x = torch.randn(3, requires_grad=True)
    with torch.autograd.graph.disable_saved_tensors_hooks("nope"):
        try:
            with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
                pass
        except Exception as e:
            print(type(e).__name__, str(e).splitlines()[0])


def pt_ntk(torch):
    # pytorch/tutorials intermediate_source/neural_tangent_kernels.py
    nn = torch.nn; F = torch.nn.functional
    from_func = torch.func
    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, (3, 3))
            self.conv2 = nn.Conv2d(4, 4, (3, 3))
            self.conv3 = nn.Conv2d(4, 4, (3, 3))
            self.fc = nn.Linear(4, 3)
        def forward(self, x):
            x = self.conv1(x)
            x = x.relu()
            x = self.conv2(x)
            x = x.relu()
            x = self.conv3(x)
            x = F.adaptive_avg_pool2d(x, (1, 1))
            x = x.flatten(1)
            x = self.fc(x)
            return x
    torch.manual_seed(0)
    x_train = torch.randn(4, 3, 8, 8, dtype=torch.double)
    x_test = torch.randn(3, 3, 8, 8, dtype=torch.double)
    net = CNN().double()
    net.eval()
    params = {k: v.detach() for k, v in net.named_parameters()}
    def fnet_single(params, x):
        return from_func.functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)
    def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
        jac1 = from_func.vmap(from_func.jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = jac1.values()
        jac1 = [j.flatten(2) for j in jac1]
        jac2 = from_func.vmap(from_func.jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = jac2.values()
        jac2 = [j.flatten(2) for j in jac2]
        result = torch.stack([torch.einsum('Naf,Mbf->NMab', j1, j2) for j1, j2 in zip(jac1, jac2)])
        result = result.sum(0)
        return result
    result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
    print(result.shape, result[0, 0])
    def empirical_ntk_jacobian_contraction2(fnet_single, params, x1, x2, compute='full'):
        jac1 = from_func.vmap(from_func.jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = jac1.values()
        jac1 = [j.flatten(2) for j in jac1]
        jac2 = from_func.vmap(from_func.jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = jac2.values()
        jac2 = [j.flatten(2) for j in jac2]
        einsum_expr = None
        if compute == 'full':
            einsum_expr = 'Naf,Mbf->NMab'
        elif compute == 'trace':
            einsum_expr = 'Naf,Maf->NM'
        elif compute == 'diagonal':
            einsum_expr = 'Naf,Maf->NMa'
        result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
        result = result.sum(0)
        return result
    result = empirical_ntk_jacobian_contraction2(fnet_single, params, x_train, x_test, 'trace')
    print(result.shape, result)
    def empirical_ntk_ntk_vps(func, params, x1, x2, compute='full'):
        def get_ntk(x1, x2):
            def func_x1(params):
                return func(params, x1)
            def func_x2(params):
                return func(params, x2)
            output, vjp_fn = from_func.vjp(func_x1, params)
            def get_ntk_slice(vec):
                vjps = vjp_fn(vec)
                _, jvps = from_func.jvp(func_x2, (params,), vjps)
                return jvps
            basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
            return from_func.vmap(get_ntk_slice)(basis)
        result = from_func.vmap(from_func.vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
        if compute == 'full':
            return result
        if compute == 'trace':
            return torch.einsum('NMKK->NM', result)
        if compute == 'diagonal':
            return torch.einsum('NMKK->NMK', result)
    result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test)
    result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
    print(torch.allclose(result_from_jacobian_contraction, result_from_ntk_vps, atol=1e-5))
    print(result_from_ntk_vps.shape, result_from_ntk_vps[1, 2])


def uva_activations(torch):
    # phlippe/uvadlc_notebooks tutorial3 Activation_Functions.ipynb
    nn = torch.nn; F = torch.nn.functional
    class ActivationFunction(nn.Module):
        def __init__(self):
            super().__init__()
            self.name = self.__class__.__name__
            self.config = {"name": self.name}
    class Sigmoid(ActivationFunction):
        def forward(self, x):
            return 1 / (1 + torch.exp(-x))
    class Tanh(ActivationFunction):
        def forward(self, x):
            x_exp, neg_x_exp = torch.exp(x), torch.exp(-x)
            return (x_exp - neg_x_exp) / (x_exp + neg_x_exp)
    class ReLU(ActivationFunction):
        def forward(self, x):
            return x * (x > 0).float()
    class LeakyReLU(ActivationFunction):
        def __init__(self, alpha=0.1):
            super().__init__()
            self.config["alpha"] = alpha
        def forward(self, x):
            return torch.where(x > 0, x, self.config["alpha"] * x)
    class ELU(ActivationFunction):
        def forward(self, x):
            return torch.where(x > 0, x, torch.exp(x)-1)
    class Swish(ActivationFunction):
        def forward(self, x):
            return x * torch.sigmoid(x)
    act_fn_by_name = {"sigmoid": Sigmoid, "tanh": Tanh, "relu": ReLU, "leakyrelu": LeakyReLU,
                      "elu": ELU, "swish": Swish}
    def get_grads(act_fn, x):
        x = x.clone().requires_grad_()
        out = act_fn(x)
        out.sum().backward()
        return x.grad
    x = torch.linspace(-5, 5, 21)
    for name, cls in act_fn_by_name.items():
        act_fn = cls()
        y = act_fn(x)
        y_grads = get_grads(act_fn, x)
        print(act_fn.config, y[::4], y_grads[::4])
    class BaseNetwork(nn.Module):
        def __init__(self, act_fn, input_size=16, num_classes=4, hidden_sizes=[8, 8, 6]):
            super().__init__()
            layers = []
            layer_sizes = [input_size] + hidden_sizes
            for layer_index in range(1, len(layer_sizes)):
                layers += [nn.Linear(layer_sizes[layer_index-1], layer_sizes[layer_index]), act_fn]
            layers += [nn.Linear(layer_sizes[-1], num_classes)]
            self.layers = nn.Sequential(*layers)
            self.config = {"act_fn": act_fn.config, "input_size": input_size}
        def forward(self, x):
            x = x.view(x.size(0), -1)
            out = self.layers(x)
            return out
    torch.manual_seed(42)
    imgs = torch.randn(8, 1, 4, 4); labels = torch.randint(0, 4, (8,))
    for act_fn_name in act_fn_by_name:
        torch.manual_seed(42)
        act_fn = act_fn_by_name[act_fn_name]()
        net_actfn = BaseNetwork(act_fn=act_fn)
        net_actfn.zero_grad()
        preds = net_actfn(imgs)
        loss = F.cross_entropy(preds, labels)
        loss.backward()
        grads = {name: params.grad.view(-1).cpu().clone().numpy() for name, params in net_actfn.named_parameters() if "weight" in name}
        print(act_fn_name, {k: (float(v.std()), float(v.mean())) for k, v in grads.items()})
        activations = {}
        net_actfn.eval()
        with torch.no_grad():
            layer_index = 0
            x = imgs.view(imgs.size(0), -1)
            for layer_index, layer in enumerate(net_actfn.layers[:-1]):
                x = layer(x)
                if isinstance(layer, ActivationFunction):
                    activations[layer_index] = x.view(-1).cpu().numpy()
                    print(layer_index, (x == 0).float().mean().item(), x.view(-1).histc(bins=5))
    print(net_actfn)


def uva_init_optim(torch):
    # phlippe/uvadlc_notebooks tutorial4 Optimization_and_Initialization.ipynb
    nn = torch.nn; F = torch.nn.functional
    class Identity(nn.Module):
        def forward(self, x):
            return x
    class BaseNetwork(nn.Module):
        def __init__(self, act_fn, input_size=16, num_classes=4, hidden_sizes=[12, 12, 8]):
            super().__init__()
            layers = []
            layer_sizes = [input_size] + hidden_sizes
            for layer_index in range(1, len(layer_sizes)):
                layers += [nn.Linear(layer_sizes[layer_index-1], layer_sizes[layer_index]), act_fn]
            layers += [nn.Linear(layer_sizes[-1], num_classes)]
            self.layers = nn.ModuleList(layers)
        def forward(self, x):
            x = x.view(x.size(0), -1)
            for l in self.layers:
                x = l(x)
            return x
    def const_init(model, fill=0.0):
        for name, param in model.named_parameters():
            param.data.fill_(fill)
    def equal_var_init(model):
        for name, param in model.named_parameters():
            if name.endswith(".bias"):
                param.data.fill_(0)
            else:
                param.data.normal_(std=1.0/math.sqrt(param.shape[1]))
    def xavier_init(model):
        for name, param in model.named_parameters():
            if name.endswith(".bias"):
                param.data.fill_(0)
            else:
                bound = math.sqrt(6)/math.sqrt(param.shape[0]+param.shape[1])
                param.data.uniform_(-bound, bound)
    def kaiming_init(model):
        for name, param in model.named_parameters():
            if name.endswith(".bias"):
                param.data.fill_(0)
            elif name.startswith("layers.0"):
                param.data.normal_(0, 1/math.sqrt(param.shape[1]))
            else:
                param.data.normal_(0, math.sqrt(2)/math.sqrt(param.shape[1]))
    torch.manual_seed(42)
    imgs = torch.randn(16, 1, 4, 4); labels = torch.randint(0, 4, (16,))
    def stats(model, act):
        model.zero_grad()
        preds = model(imgs)
        loss = F.cross_entropy(preds, labels)
        loss.backward()
        grads = {name: params.grad.view(-1) for name, params in model.named_parameters() if "weight" in name}
        out = {k: round(g.std().item(), 6) for k, g in grads.items()}
        feats = imgs.view(imgs.shape[0], -1)
        acts = {}
        with torch.no_grad():
            for layer_index, layer in enumerate(model.layers):
                feats = layer(feats)
                if isinstance(layer, nn.Linear):
                    acts[f"Layer {layer_index}"] = round(feats.view(-1).var().item(), 5)
        print(act, out, acts)
    for act_fn in [Identity(), nn.Tanh(), nn.ReLU()]:
        for init in [lambda m: const_init(m, 0.005), equal_var_init, xavier_init, kaiming_init]:
            model = BaseNetwork(act_fn=act_fn)
            init(model)
            stats(model, act_fn)
    class OptimizerTemplate:
        def __init__(self, params, lr):
            self.params = list(params)
            self.lr = lr
        def zero_grad(self):
            for p in self.params:
                if p.grad is not None:
                    p.grad.detach_()
                    p.grad.zero_()
        @torch.no_grad()
        def step(self):
            for p in self.params:
                if p.grad is None:
                    continue
                self.update_param(p)
    class SGD(OptimizerTemplate):
        def update_param(self, p):
            p_update = -self.lr * p.grad
            p.add_(p_update)
    class SGDMomentum(OptimizerTemplate):
        def __init__(self, params, lr, momentum=0.0):
            super().__init__(params, lr)
            self.momentum = momentum
            self.param_momentum = {p: torch.zeros_like(p.data) for p in self.params}
        def update_param(self, p):
            self.param_momentum[p] = (1 - self.momentum) * p.grad + self.momentum * self.param_momentum[p]
            p_update = -self.lr * self.param_momentum[p]
            p.add_(p_update)
    class Adam(OptimizerTemplate):
        def __init__(self, params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
            super().__init__(params, lr)
            self.beta1 = beta1; self.beta2 = beta2; self.eps = eps
            self.param_step = {p: 0 for p in self.params}
            self.param_momentum = {p: torch.zeros_like(p.data) for p in self.params}
            self.param_2nd_momentum = {p: torch.zeros_like(p.data) for p in self.params}
        def update_param(self, p):
            self.param_step[p] += 1
            self.param_momentum[p] = (1 - self.beta1) * p.grad + self.beta1 * self.param_momentum[p]
            self.param_2nd_momentum[p] = (1 - self.beta2) * (p.grad)**2 + self.beta2 * self.param_2nd_momentum[p]
            bias_correction_1 = 1 - self.beta1 ** self.param_step[p]
            bias_correction_2 = 1 - self.beta2 ** self.param_step[p]
            p_2nd_mom = self.param_2nd_momentum[p] / bias_correction_2
            p_mom = self.param_momentum[p] / bias_correction_1
            p_lr = self.lr / (torch.sqrt(p_2nd_mom) + self.eps)
            p_update = -p_lr * p_mom
            p.add_(p_update)
    def pathological_curve_loss(w1, w2):
        x1_loss = torch.tanh(w1)**2 + 0.01 * torch.abs(w1)
        x2_loss = torch.sigmoid(w2)
        return x1_loss + x2_loss
    def train_curve(optimizer_func, curve_func=pathological_curve_loss, num_updates=20, init=[5, 5]):
        weights = nn.Parameter(torch.FloatTensor(init), requires_grad=True)
        optimizer = optimizer_func([weights])
        list_points = []
        for _ in range(num_updates):
            loss = curve_func(weights[0], weights[1])
            list_points.append(torch.cat([weights.data.detach(), loss.unsqueeze(dim=0).detach()], dim=0))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        points = torch.stack(list_points, dim=0)
        return points
    SGD_points = train_curve(lambda params: SGD(params, lr=10))
    SGDMom_points = train_curve(lambda params: SGDMomentum(params, lr=10, momentum=0.9))
    Adam_points = train_curve(lambda params: Adam(params, lr=1))
    print(SGD_points[-3:], SGDMom_points[-3:], Adam_points[-3:])
    def bivar_gaussian(w1, w2, x_mean=0.0, y_mean=0.0, x_sig=1.0, y_sig=1.0):
        norm = 1 / (2 * math.pi * x_sig * y_sig)
        x_exp = (-1 * (w1 - x_mean)**2) / (2 * x_sig**2)
        y_exp = (-1 * (w2 - y_mean)**2) / (2 * y_sig**2)
        return norm * torch.exp(x_exp + y_exp)
    def comb_func(w1, w2):
        z = -bivar_gaussian(w1, w2, x_mean=1.0, y_mean=-0.5, x_sig=0.2, y_sig=0.2)
        z -= bivar_gaussian(w1, w2, x_mean=-1.0, y_mean=0.5, x_sig=0.2, y_sig=0.2)
        z -= bivar_gaussian(w1, w2, x_mean=-0.5, y_mean=-0.8, x_sig=0.2, y_sig=0.2)
        return z
    pts = train_curve(lambda params: Adam(params, lr=0.2), comb_func, init=[0, 0])
    print(pts[-2:])
    x = torch.arange(-2, 2, 0.5)
    y = torch.arange(-2, 2, 0.5)
    x, y = torch.meshgrid([x, y])
    print(comb_func(x, y)[::3])
    z = torch.randn(4, 8)
    print(torch.FloatTensor(2, 3).shape, torch.FloatTensor([1, 2]).dtype, z.std(dim=0))


def uva_cnn_blocks(torch):
    # phlippe/uvadlc_notebooks tutorial5 Inception_ResNet_DenseNet.ipynb
    nn = torch.nn; F = torch.nn.functional
    from types import SimpleNamespace
    act_fn_by_name = {"tanh": nn.Tanh, "relu": nn.ReLU, "leakyrelu": nn.LeakyReLU, "gelu": nn.GELU}
    class InceptionBlock(nn.Module):
        def __init__(self, c_in, c_red: dict, c_out: dict, act_fn):
            super().__init__()
            self.conv_1x1 = nn.Sequential(nn.Conv2d(c_in, c_out["1x1"], kernel_size=1), nn.BatchNorm2d(c_out["1x1"]), act_fn())
            self.conv_3x3 = nn.Sequential(nn.Conv2d(c_in, c_red["3x3"], kernel_size=1), nn.BatchNorm2d(c_red["3x3"]), act_fn(),
                                          nn.Conv2d(c_red["3x3"], c_out["3x3"], kernel_size=3, padding=1), nn.BatchNorm2d(c_out["3x3"]), act_fn())
            self.conv_5x5 = nn.Sequential(nn.Conv2d(c_in, c_red["5x5"], kernel_size=1), nn.BatchNorm2d(c_red["5x5"]), act_fn(),
                                          nn.Conv2d(c_red["5x5"], c_out["5x5"], kernel_size=5, padding=2), nn.BatchNorm2d(c_out["5x5"]), act_fn())
            self.max_pool = nn.Sequential(nn.MaxPool2d(kernel_size=3, padding=1, stride=1),
                                          nn.Conv2d(c_in, c_out["max"], kernel_size=1), nn.BatchNorm2d(c_out["max"]), act_fn())
        def forward(self, x):
            x_1x1 = self.conv_1x1(x)
            x_3x3 = self.conv_3x3(x)
            x_5x5 = self.conv_5x5(x)
            x_max = self.max_pool(x)
            x_out = torch.cat([x_1x1, x_3x3, x_5x5, x_max], dim=1)
            return x_out
    class ResNetBlock(nn.Module):
        def __init__(self, c_in, act_fn, subsample=False, c_out=-1):
            super().__init__()
            if not subsample:
                c_out = c_in
            self.net = nn.Sequential(
                nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, stride=1 if not subsample else 2, bias=False),
                nn.BatchNorm2d(c_out), act_fn(),
                nn.Conv2d(c_out, c_out, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(c_out))
            self.downsample = nn.Conv2d(c_in, c_out, kernel_size=1, stride=2) if subsample else None
            self.act_fn = act_fn()
        def forward(self, x):
            z = self.net(x)
            if self.downsample is not None:
                x = self.downsample(x)
            out = z + x
            out = self.act_fn(out)
            return out
    class PreActResNetBlock(nn.Module):
        def __init__(self, c_in, act_fn, subsample=False, c_out=-1):
            super().__init__()
            if not subsample:
                c_out = c_in
            self.net = nn.Sequential(
                nn.BatchNorm2d(c_in), act_fn(),
                nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, stride=1 if not subsample else 2, bias=False),
                nn.BatchNorm2d(c_out), act_fn(),
                nn.Conv2d(c_out, c_out, kernel_size=3, padding=1, bias=False))
            self.downsample = nn.Sequential(nn.BatchNorm2d(c_in), act_fn(),
                nn.Conv2d(c_in, c_out, kernel_size=1, stride=2, bias=False)) if subsample else None
        def forward(self, x):
            z = self.net(x)
            if self.downsample is not None:
                x = self.downsample(x)
            return z + x
    class DenseLayer(nn.Module):
        def __init__(self, c_in, bn_size, growth_rate, act_fn):
            super().__init__()
            self.net = nn.Sequential(
                nn.BatchNorm2d(c_in), act_fn(),
                nn.Conv2d(c_in, bn_size * growth_rate, kernel_size=1, bias=False),
                nn.BatchNorm2d(bn_size * growth_rate), act_fn(),
                nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, padding=1, bias=False))
        def forward(self, x):
            out = self.net(x)
            out = torch.cat([out, x], dim=1)
            return out
    class DenseBlock(nn.Module):
        def __init__(self, c_in, num_layers, bn_size, growth_rate, act_fn):
            super().__init__()
            layers = []
            for layer_idx in range(num_layers):
                layers.append(DenseLayer(c_in=c_in + layer_idx * growth_rate, bn_size=bn_size, growth_rate=growth_rate, act_fn=act_fn))
            self.block = nn.Sequential(*layers)
        def forward(self, x):
            return self.block(x)
    class TransitionLayer(nn.Module):
        def __init__(self, c_in, c_out, act_fn):
            super().__init__()
            self.transition = nn.Sequential(nn.BatchNorm2d(c_in), act_fn(),
                nn.Conv2d(c_in, c_out, kernel_size=1, bias=False), nn.AvgPool2d(kernel_size=2, stride=2))
        def forward(self, x):
            return self.transition(x)
    torch.manual_seed(42)
    x = torch.randn(2, 3, 8, 8, dtype=torch.float64)
    blocks = [InceptionBlock(3, {"3x3": 2, "5x5": 2}, {"1x1": 2, "3x3": 3, "5x5": 1, "max": 1}, nn.ReLU),
              ResNetBlock(3, nn.ReLU), ResNetBlock(3, nn.LeakyReLU, subsample=True, c_out=4),
              PreActResNetBlock(3, nn.GELU, subsample=True, c_out=4),
              DenseBlock(3, 2, 2, 2, nn.ReLU), TransitionLayer(3, 2, nn.Tanh)]
    for block in blocks:
        block = block.double()
        for m in block.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity='relu')
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        out = block(x.requires_grad_())
        out.square().mean().backward()
        print(type(block).__name__, out.shape, out.grad_fn, out[0, :, 0, :3], x.grad[1, 0, :2])
        x.grad = None
        block.eval()
        print(block(x)[1, -1, :2])
    print(blocks[0])
    hparams = SimpleNamespace(c_hidden=[2, 4], num_blocks=[1, 1], act_fn_name="relu",
                              act_fn=act_fn_by_name["relu"], block_class=ResNetBlock)
    print(hparams.act_fn_name, sum(p.numel() for b in blocks for p in b.parameters()))


def uva_mha(torch):
    # phlippe/uvadlc_notebooks tutorial6 Transformers_and_MHAttention.ipynb
    nn = torch.nn; F = torch.nn.functional
    def scaled_dot_product(q, k, v, mask=None):
        d_k = q.size()[-1]
        attn_logits = torch.matmul(q, k.transpose(-2, -1))
        attn_logits = attn_logits / math.sqrt(d_k)
        if mask is not None:
            attn_logits = attn_logits.masked_fill(mask == 0, -9e15)
        attention = F.softmax(attn_logits, dim=-1)
        values = torch.matmul(attention, v)
        return values, attention
    seq_len, d_k = 3, 2
    torch.manual_seed(42)
    q = torch.randn(seq_len, d_k); k = torch.randn(seq_len, d_k); v = torch.randn(seq_len, d_k)
    values, attention = scaled_dot_product(q, k, v)
    print("Q\n", q, "\nK\n", k, "\nV\n", v, "\nValues\n", values, "\nAttention\n", attention)
    def expand_mask(mask):
        assert mask.ndim >= 2, "Mask must be at least 2-dimensional with seq_length x seq_length"
        if mask.ndim == 3:
            mask = mask.unsqueeze(1)
        while mask.ndim < 4:
            mask = mask.unsqueeze(0)
        return mask
    class MultiheadAttention(nn.Module):
        def __init__(self, input_dim, embed_dim, num_heads):
            super().__init__()
            assert embed_dim % num_heads == 0, "Embedding dimension must be 0 modulo number of heads."
            self.embed_dim = embed_dim
            self.num_heads = num_heads
            self.head_dim = embed_dim // num_heads
            self.qkv_proj = nn.Linear(input_dim, 3*embed_dim)
            self.o_proj = nn.Linear(embed_dim, embed_dim)
            self._reset_parameters()
        def _reset_parameters(self):
            nn.init.xavier_uniform_(self.qkv_proj.weight)
            self.qkv_proj.bias.data.fill_(0)
            nn.init.xavier_uniform_(self.o_proj.weight)
            self.o_proj.bias.data.fill_(0)
        def forward(self, x, mask=None, return_attention=False):
            batch_size, seq_length, _ = x.size()
            if mask is not None:
                mask = expand_mask(mask)
            qkv = self.qkv_proj(x)
            qkv = qkv.reshape(batch_size, seq_length, self.num_heads, 3*self.head_dim)
            qkv = qkv.permute(0, 2, 1, 3)
            q, k, v = qkv.chunk(3, dim=-1)
            values, attention = scaled_dot_product(q, k, v, mask=mask)
            values = values.permute(0, 2, 1, 3)
            values = values.reshape(batch_size, seq_length, self.embed_dim)
            o = self.o_proj(values)
            if return_attention:
                return o, attention
            else:
                return o
    class EncoderBlock(nn.Module):
        def __init__(self, input_dim, num_heads, dim_feedforward, dropout=0.0):
            super().__init__()
            self.self_attn = MultiheadAttention(input_dim, input_dim, num_heads)
            self.linear_net = nn.Sequential(nn.Linear(input_dim, dim_feedforward), nn.Dropout(dropout),
                                            nn.ReLU(inplace=True), nn.Linear(dim_feedforward, input_dim))
            self.norm1 = nn.LayerNorm(input_dim)
            self.norm2 = nn.LayerNorm(input_dim)
            self.dropout = nn.Dropout(dropout)
        def forward(self, x, mask=None):
            attn_out = self.self_attn(x, mask=mask)
            x = x + self.dropout(attn_out)
            x = self.norm1(x)
            linear_out = self.linear_net(x)
            x = x + self.dropout(linear_out)
            x = self.norm2(x)
            return x
    class TransformerEncoder(nn.Module):
        def __init__(self, num_layers, **block_args):
            super().__init__()
            self.layers = nn.ModuleList([EncoderBlock(**block_args) for _ in range(num_layers)])
        def forward(self, x, mask=None):
            for l in self.layers:
                x = l(x, mask=mask)
            return x
        def get_attention_maps(self, x, mask=None):
            attention_maps = []
            for l in self.layers:
                _, attn_map = l.self_attn(x, mask=mask, return_attention=True)
                attention_maps.append(attn_map)
                x = l(x)
            return attention_maps
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=5000):
            super().__init__()
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            pe = pe.unsqueeze(0)
            self.register_buffer('pe', pe, persistent=False)
        def forward(self, x):
            x = x + self.pe[:, :x.size(1)]
            return x
    encod_block = PositionalEncoding(d_model=8, max_len=12)
    pe = encod_block.pe.squeeze().T
    print(pe[:, :4], encod_block.state_dict().keys())
    class CosineWarmupScheduler(torch.optim.lr_scheduler._LRScheduler):
        def __init__(self, optimizer, warmup, max_iters):
            self.warmup = warmup
            self.max_num_iters = max_iters
            super().__init__(optimizer)
        def get_lr(self):
            lr_factor = self.get_lr_factor(epoch=self.last_epoch)
            return [base_lr * lr_factor for base_lr in self.base_lrs]
        def get_lr_factor(self, epoch):
            lr_factor = 0.5 * (1 + math.cos(math.pi * epoch / self.max_num_iters))
            if epoch <= self.warmup:
                lr_factor *= epoch * 1.0 / self.warmup
            return lr_factor
    p = nn.Parameter(torch.empty(4, 4))
    optimizer = torch.optim.Adam([p], lr=1e-3)
    lr_scheduler = CosineWarmupScheduler(optimizer=optimizer, warmup=10, max_iters=50)
    lrs = []
    for e in range(15):
        optimizer.step()
        lr_scheduler.step()
        lrs.append(lr_scheduler.get_last_lr()[0])
    print(lrs)
    torch.manual_seed(0)
    num_classes = 5
    inp = torch.randint(num_classes, (3, 6))
    labels = torch.flip(inp, dims=(1,))
    x = F.one_hot(inp, num_classes=num_classes).float()
    input_net = nn.Sequential(nn.Dropout(0.0), nn.Linear(num_classes, 8))
    pos = PositionalEncoding(d_model=8)
    transformer = TransformerEncoder(num_layers=2, input_dim=8, dim_feedforward=16, num_heads=2, dropout=0.0)
    output_net = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8), nn.ReLU(inplace=True), nn.Dropout(0.0), nn.Linear(8, num_classes))
    params = list(input_net.parameters()) + list(transformer.parameters()) + list(output_net.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    for step in range(3):
        h = pos(input_net(x))
        h = transformer(h)
        preds = output_net(h)
        loss = F.cross_entropy(preds.view(-1, preds.size(-1)), labels.view(-1))
        acc = (preds.argmax(dim=-1) == labels).float().mean()
        opt.zero_grad(); loss.backward(); opt.step()
        print(step, loss, acc)
    mask = torch.tril(torch.ones(6, 6))
    maps = transformer.get_attention_maps(pos(input_net(x)), mask=mask)
    print(len(maps), maps[0].shape, maps[1][0, 1])
    print(transformer(pos(input_net(x)), mask=mask.unsqueeze(0).expand(3, 6, 6))[0, 0])


def uva_flows_ebm(torch):
    # phlippe/uvadlc_notebooks tutorial11 NF_image_modeling (dequantization, coupling layers)
    # and tutorial8 Deep_Energy_Models (Langevin sampling with a buffer)
    nn = torch.nn; F = torch.nn.functional
    import numpy as np
    class Dequantization(nn.Module):
        def __init__(self, alpha=1e-5, quants=256):
            super().__init__()
            self.alpha = alpha
            self.quants = quants
        def forward(self, z, ldj, reverse=False):
            if not reverse:
                z, ldj = self.dequant(z, ldj)
                z, ldj = self.sigmoid(z, ldj, reverse=True)
            else:
                z, ldj = self.sigmoid(z, ldj, reverse=False)
                z = z * self.quants
                ldj += np.log(self.quants) * np.prod(z.shape[1:])
                z = torch.floor(z).clamp(min=0, max=self.quants-1).to(torch.int32)
            return z, ldj
        def sigmoid(self, z, ldj, reverse=False):
            if not reverse:
                ldj += (-z-2*F.softplus(-z)).sum(dim=[1,2,3])
                z = torch.sigmoid(z)
            else:
                z = z * (1 - self.alpha) + 0.5 * self.alpha
                ldj += np.log(1 - self.alpha) * np.prod(z.shape[1:])
                ldj += (-torch.log(z) - torch.log(1-z)).sum(dim=[1,2,3])
                z = torch.log(z) - torch.log(1-z)
            return z, ldj
        def dequant(self, z, ldj):
            z = z.to(torch.float32)
            z = z + torch.rand_like(z).detach()
            z = z / self.quants
            ldj -= np.log(self.quants) * np.prod(z.shape[1:])
            return z, ldj
    torch.manual_seed(42)
    orig_img = torch.randint(0, 256, (2, 1, 4, 4))
    ldj = torch.zeros(2,)
    dequant_module = Dequantization()
    deq_img, ldj = dequant_module(orig_img, ldj, reverse=False)
    reconst_img, ldj = dequant_module(deq_img, ldj, reverse=True)
    d1, d2, d3 = torch.where(orig_img.squeeze() != reconst_img.squeeze())
    print(ldj, deq_img[0, 0, 0], reconst_img.dtype, len(d1), (orig_img == reconst_img).all())
    def create_checkerboard_mask(h, w, invert=False):
        x, y = torch.arange(h, dtype=torch.int32), torch.arange(w, dtype=torch.int32)
        xx, yy = torch.meshgrid(x, y, indexing='ij')
        mask = torch.fmod(xx + yy, 2)
        mask = mask.to(torch.float32).view(1, 1, h, w)
        if invert:
            mask = 1 - mask
        return mask
    def create_channel_mask(c_in, invert=False):
        mask = torch.cat([torch.ones(c_in//2, dtype=torch.float32),
                          torch.zeros(c_in-c_in//2, dtype=torch.float32)])
        mask = mask.view(1, c_in, 1, 1)
        if invert:
            mask = 1 - mask
        return mask
    print(create_checkerboard_mask(4, 4), create_channel_mask(3, invert=True).flatten())
    class ConcatELU(nn.Module):
        def forward(self, x):
            return torch.cat([F.elu(x), F.elu(-x)], dim=1)
    class LayerNormChannels(nn.Module):
        def __init__(self, c_in, eps=1e-5):
            super().__init__()
            self.gamma = nn.Parameter(torch.ones(1, c_in, 1, 1))
            self.beta = nn.Parameter(torch.zeros(1, c_in, 1, 1))
            self.eps = eps
        def forward(self, x):
            mean = x.mean(dim=1, keepdim=True)
            var = x.var(dim=1, unbiased=False, keepdim=True)
            y = (x - mean) / torch.sqrt(var + self.eps)
            y = y * self.gamma + self.beta
            return y
    class GatedConv(nn.Module):
        def __init__(self, c_in, c_hidden):
            super().__init__()
            self.net = nn.Sequential(
                ConcatELU(), nn.Conv2d(2*c_in, c_hidden, kernel_size=3, padding=1),
                ConcatELU(), nn.Conv2d(2*c_hidden, 2*c_in, kernel_size=1))
        def forward(self, x):
            out = self.net(x)
            val, gate = out.chunk(2, dim=1)
            return x + val * torch.sigmoid(gate)
    class CouplingLayer(nn.Module):
        def __init__(self, network, mask, c_in):
            super().__init__()
            self.network = network
            self.scaling_factor = nn.Parameter(torch.zeros(c_in))
            self.register_buffer('mask', mask)
        def forward(self, z, ldj, reverse=False, orig_img=None):
            z_in = z * self.mask
            if orig_img is None:
                nn_out = self.network(z_in)
            else:
                nn_out = self.network(torch.cat([z_in, orig_img], dim=1))
            s, t = nn_out.chunk(2, dim=1)
            s_fac = self.scaling_factor.exp().view(1, -1, 1, 1)
            s = torch.tanh(s / s_fac) * s_fac
            s = s * (1 - self.mask)
            t = t * (1 - self.mask)
            if not reverse:
                z = (z + t) * torch.exp(s)
                ldj += s.sum(dim=[1,2,3])
            else:
                z = (z * torch.exp(-s)) - t
                ldj -= s.sum(dim=[1,2,3])
            return z, ldj
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), GatedConv(4, 4), LayerNormChannels(4),
                        ConcatELU(), nn.Conv2d(8, 2, 3, padding=1))
    layer = CouplingLayer(net, create_checkerboard_mask(4, 4), 1)
    with torch.no_grad():
        layer.scaling_factor.fill_(0.3)
    ldj = torch.zeros(2)
    z, ldj2 = layer(deq_img, ldj)
    z.pow(2).sum().backward(retain_graph=True)
    zr, ldj3 = layer(z, ldj2.clone(), reverse=True)
    print(z[0, 0, 0], ldj2, layer.scaling_factor.grad, (zr - deq_img).abs().max() < 1e-4)
    bpd = -ldj2 * np.log2(np.exp(1)) / np.prod(deq_img.shape[1:])
    print(bpd.mean())
    # tutorial8 Deep_Energy_Models
    class Swish(nn.Module):
        def forward(self, x):
            return x * torch.sigmoid(x)
    class CNNModel(nn.Module):
        def __init__(self, hidden_features=4, out_dim=1):
            super().__init__()
            c_hid1 = hidden_features//2; c_hid2 = hidden_features; c_hid3 = hidden_features*2
            self.cnn_layers = nn.Sequential(
                nn.Conv2d(1, c_hid1, kernel_size=5, stride=2, padding=4), Swish(),
                nn.Conv2d(c_hid1, c_hid2, kernel_size=3, stride=2, padding=1), Swish(),
                nn.Conv2d(c_hid2, c_hid3, kernel_size=3, stride=2, padding=1), Swish(),
                nn.Flatten(),
                nn.Linear(c_hid3*2*2, c_hid3), Swish(), nn.Linear(c_hid3, out_dim))
        def forward(self, x):
            x = self.cnn_layers(x).squeeze(dim=-1)
            return x
    import random
    class Sampler:
        def __init__(self, model, img_shape, sample_size, max_len=8192):
            super().__init__()
            self.model = model
            self.img_shape = img_shape
            self.sample_size = sample_size
            self.max_len = max_len
            self.examples = [(torch.rand((1,)+img_shape)*2-1) for _ in range(self.sample_size)]
        def sample_new_exmps(self, steps=60, step_size=10):
            n_new = np.random.binomial(self.sample_size, 0.05)
            rand_imgs = torch.rand((n_new,) + self.img_shape) * 2 - 1
            old_imgs = torch.cat(random.choices(self.examples, k=self.sample_size-n_new), dim=0)
            inp_imgs = torch.cat([rand_imgs, old_imgs], dim=0).detach()
            inp_imgs = Sampler.generate_samples(self.model, inp_imgs, steps=steps, step_size=step_size)
            self.examples = list(inp_imgs.chunk(self.sample_size, dim=0)) + self.examples
            self.examples = self.examples[:self.max_len]
            return inp_imgs
        @staticmethod
        def generate_samples(model, inp_imgs, steps=60, step_size=10, return_img_per_step=False):
            is_training = model.training
            model.eval()
            for p in model.parameters():
                p.requires_grad = False
            inp_imgs.requires_grad = True
            had_gradients_enabled = torch.is_grad_enabled()
            torch.set_grad_enabled(True)
            noise = torch.randn(inp_imgs.shape, device=inp_imgs.device)
            imgs_per_step = []
            for _ in range(steps):
                noise.normal_(0, 0.005)
                inp_imgs.data.add_(noise.data)
                inp_imgs.data.clamp_(min=-1.0, max=1.0)
                out_imgs = -model(inp_imgs)
                out_imgs.sum().backward()
                inp_imgs.grad.data.clamp_(-0.03, 0.03)
                inp_imgs.data.add_(-step_size * inp_imgs.grad.data)
                inp_imgs.grad.detach_()
                inp_imgs.grad.zero_()
                inp_imgs.data.clamp_(min=-1.0, max=1.0)
                if return_img_per_step:
                    imgs_per_step.append(inp_imgs.clone().detach())
            for p in model.parameters():
                p.requires_grad = True
            model.train(is_training)
            torch.set_grad_enabled(had_gradients_enabled)
            if return_img_per_step:
                return torch.stack(imgs_per_step, dim=0)
            else:
                return inp_imgs
    random.seed(0); np.random.seed(0)
    torch.manual_seed(0)
    # (in float64: torch hands these float32 convolutions to oneDNN, whose kernels, chosen by
    # the processor, sum in orders leafgrad does not replay on every machine: on an AVX-512
    # EPYC with BF16 its stride-2 input gradients and the 4 -> 8 channel 4x4 forward differ in
    # the last bits. A known difference, as oneDNN's LSTM.)
    default_dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    cnn = CNNModel()
    sampler = Sampler(cnn, img_shape=(1, 12, 12), sample_size=4)
    opt = torch.optim.Adam(cnn.parameters(), lr=1e-4, betas=(0.0, 0.999))
    real_imgs = torch.rand(4, 1, 12, 12) * 2 - 1
    for step in range(2):
        small_noise = torch.randn_like(real_imgs) * 0.005
        real_imgs.add_(small_noise).clamp_(min=-1.0, max=1.0)
        fake_imgs = sampler.sample_new_exmps(steps=5, step_size=10)
        inp_imgs = torch.cat([real_imgs, fake_imgs], dim=0)
        real_out, fake_out = cnn(inp_imgs).chunk(2, dim=0)
        reg_loss = 0.1 * (real_out ** 2 + fake_out ** 2).mean()
        cdiv_loss = fake_out.mean() - real_out.mean()
        loss = reg_loss + cdiv_loss
        opt.zero_grad(); loss.backward(); opt.step()
        print(step, loss, cdiv_loss.item(), fake_imgs.requires_grad, fake_imgs.grad is None)
    imgs = Sampler.generate_samples(cnn, torch.rand(2, 1, 12, 12) * 2 - 1, steps=4, step_size=10,
                                    return_img_per_step=True)
    print(imgs.shape, imgs[-1, 0, 0, 0], torch.is_grad_enabled())
    torch.set_default_dtype(default_dtype)


def cs231n_pytorch(torch):
    # cs231n assignment2 PyTorch.ipynb (barebones, Module and Sequential APIs)
    nn = torch.nn; F = torch.nn.functional
    import numpy as np
    dtype = torch.float32
    def flatten(x):
        N = x.shape[0]
        return x.view(N, -1)
    x = torch.arange(12).view(2, 1, 3, 2)
    print('Before flattening: ', x)
    print('After flattening: ', flatten(x))
    def two_layer_fc(x, params):
        x = flatten(x)
        w1, w2 = params
        x = F.relu(x.mm(w1))
        x = x.mm(w2)
        return x
    def two_layer_fc_test():
        hidden_layer_size = 42
        x = torch.zeros((64, 50), dtype=dtype)
        w1 = torch.zeros((50, hidden_layer_size), dtype=dtype)
        w2 = torch.zeros((hidden_layer_size, 10), dtype=dtype)
        scores = two_layer_fc(x, [w1, w2])
        print(scores.size())
    two_layer_fc_test()
    def three_layer_convnet(x, params):
        conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
        x = F.relu(F.conv2d(x, conv_w1, conv_b1, padding=2))
        x = F.relu(F.conv2d(x, conv_w2, conv_b2, padding=1))
        x = flatten(x).mm(fc_w) + fc_b
        return x
    def random_weight(shape):
        if len(shape) == 2:
            fan_in = shape[0]
        else:
            fan_in = np.prod(shape[1:])
        w = torch.randn(shape, dtype=dtype) * np.sqrt(2. / fan_in)
        w.requires_grad = True
        return w
    def zero_weight(shape):
        return torch.zeros(shape, dtype=dtype, requires_grad=True)
    torch.manual_seed(0)
    print(random_weight((3, 5)))
    conv_w1 = random_weight((4, 3, 5, 5)); conv_b1 = zero_weight((4,))
    conv_w2 = random_weight((3, 4, 3, 3)); conv_b2 = zero_weight((3,))
    fc_w = random_weight((3 * 8 * 8, 10)); fc_b = zero_weight(10)
    params = [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b]
    x = torch.randn(4, 3, 8, 8); y = torch.randint(0, 10, (4,))
    learning_rate = 3e-3
    for t in range(2):
        scores = three_layer_convnet(x, params)
        loss = F.cross_entropy(scores, y)
        loss.backward()
        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad
                w.grad.zero_()
        print('Iteration %d, loss = %.4f' % (t, loss.item()))
    scores = three_layer_convnet(x, params)
    _, preds = scores.max(1)
    num_correct = (preds == y).sum()
    num_samples = preds.size(0)
    acc = float(num_correct) / num_samples
    print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))
    class TwoLayerFC(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes):
            super().__init__()
            self.fc1 = nn.Linear(input_size, hidden_size)
            nn.init.kaiming_normal_(self.fc1.weight)
            self.fc2 = nn.Linear(hidden_size, num_classes)
            nn.init.kaiming_normal_(self.fc2.weight)
        def forward(self, x):
            x = flatten(x)
            scores = self.fc2(F.relu(self.fc1(x)))
            return scores
    model = TwoLayerFC(3 * 8 * 8, 6, 10)
    print(model(x).size())
    class Flatten(nn.Module):
        def forward(self, x):
            return flatten(x)
    model = nn.Sequential(
        nn.Conv2d(3, 4, kernel_size=5, padding=2), nn.ReLU(),
        nn.Conv2d(4, 3, kernel_size=3, padding=1), nn.ReLU(),
        Flatten(), nn.Linear(3 * 8 * 8, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, momentum=0.9, nesterov=True)
    def check_accuracy(loader, model):
        num_correct = 0; num_samples = 0
        model.eval()
        with torch.no_grad():
            for x, y in loader:
                scores = model(x)
                _, preds = scores.max(1)
                num_correct += (preds == y).sum()
                num_samples += preds.size(0)
            acc = float(num_correct) / num_samples
            print('Got %d / %d correct (%.2f)' % (num_correct, num_samples, 100 * acc))
    for e in range(2):
        model.train()
        scores = model(x)
        loss = F.cross_entropy(scores, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print('Iteration %d, loss = %.4f' % (e, loss.item()))
    check_accuracy([(x, y)], model)
    print(model[0].weight.grad.norm(), type(num_correct), num_correct)


def pt_mnist_rnn(torch):
    # pytorch/examples mnist_rnn/main.py
    nn = torch.nn; F = torch.nn.functional
    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.rnn = nn.LSTM(input_size=28, hidden_size=8, batch_first=True)
            self.batchnorm = nn.BatchNorm1d(8)
            self.dropout1 = nn.Dropout2d(0.25)
            self.dropout2 = nn.Dropout2d(0.5)
            self.fc1 = nn.Linear(8, 6)
            self.fc2 = nn.Linear(6, 10)
        def forward(self, input):
            input = input.reshape(-1, 28, 28)
            output, hidden = self.rnn(input)
            output = output[:, -1, :]
            output = self.batchnorm(output)
            output = self.dropout1(output)
            output = self.fc1(output)
            output = F.relu(output)
            output = self.dropout2(output)
            output = self.fc2(output)
            output = F.log_softmax(output, dim=1)
            return output
    torch.manual_seed(1)
    model = Net().double()  # (float32 LSTM layers: oneDNN's last bits, a known difference)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    data = torch.randn(4, 1, 28, 28, dtype=torch.double); target = torch.randint(0, 10, (4,))
    for epoch in range(2):
        model.train()
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        print('Train Epoch: {} \tLoss: {:.6f}'.format(epoch, loss.item()))
        scheduler.step()
    model.eval()
    with torch.no_grad():
        output = model(data)
        test_loss = F.nll_loss(output, target, reduction='sum').item()
        pred = output.argmax(dim=1, keepdim=True)
        correct = pred.eq(target.view_as(pred)).sum().item()
    print(test_loss, correct, output)


def fastai_matmul_backprop(torch):
    # fastai/course22p2 nbs/01_matmul.ipynb, 02_meanshift.ipynb, 03_backprop.ipynb
    tensor = torch.tensor
    torch.manual_seed(1)
    x_valid = torch.rand(5, 24); x_train = torch.rand(50, 784)
    y_train = torch.randint(0, 10, (50,)).float()
    weights = torch.randn(24, 10); bias = torch.zeros(10)
    m1 = x_valid[:3]; m2 = weights
    ar, ac = m1.shape; br, bc = m2.shape
    t1 = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            for k in range(ac): t1[i, j] += m1[i, k] * m2[k, j]
    print(t1.shape, t1[0])
    torch.set_printoptions(precision=2, linewidth=140, sci_mode=False)
    print(t1)
    def matmul(a, b):
        (ar, ac), (br, bc) = a.shape, b.shape
        c = torch.zeros(ar, bc)
        for i in range(ar):
            for j in range(bc): c[i, j] = (a[i, :] * b[:, j]).sum()
        return c
    print(torch.allclose(t1, matmul(m1, m2), rtol=1e-3, atol=1e-5))
    def matmul2(a, b):
        (ar, ac), (br, bc) = a.shape, b.shape
        c = torch.zeros(ar, bc)
        for i in range(ar):
            c[i] = (a[i, :, None] * b).sum(dim=0)
        return c
    print((t1 - matmul2(m1, m2)).abs().max() < 1e-4)
    c = tensor([10., 20, 30]); m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
    print(c + m, c[None], c[:, None], c[None, :] * c[:, None], c[..., None])
    print(torch.einsum('ik,kj->ikj', m1, m2).shape, torch.einsum('ik,kj->ij', m1, m2)[0])
    print((m1 @ m2 - torch.einsum('ik,kj->ij', m1, m2)).abs().max())
    torch.set_printoptions(precision=4, linewidth=80, sci_mode=None)
    # 02_meanshift
    n_clusters = 3; n_samples = 10
    centroids = torch.rand(n_clusters, 2) * 70 - 35
    MultivariateNormal = torch.distributions.multivariate_normal.MultivariateNormal
    def sample(m):
        return MultivariateNormal(m, torch.diag(tensor([5., 5.]))).sample((n_samples,))
    slices = [sample(c) for c in centroids]
    data = torch.cat(slices)
    print(data.shape, data[:3])
    def gaussian(d, bw):
        return torch.exp(-0.5 * ((d / bw)) ** 2) / (bw * math.sqrt(2 * math.pi))
    def tri(d, i):
        return (-d + i).clamp_min(0) / i
    X = data.clone()
    x = data[0]
    print((x - X)[:3], ((x - X) ** 2).sum(1).sqrt()[:4])
    def one_update(X):
        for i, x in enumerate(X):
            dist = torch.sqrt(((x - X) ** 2).sum(1))
            weight = gaussian(dist, 2.5)
            X[i] = (weight[:, None] * X).sum(0) / weight.sum()
    def meanshift(data):
        X = data.clone()
        for it in range(3): one_update(X)
        return X
    print(meanshift(data)[:4])
    def dist_b(a, b):
        return (((a[None] - b[:, None]) ** 2).sum(2)).sqrt()
    def meanshift_b(data, bs=8):
        n = len(data)
        X = data.clone()
        for it in range(3):
            for i in range(0, n, bs):
                s = slice(i, min(i + bs, n))
                weight = tri(dist_b(X, X[s]), 8)
                div = weight.sum(1, keepdim=True)
                X[s] = weight @ X / div
        return X
    print(meanshift_b(data)[-3:])
    # 03_backprop: manual gradients stored on tensors as .g
    x_train = x_train[:, :20]
    n, m = x_train.shape
    nh = 5
    w1 = torch.randn(m, nh); b1 = torch.zeros(nh)
    w2 = torch.randn(nh, 1); b2 = torch.zeros(1)
    def lin(x, w, b): return x @ w + b
    def relu(x): return x.clamp_min(0.)
    def mse(output, targ): return ((output.squeeze() - targ) ** 2).mean()
    def lin_grad(inp, out, w, b):
        inp.g = out.g @ w.t()
        w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
        b.g = out.g.sum(0)
    def forward_and_backward(inp, targ):
        l1 = lin(inp, w1, b1)
        l2 = relu(l1)
        out = lin(l2, w2, b2)
        diff = out[:, 0] - targ
        loss = diff.pow(2).mean()
        out.g = 2. * diff[:, None] / inp.shape[0]
        lin_grad(l2, out, w2, b2)
        l1.g = (l1 > 0).float() * l2.g
        lin_grad(inp, l1, w1, b1)
        return loss
    loss = forward_and_backward(x_train, y_train)
    def get_grad(x): return x.g.clone()
    chks = w1, w2, b1, b2, x_train
    grads = w1g, w2g, b1g, b2g, ig = tuple(map(get_grad, chks))
    def mkgrad(x): return x.clone().requires_grad_(True)
    ptgrads = w12, w22, b12, b22, xt2 = tuple(map(mkgrad, chks))
    def forward(inp, targ):
        l1 = lin(inp, w12, b12)
        l2 = relu(l1)
        out = lin(l2, w22, b22)
        return mse(out, targ)
    loss2 = forward(xt2, y_train)
    loss2.backward()
    for a, b in zip(grads, ptgrads):
        print(torch.allclose(a, b.grad, rtol=1e-3, atol=1e-5), (a - b.grad).abs().max())
    print(loss, loss2)
    class Relu():
        def __call__(self, inp):
            self.inp = inp
            self.out = inp.clamp_min(0.)
            return self.out
        def backward(self): self.inp.g = (self.inp > 0).float() * self.out.g
    class Lin():
        def __init__(self, w, b): self.w, self.b = w, b
        def __call__(self, inp):
            self.inp = inp
            self.out = lin(inp, self.w, self.b)
            return self.out
        def backward(self):
            self.inp.g = self.out.g @ self.w.t()
            self.w.g = self.inp.t() @ self.out.g
            self.b.g = self.out.g.sum(0)
    class Mse():
        def __call__(self, inp, targ):
            self.inp, self.targ = inp, targ
            self.out = mse(inp, targ)
            return self.out
        def backward(self):
            self.inp.g = 2. * (self.inp.squeeze() - self.targ).unsqueeze(-1) / self.targ.shape[0]
    class Model():
        def __init__(self, w1, b1, w2, b2):
            self.layers = [Lin(w1, b1), Relu(), Lin(w2, b2)]
            self.loss = Mse()
        def __call__(self, x, targ):
            for l in self.layers: x = l(x)
            return self.loss(x, targ)
        def backward(self):
            self.loss.backward()
            for l in reversed(self.layers): l.backward()
    model = Model(w1, b1, w2, b2)
    loss = model(x_train, y_train)
    model.backward()
    print(torch.allclose(w2g, w2.g, rtol=1e-3, atol=1e-5), w2.g.T)
    class LinFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp, w, b):
            ctx.save_for_backward(inp, w)
            return inp @ w + b
        @staticmethod
        def backward(ctx, g):
            inp, w = ctx.saved_tensors
            return g @ w.t(), inp.t() @ g, g.sum(0)
    w = w12.detach().requires_grad_()
    out = LinFn.apply(x_train, w, b12.detach())
    out.sum().backward()
    print(out.grad_fn, w.grad.shape, out.requires_grad)
    class Module():
        def __call__(self, *args):
            self.args = args
            self.out = self.forward(*args)
            return self.out
        def forward(self): raise Exception('not implemented')
        def backward(self): self.bwd(self.out, *self.args)
        def bwd(self): raise Exception('not implemented')
    class Relu2(Module):
        def forward(self, inp): return inp.clamp_min(0.)
        def bwd(self, out, inp): inp.g = (inp > 0).float() * out.g
    r = Relu2()
    o = r(torch.randn(4))
    o.g = torch.ones(4)
    r.backward()
    print(r.args[0].g, o)
    # 04_minibatch_training
    nn = torch.nn; F = torch.nn.functional
    x_train = torch.rand(20, 12); y_train = torch.randint(0, 10, (20,))
    def log_softmax(x): return (x.exp() / (x.exp().sum(-1, keepdim=True))).log()
    def logsumexp(x):
        m = x.max(-1)[0]
        return m + (x - m[:, None]).exp().sum(-1).log()
    def log_softmax2(x): return x - x.logsumexp(-1, keepdim=True)
    model = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 10))
    pred = model(x_train)
    sm_pred = log_softmax(pred)
    print(torch.allclose(logsumexp(pred), pred.logsumexp(-1)), (log_softmax2(pred) - sm_pred).abs().max() < 1e-6)
    def nll(input, target): return -input[range(target.shape[0]), target].mean()
    loss = nll(sm_pred, y_train)
    print(loss, F.nll_loss(F.log_softmax(pred, -1), y_train), F.cross_entropy(pred, y_train))
    def accuracy(out, yb): return (out.argmax(dim=1) == yb).float().mean()
    def report(loss, preds, yb): print(f'{loss:.2f}, {accuracy(preds, yb):.2f}')
    report(loss, pred, y_train)
    class MLP(nn.Module):
        def __init__(self, n_in, nh, n_out):
            super().__init__()
            self.l1 = nn.Linear(n_in, nh)
            self.l2 = nn.Linear(nh, n_out)
            self.relu = nn.ReLU()
        def forward(self, x): return self.l2(self.relu(self.l1(x)))
    model = MLP(12, 8, 10)
    for name, l in model.named_children(): print(f"{name}: {l}")
    print(list(model.parameters())[0].shape, model.l1)
    class MyModule:
        def __init__(self, n_in, nh, n_out):
            self._modules = {}
            self.l1 = nn.Linear(n_in, nh)
            self.l2 = nn.Linear(nh, n_out)
        def __setattr__(self, k, v):
            if not k.startswith("_"): self._modules[k] = v
            super().__setattr__(k, v)
        def __repr__(self): return f'{self._modules}'
        def parameters(self):
            for l in self._modules.values(): yield from l.parameters()
    mdl = MyModule(12, 8, 10)
    print(mdl, [o.shape for o in mdl.parameters()])
    class Dataset():
        def __init__(self, x, y): self.x, self.y = x, y
        def __len__(self): return len(self.x)
        def __getitem__(self, i): return self.x[i], self.y[i]
    train_ds = Dataset(x_train, y_train)
    xb, yb = train_ds[0:5]
    print(xb.shape, yb)
    DataLoader = torch.utils.data.DataLoader
    SequentialSampler = torch.utils.data.SequentialSampler
    RandomSampler = torch.utils.data.RandomSampler
    BatchSampler = torch.utils.data.BatchSampler
    default_collate = torch.utils.data.default_collate
    train_samp = BatchSampler(RandomSampler(train_ds), 4, drop_last=False)
    def collate(b):
        xs, ys = zip(*b)
        return torch.stack(xs), torch.stack(ys)
    train_dl = DataLoader(train_ds, batch_sampler=train_samp, collate_fn=collate)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(2):
        for xb, yb in train_dl:
            preds = model(xb)
            loss = F.cross_entropy(preds, yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        report(loss, preds, yb)
    print(default_collate([(torch.ones(2), 1), (torch.zeros(2), 3)]))
    dl = DataLoader(train_ds, batch_size=6, shuffle=True, drop_last=True)
    print([tuple(b[0].shape) for b in dl], next(iter(dl))[1])


def pt_extending_func(torch):
    # pytorch/tutorials (docs) notes/extending.func.rst: autograd.Function with setup_context,
    # vmap staticmethod and generate_vmap_rule
    import numpy as np
    def to_numpy(tensor):
        return tensor.cpu().numpy()
    class NumpySort(torch.autograd.Function):
        @staticmethod
        def forward(x, dim):
            device = x.device
            x = to_numpy(x)
            ind = np.argsort(x, axis=dim)
            ind_inv = np.argsort(ind, axis=dim)
            result = np.take_along_axis(x, ind, axis=dim)
            return (
                torch.tensor(result, device=device),
                torch.tensor(ind, device=device),
                torch.tensor(ind_inv, device=device),
            )
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, dim = inputs
            _, ind, ind_inv = output
            ctx.mark_non_differentiable(ind, ind_inv)
            ctx.save_for_backward(ind, ind_inv)
            ctx.dim = dim
        @staticmethod
        def backward(ctx, grad_output, _0, _1):
            ind, ind_inv = ctx.saved_tensors
            return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None
        @staticmethod
        def vmap(info, in_dims, x, dim):
            x_bdim, _ = in_dims
            x = x.movedim(x_bdim, 0)
            dim = dim if dim >= 0 else dim + x.dim() - 1
            result = NumpySort.apply(x, dim + 1)
            return NumpySort.apply(x, dim + 1), (0, 0, 0)
    class NumpyTake(torch.autograd.Function):
        @staticmethod
        def forward(x, ind, ind_inv, dim):
            device = x.device
            x = to_numpy(x)
            ind = to_numpy(ind)
            return torch.tensor(np.take_along_axis(x, ind, dim), device=device)
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, ind, ind_inv, dim = inputs
            ctx.save_for_backward(ind, ind_inv)
            ctx.dim = dim
        @staticmethod
        def backward(ctx, grad_output):
            ind, ind_inv = ctx.saved_tensors
            result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
            return result, None, None, None
        @staticmethod
        def vmap(info, in_dims, x, ind, ind_inv, dim):
            x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
            logical_dim = x.dim() if x_bdim is None else x_bdim - 1
            dim = dim if dim >= 0 else dim + logical_dim
            def maybe_expand_bdim_at_front(x, x_bdim):
                if x_bdim is None:
                    return x.expand(info.batch_size, *x.shape)
                return x.movedim(x_bdim, 0)
            x = maybe_expand_bdim_at_front(x, x_bdim)
            ind = maybe_expand_bdim_at_front(ind, ind_bdim)
            ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)
            return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0
    def numpy_sort(x, dim=-1):
        result, _, _ = NumpySort.apply(x, dim)
        return result
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    result = torch.vmap(numpy_sort)(x)
    print(result, torch.allclose(result, numpy_sort(x, 1)))
    x = torch.randn(3, requires_grad=True)
    y = numpy_sort(x)
    print(y, y.grad_fn)
    grad_x = torch.func.grad(lambda x: numpy_sort(x).sum())(x)
    print(grad_x, torch.allclose(grad_x, torch.ones_like(x)))
    weights = torch.randn(3)
    gx = torch.func.grad(lambda x: (numpy_sort(x) * weights).sum())(x)
    print(gx)
    res, ind, ind_inv = NumpySort.apply(x, 0)
    print(res.requires_grad, ind.requires_grad, ind.dtype)
    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(x):
            result = x ** 3
            dx = 3 * x ** 2
            return result, dx
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)
        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            result = grad_output * dx + grad_dx * 6 * x
            return result
    def my_cube(x):
        result, _ = MyCube.apply(x)
        return result
    x = torch.randn(3)
    ggx = torch.func.grad(torch.func.grad(my_cube))(torch.tensor(0.25))
    print(ggx, torch.func.grad(my_cube)(torch.tensor(2.0)))
    class MyCube2(torch.autograd.Function):
        generate_vmap_rule = True
        @staticmethod
        def forward(x):
            result = x ** 3
            dx = 3 * x ** 2
            return result, dx
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)
        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            result = grad_output * dx + grad_dx * 6 * x
            return result
    def my_cube2(x):
        result, dx = MyCube2.apply(x)
        return result
    x = torch.randn(3)
    print(torch.vmap(my_cube2)(x), torch.vmap(torch.func.grad(my_cube2))(x))
    try:
        torch.vmap(my_cube)(x)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    class MySin(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x.sin()
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
        @staticmethod
        def backward(ctx, gO):
            x, = ctx.saved_tensors
            return gO * x.cos()
        @staticmethod
        def jvp(ctx, x_t):
            x, = ctx.saved_tensors
            return x_t * x.cos()
    x = torch.randn(4)
    print(torch.func.jvp(MySin.apply, (x,), (torch.ones(4),)), torch.func.jacfwd(MySin.apply)(x).diag())
    try:
        MySin.apply(x, 1)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])


def pt_fuse_conv_bn(torch):
    # pytorch/tutorials intermediate_source/custom_function_conv_bn_tutorial.py
    F = torch.nn.functional
    def convolution_backward(grad_out, X, weight):
        grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
        grad_X = torch.nn.functional.conv_transpose2d(grad_out, weight)
        return grad_X, grad_input
    class Conv2D(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, weight):
            ctx.save_for_backward(X, weight)
            return F.conv2d(X, weight)
        @staticmethod
        def backward(ctx, grad_out):
            X, weight = ctx.saved_tensors
            return convolution_backward(grad_out, X, weight)
    weight = torch.rand(2, 3, 3, 3, requires_grad=True, dtype=torch.double)
    X = torch.rand(2, 3, 4, 4, requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(Conv2D.apply, (X, weight)))
    def unsqueeze_all(t):
        return t[None, :, None, None]
    def batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
        tmp = ((X - unsqueeze_all(sum) / N) * grad_out).sum(dim=(0, 2, 3))
        tmp *= -1
        d_denom = tmp / (sqrt_var + eps)**2
        d_var = d_denom / (2 * sqrt_var)
        d_mean_dx = grad_out / unsqueeze_all(sqrt_var + eps)
        d_mean_dx = unsqueeze_all(-d_mean_dx.sum(dim=(0, 2, 3)) / N)
        grad_input = X * unsqueeze_all(d_var * N)
        grad_input += unsqueeze_all(-d_var * sum)
        grad_input *= 2 / ((N - 1) * N)
        grad_input += d_mean_dx
        grad_input *= unsqueeze_all(sqrt_var + eps)
        grad_input += grad_out
        grad_input /= unsqueeze_all(sqrt_var + eps)
        return grad_input
    class BatchNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, eps=1e-3):
            sum = X.sum(dim=(0, 2, 3))
            var = X.var(unbiased=True, dim=(0, 2, 3))
            N = X.numel() / X.size(1)
            sqrt_var = torch.sqrt(var)
            ctx.save_for_backward(X)
            ctx.eps = eps
            ctx.sum = sum
            ctx.N = N
            ctx.sqrt_var = sqrt_var
            mean = sum / N
            denom = sqrt_var + eps
            out = X - unsqueeze_all(mean)
            out /= unsqueeze_all(denom)
            return out
        @staticmethod
        def backward(ctx, grad_out):
            X, = ctx.saved_tensors
            return batch_norm_backward(grad_out, X, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)
    a = torch.rand(1, 2, 3, 4, requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(BatchNorm.apply, (a,), fast_mode=False))
    class FusedConvBN2DFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, conv_weight, eps=1e-3):
            assert X.ndim == 4
            ctx.save_for_backward(X, conv_weight)
            X = F.conv2d(X, conv_weight)
            sum = X.sum(dim=(0, 2, 3))
            var = X.var(unbiased=True, dim=(0, 2, 3))
            N = X.numel() / X.size(1)
            sqrt_var = torch.sqrt(var)
            ctx.eps = eps
            ctx.sum = sum
            ctx.N = N
            ctx.sqrt_var = sqrt_var
            mean = sum / N
            denom = sqrt_var + eps
            out = X - unsqueeze_all(mean)
            out /= unsqueeze_all(denom)
            return out
        @staticmethod
        def backward(ctx, grad_out):
            X, conv_weight, = ctx.saved_tensors
            X_conv_out = F.conv2d(X, conv_weight)
            grad_out = batch_norm_backward(grad_out, X_conv_out, ctx.sum, ctx.sqrt_var,
                                           ctx.N, ctx.eps)
            grad_X, grad_input = convolution_backward(grad_out, X, conv_weight)
            return grad_X, grad_input, None, None, None, None, None
    weight = torch.rand(2, 3, 3, 3, requires_grad=True, dtype=torch.double)
    a = torch.rand(2, 3, 4, 4, requires_grad=True, dtype=torch.double)
    print(torch.autograd.gradcheck(FusedConvBN2DFunction.apply, (a, weight)))
    nn = torch.nn
    class FusedConvBN(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, exp_avg_factor=0.1,
                     eps=1e-3, device=None, dtype=None):
            super(FusedConvBN, self).__init__()
            factory_kwargs = {'device': device, 'dtype': dtype}
            weight_shape = (out_channels, in_channels, kernel_size, kernel_size)
            self.conv_weight = nn.Parameter(torch.empty(*weight_shape, **factory_kwargs))
            num_features = out_channels
            self.num_features = num_features
            self.eps = eps
            self.reset_parameters()
        def forward(self, X):
            return FusedConvBN2DFunction.apply(X, self.conv_weight, self.eps)
        def reset_parameters(self) -> None:
            nn.init.kaiming_uniform_(self.conv_weight, a=math.sqrt(5))
    torch.manual_seed(0)
    class Net(nn.Module):
        def __init__(self, fused=True):
            super(Net, self).__init__()
            self.fused = fused
            if fused:
                self.convbn1 = FusedConvBN(1, 4, 3)
                self.convbn2 = FusedConvBN(4, 4, 3)
            else:
                self.conv1 = nn.Conv2d(1, 4, 3, 1, bias=False)
                self.bn1 = nn.BatchNorm2d(4, affine=False, track_running_stats=False)
                self.conv2 = nn.Conv2d(4, 4, 3, 1, bias=False)
                self.bn2 = nn.BatchNorm2d(4, affine=False, track_running_stats=False)
            self.fc1 = nn.Linear(16, 10)
            self.dropout = nn.Dropout(0.5)
        def forward(self, x):
            if self.fused:
                x = self.convbn1(x)
            else:
                x = self.conv1(x)
                x = self.bn1(x)
            F.relu_(x)
            if self.fused:
                x = self.convbn2(x)
            else:
                x = self.conv2(x)
                x = self.bn2(x)
            F.relu_(x)
            x = F.max_pool2d(x, 2)
            F.relu_(x)
            x = x.flatten(1)
            x = self.fc1(x)
            x = self.dropout(x)
            F.relu_(x)
            output = F.log_softmax(x, dim=1)
            return output
    for fused in (True, False):
        torch.manual_seed(1)
        model = Net(fused=fused).double()
        optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
        data = torch.rand(4, 1, 8, 8, dtype=torch.double); target = torch.randint(0, 10, (4,))
        for step in range(2):
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            print(fused, step, loss.item(), output.grad_fn)


def pt_parametrizations(torch):
    # pytorch/tutorials intermediate_source/parametrizations.py
    nn = torch.nn
    parametrize = torch.nn.utils.parametrize
    def symmetric(X):
        return X.triu() + X.triu(1).transpose(-1, -2)
    torch.manual_seed(0)
    X = torch.rand(3, 3)
    A = symmetric(X)
    print(torch.allclose(A, A.T), A)
    class LinearSymmetric(nn.Module):
        def __init__(self, n_features):
            super().__init__()
            self.n_features = n_features
            self.weight = nn.Parameter(torch.rand(n_features, n_features))
        def forward(self, x):
            A = symmetric(self.weight)
            return x @ A
    layer = LinearSymmetric(3)
    out = layer(torch.rand(8, 3))
    print(out.grad_fn, out[0])
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    A = layer.weight
    print(torch.allclose(A, A.T), A)
    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)
    cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
    parametrize.register_parametrization(cnn, "weight", Skew())
    print(cnn.weight[0, 1])
    print(cnn.weight[2, 2])
    layer = nn.Linear(3, 3)
    print(f"Unparametrized:\n{layer}")
    parametrize.register_parametrization(layer, "weight", Symmetric())
    print(f"\nParametrized:\n{layer}")
    print(layer.parametrizations)
    print(layer.parametrizations.weight)
    print(layer.parametrizations.weight.original)
    print(symmetric(layer.parametrizations.weight.original))
    class NoisyParametrization(nn.Module):
        def forward(self, X):
            print("Computing the Parametrization")
            return X
    layer = nn.Linear(4, 4)
    parametrize.register_parametrization(layer, "weight", NoisyParametrization())
    print("Here, layer.weight is recomputed every time we call it")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
    with parametrize.cached():
        print("Here, it is computed just the first time layer.weight is called")
        foo = layer.weight + layer.weight.T
        bar = layer.weight.sum()
    class CayleyMap(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("Id", torch.eye(n))
        def forward(self, X):
            return torch.linalg.solve(self.Id - X, self.Id + X)
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Skew())
    parametrize.register_parametrization(layer, "weight", CayleyMap(3))
    X = layer.weight
    print(torch.dist(X.T @ X, torch.eye(3)), layer.weight.grad_fn)
    class MatrixExponential(nn.Module):
        def forward(self, X):
            return torch.matrix_exp(X)
    layer_orthogonal = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
    parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
    X = layer_orthogonal.weight
    print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)
    layer_spd = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_spd, "weight", Symmetric())
    parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
    X = layer_spd.weight
    # (the tutorial prints the distance: matrix_exp's last bits are not torch's, README)
    print(torch.dist(X, X.T) < 1e-6, (torch.linalg.eigvalsh(X) > 0.).all())
    class Skew2(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)
        def right_inverse(self, A):
            return A.triu(1)
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Skew2())
    X = torch.rand(3, 3)
    X = X - X.T
    layer.weight = X
    print(torch.dist(layer.weight, X))
    class CayleyMap2(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("Id", torch.eye(n))
        def forward(self, X):
            return torch.linalg.solve(self.Id + X, self.Id - X)
        def right_inverse(self, A):
            return torch.linalg.solve(A + self.Id, self.Id - A)
    layer_orthogonal = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_orthogonal, "weight", Skew2())
    parametrize.register_parametrization(layer_orthogonal, "weight", CayleyMap2(3))
    X = torch.rand(3, 3)
    X = X - X.T
    Q = torch.linalg.solve(torch.eye(3) + X, torch.eye(3) - X)
    layer_orthogonal.weight = Q
    print(torch.dist(Q, layer_orthogonal.weight), Q)
    layer = nn.Linear(3, 8)
    print(f"Before:\n{layer}")
    print(f"Parametrization:\n{layer.weight}")
    parametrize.register_parametrization(layer, "weight", Skew2() if False else nn.Identity())
    parametrize.remove_parametrizations(layer, "weight")
    print(f"\nAfter. Weight has skew-symmetric values but it is unconstrained:\n{layer}")
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Skew2())
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
    print(layer.weight, parametrize.is_parametrized(layer))
    try:
        parametrize.remove_parametrizations(layer, "weight")
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])


def pt_autograd_functional(torch):
    # pytorch docs / tutorials: torch.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp)
    AF = torch.autograd.functional
    def exp_reducer(x):
        return x.exp().sum(dim=1)
    torch.manual_seed(0)
    inputs = torch.rand(2, 2)
    print(AF.jacobian(exp_reducer, inputs))
    print(AF.jacobian(exp_reducer, inputs, create_graph=True))
    def exp_adder(x, y):
        return 2 * x.exp() + 3 * y
    inputs = (torch.rand(2), torch.rand(2))
    print(AF.jacobian(exp_adder, inputs))
    print(AF.jacobian(exp_adder, inputs, vectorize=True, strategy='forward-mode'))
    def pow_reducer(x):
        return x.pow(3).sum()
    inputs = torch.rand(2, 2)
    print(AF.hessian(pow_reducer, inputs))
    print(AF.hessian(pow_reducer, inputs, create_graph=True)[0, 0])
    def pow_adder_reducer(x, y):
        return (2 * x.pow(2) + 3 * y.pow(2)).sum()
    inputs = (torch.rand(2), torch.rand(2))
    print(AF.hessian(pow_adder_reducer, inputs))
    def exp_reducer2(x):
        return x.exp().sum(dim=1)
    inputs = torch.rand(4, 4)
    v = torch.ones(4)
    print(AF.vjp(exp_reducer2, inputs, v))
    print(AF.vjp(exp_reducer2, inputs, v, create_graph=True))
    def adder(x, y):
        return 2 * x + 3 * y
    inputs = (torch.rand(2), torch.rand(2))
    v = torch.ones(2)
    print(AF.vjp(adder, inputs, v))
    inputs = torch.rand(4, 4)
    v = torch.ones(4, 4)
    print(AF.jvp(exp_reducer2, inputs, v))
    print(AF.jvp(adder, (torch.rand(2), torch.rand(2)), (torch.ones(2), torch.ones(2))))
    def pow_reducer2(x):
        return x.pow(3).sum()
    inputs = torch.rand(2, 2)
    v = torch.ones(2, 2)
    print(AF.vhp(pow_reducer2, inputs, v))
    print(AF.hvp(pow_reducer2, inputs, v))
    print(AF.vhp(pow_adder_reducer, (torch.rand(2), torch.rand(2)), (torch.zeros(2), torch.ones(2))))
    try:
        AF.jacobian(exp_reducer, inputs, strict=True, vectorize=True)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    try:
        AF.vjp(exp_reducer2, torch.rand(4, 4), torch.ones(3))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    print(AF.jacobian(lambda x: torch.ones(3), torch.rand(2)))
    try:
        AF.jacobian(lambda x: torch.ones(3), torch.rand(2), strict=True)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])


def uva_intro(torch):
    # phlippe/uvadlc_notebooks tutorial2 Introduction_to_PyTorch.ipynb
    nn = torch.nn; F = torch.nn.functional
    import numpy as np
    torch.manual_seed(42)
    x = torch.Tensor(2, 3, 4)
    print(x.shape, x.dtype)
    x = torch.Tensor([[1, 2], [3, 4]])
    print(x)
    x = torch.rand(2, 3, 4)
    print(x)
    shape = x.shape
    print("Shape:", x.shape)
    size = x.size()
    print("Size:", size)
    dim1, dim2, dim3 = x.size()
    print("Size:", dim1, dim2, dim3)
    np_arr = np.array([[1, 2], [3, 4]])
    tensor = torch.from_numpy(np_arr)
    print("Numpy array:", np_arr)
    print("PyTorch tensor:", tensor)
    tensor = torch.arange(4)
    np_arr = tensor.numpy()
    print("PyTorch tensor:", tensor)
    print("Numpy array:", np_arr)
    x1 = torch.rand(2, 3)
    x2 = torch.rand(2, 3)
    y = x1 + x2
    print("X1", x1); print("X2", x2); print("Y", y)
    x2.add_(x1)
    print("X1 (after)", x1); print("X2 (after)", x2)
    x = torch.arange(6)
    x = x.view(2, 3)
    print("X", x)
    x = x.permute(1, 0)
    print("X", x)
    x = torch.arange(6)
    x = x.view(2, 3)
    W = torch.arange(9).view(3, 3)
    h = torch.matmul(x, W)
    print("H", h)
    x = torch.arange(12).view(3, 4)
    print("X", x)
    print(x[:, 1]); print(x[0]); print(x[:2, -1]); print(x[1:3, :])
    x = torch.ones((3,))
    print(x.requires_grad)
    x.requires_grad_(True)
    print(x.requires_grad)
    x = torch.arange(3, dtype=torch.float32, requires_grad=True)
    print("X", x)
    a = x + 2
    b = a ** 2
    c = b + 3
    y = c.mean()
    print("Y", y)
    y.backward()
    print(x.grad)
    gpu_avail = torch.cuda.is_available()
    print(f"Is the GPU available? {gpu_avail}")
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    print("Device", device)
    x = torch.zeros(2, 3)
    x = x.to(device)
    print("X", x)
    torch.manual_seed(42)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(42)
        torch.cuda.manual_seed_all(42)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    class SimpleClassifier(nn.Module):
        def __init__(self, num_inputs, num_hidden, num_outputs):
            super().__init__()
            self.linear1 = nn.Linear(num_inputs, num_hidden)
            self.act_fn = nn.Tanh()
            self.linear2 = nn.Linear(num_hidden, num_outputs)
        def forward(self, x):
            x = self.linear1(x)
            x = self.act_fn(x)
            x = self.linear2(x)
            return x
    model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
    print(model)
    for name, param in model.named_parameters():
        print(f"Parameter {name}, shape {param.shape}")
    data = torch.utils.data
    class XORDataset(data.Dataset):
        def __init__(self, size, std=0.1):
            super().__init__()
            self.size = size
            self.std = std
            self.generate_continuous_xor()
        def generate_continuous_xor(self):
            data = torch.randint(low=0, high=2, size=(self.size, 2), dtype=torch.float32)
            label = (data.sum(dim=1) == 1).to(torch.long)
            data += self.std * torch.randn(data.shape)
            self.data = data
            self.label = label
        def __len__(self):
            return self.size
        def __getitem__(self, idx):
            data_point = self.data[idx]
            data_label = self.label[idx]
            return data_point, data_label
    dataset = XORDataset(size=40)
    print("Size of dataset:", len(dataset))
    print("Data point 0:", dataset[0])
    data_loader = data.DataLoader(dataset, batch_size=8, shuffle=True)
    data_inputs, data_labels = next(iter(data_loader))
    print("Data inputs", data_inputs.shape, "\n", data_inputs)
    print("Data labels", data_labels.shape, "\n", data_labels)
    loss_module = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_dataset = XORDataset(size=50)
    train_data_loader = data.DataLoader(train_dataset, batch_size=16, shuffle=True)
    def train_model(model, optimizer, data_loader, loss_module, num_epochs=5):
        model.train()
        for epoch in range(num_epochs):
            for data_inputs, data_labels in data_loader:
                data_inputs = data_inputs.to(device)
                data_labels = data_labels.to(device)
                preds = model(data_inputs)
                preds = preds.squeeze(dim=1)
                loss = loss_module(preds, data_labels.float())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        print(loss)
    train_model(model, optimizer, train_data_loader, loss_module)
    state_dict = model.state_dict()
    print(state_dict)
    import io
    buffer = io.BytesIO()
    torch.save(state_dict, buffer)
    buffer.seek(0)
    state_dict = torch.load(buffer)
    new_model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
    new_model.load_state_dict(state_dict)
    print("Original model\n", model.state_dict())
    print("\nLoaded model\n", new_model.state_dict())
    test_dataset = XORDataset(size=50)
    test_data_loader = data.DataLoader(test_dataset, batch_size=16, shuffle=False, drop_last=False)
    def eval_model(model, data_loader):
        model.eval()
        true_preds, num_preds = 0., 0.
        with torch.no_grad():
            for data_inputs, data_labels in data_loader:
                preds = model(data_inputs)
                preds = preds.squeeze(dim=1)
                preds = torch.sigmoid(preds)
                pred_labels = (preds >= 0.5).long()
                true_preds += (pred_labels == data_labels).sum()
                num_preds += data_labels.shape[0]
        acc = true_preds / num_preds
        print(f"Accuracy of the model: {100.0*acc:4.2f}%", acc)
    eval_model(model, test_data_loader)
    x1 = torch.arange(-0.5, 1.5, step=0.5)
    x2 = torch.arange(-0.5, 1.5, step=0.5)
    xx1, xx2 = torch.meshgrid(x1, x2, indexing='ij')
    model_inputs = torch.stack([xx1, xx2], dim=-1)
    preds = model(model_inputs)
    preds = torch.sigmoid(preds)
    print(preds.shape, preds[..., 0])


def uva_adversarial_pixelcnn_simclr(torch):
    # phlippe/uvadlc_notebooks tutorial10 Adversarial_Attacks (FGSM, adversarial patch),
    # tutorial12 Autoregressive_Image_Modeling (masked convolutions), tutorial17 SimCLR's loss
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(42)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(4, 5))
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    imgs = torch.rand(3, 3, 8, 8); labels = torch.tensor([0, 3, 4])
    def fast_gradient_sign_method(model, imgs, labels, epsilon=0.02):
        inp_imgs = imgs.clone().requires_grad_()
        preds = model(inp_imgs)
        preds = F.log_softmax(preds, dim=-1)
        loss = -torch.gather(preds, 1, labels.unsqueeze(dim=-1))
        loss.sum().backward()
        noise_grad = torch.sign(inp_imgs.grad)
        fake_imgs = imgs + epsilon * noise_grad
        fake_imgs.detach_()
        return fake_imgs, noise_grad
    adv_imgs, noise_grad = fast_gradient_sign_method(model, imgs, labels)
    with torch.no_grad():
        adv_preds = model(adv_imgs)
    print(noise_grad[0, 0, :2], adv_preds, adv_imgs.requires_grad)
    print(torch.topk(adv_preds.softmax(-1), k=2, dim=-1))
    def place_patch(img, patch):
        for i in range(img.shape[0]):
            h_offset = 2 + i
            w_offset = 5 - i
            img[i, :, h_offset:h_offset+patch.shape[1], w_offset:w_offset+patch.shape[2]] = patch
        return img
    patch = nn.Parameter(torch.zeros(3, 2, 2), requires_grad=True)
    optimizer = torch.optim.SGD([patch], lr=1e-1, momentum=0.8)
    loss_module = nn.CrossEntropyLoss()
    def patch_forward(patch):
        patch = (torch.tanh(patch) + 1) / 2
        patch = (patch - 0.5) / 0.25
        return patch
    for _ in range(3):
        img = place_patch(imgs.clone(), patch_forward(patch))
        img = img.to(torch.float32)
        pred = model(img)
        labels2 = torch.zeros(img.shape[0], dtype=torch.long).fill_(2)
        loss = loss_module(pred, labels2)
        optimizer.zero_grad()
        loss.mean().backward()
        optimizer.step()
        print(loss, patch.grad[0], img.grad_fn)
    # masked convolutions (PixelCNN)
    class MaskedConvolution(nn.Module):
        def __init__(self, c_in, c_out, mask, **kwargs):
            super().__init__()
            kernel_size = (mask.shape[0], mask.shape[1])
            dilation = 1 if "dilation" not in kwargs else kwargs["dilation"]
            padding = tuple([dilation*(kernel_size[i]-1)//2 for i in range(2)])
            self.conv = nn.Conv2d(c_in, c_out, kernel_size, padding=padding, **kwargs)
            self.register_buffer('mask', mask[None, None])
        def forward(self, x):
            self.conv.weight.data *= self.mask
            return self.conv(x)
    class VerticalStackConvolution(MaskedConvolution):
        def __init__(self, c_in, c_out, kernel_size=3, mask_center=False, **kwargs):
            mask = torch.ones(kernel_size, kernel_size)
            mask[kernel_size//2+1:, :] = 0
            if mask_center:
                mask[kernel_size//2, :] = 0
            super().__init__(c_in, c_out, mask, **kwargs)
    class HorizontalStackConvolution(MaskedConvolution):
        def __init__(self, c_in, c_out, kernel_size=3, mask_center=False, **kwargs):
            mask = torch.ones(1, kernel_size)
            mask[0, kernel_size//2+1:] = 0
            if mask_center:
                mask[0, kernel_size//2] = 0
            super().__init__(c_in, c_out, mask, **kwargs)
    inp_img = torch.zeros(1, 1, 7, 7)
    inp_img.requires_grad_()
    def show_center_recep_field(img, out):
        loss = out[0, :, img.shape[2]//2, img.shape[3]//2].sum()
        loss.backward(retain_graph=True)
        img_grads = img.grad.abs()
        img.grad.fill_(0)
        img = img_grads.squeeze().cpu().numpy()
        print((img > 0).astype(int))
    horiz_conv = HorizontalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=True)
    horiz_conv.conv.weight.data.fill_(1)
    horiz_conv.conv.bias.data.fill_(0)
    horiz_img = horiz_conv(inp_img)
    show_center_recep_field(inp_img, horiz_img)
    vert_conv = VerticalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=True)
    vert_conv.conv.weight.data.fill_(1)
    vert_conv.conv.bias.data.fill_(0)
    vert_img = vert_conv(inp_img)
    show_center_recep_field(inp_img, vert_img)
    horiz_noc_conv = HorizontalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=False)
    vert_noc_conv = VerticalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=False)
    horiz_noc_conv.conv.weight.data.fill_(1); horiz_noc_conv.conv.bias.data.fill_(0)
    vert_noc_conv.conv.weight.data.fill_(1); vert_noc_conv.conv.bias.data.fill_(0)
    for l_idx in range(2):
        vert_img = vert_noc_conv(vert_img)
        horiz_img = horiz_noc_conv(horiz_img) + vert_img
    show_center_recep_field(inp_img, horiz_img)
    dil = VerticalStackConvolution(c_in=1, c_out=2, kernel_size=3, dilation=2)
    print(dil(torch.rand(1, 1, 6, 6))[0, 1, 0], dil.conv.weight[0, 0])
    # bits per dimension of a categorical output
    pred = torch.randn(2, 4, 1, 3, 3)
    x = torch.randint(0, 4, (2, 1, 3, 3))
    nll = F.cross_entropy(pred, x, reduction='none')
    bpd = nll.mean(dim=[1, 2, 3]) * torch.log2(torch.exp(torch.ones(1)))
    print(nll.shape, bpd)
    # SimCLR's InfoNCE loss
    feats = torch.randn(6, 4)
    temperature = 0.07
    cos_sim = F.cosine_similarity(feats[:, None, :], feats[None, :, :], dim=-1)
    self_mask = torch.eye(cos_sim.shape[0], dtype=torch.bool, device=cos_sim.device)
    cos_sim.masked_fill_(self_mask, -9e15)
    pos_mask = self_mask.roll(shifts=cos_sim.shape[0]//2, dims=0)
    cos_sim = cos_sim / temperature
    nll = -cos_sim[pos_mask] + torch.logsumexp(cos_sim, dim=-1)
    nll = nll.mean()
    comb_sim = torch.cat([cos_sim[pos_mask][:, None], cos_sim.masked_fill(pos_mask, -9e15)], dim=-1)
    sim_argsort = comb_sim.argsort(dim=-1, descending=True).argmin(dim=-1)
    print(nll, (sim_argsort == 0).float().mean(), (sim_argsort < 5).float().mean(), 1 + sim_argsort.float().mean())
    print(pos_mask.int(), cos_sim[0])



def mrdbourke_workflow_classification(torch):
    # mrdbourke/pytorch-deep-learning 01_pytorch_workflow.ipynb, 02_pytorch_classification.ipynb
    nn = torch.nn
    weight = 0.7; bias = 0.3
    start = 0; end = 1; step = 0.02
    X = torch.arange(start, end, step).unsqueeze(dim=1)
    y = weight * X + bias
    print(X[:10], y[:10], len(X), len(y))
    train_split = int(0.8 * len(X))
    X_train, y_train = X[:train_split], y[:train_split]
    X_test, y_test = X[train_split:], y[train_split:]
    class LinearRegressionModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(torch.randn(1, dtype=torch.float), requires_grad=True)
            self.bias = nn.Parameter(torch.randn(1, dtype=torch.float), requires_grad=True)
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.weights * x + self.bias
    torch.manual_seed(42)
    model_0 = LinearRegressionModel()
    print(list(model_0.parameters()), model_0.state_dict())
    with torch.inference_mode():
        y_preds = model_0(X_test)
    print(f"Number of testing samples: {len(X_test)}", f"Number of predictions made: {len(y_preds)}")
    print(f"Predicted values:\n{y_preds}", y_preds.requires_grad, y_preds.is_inference())
    loss_fn = nn.L1Loss()
    optimizer = torch.optim.SGD(params=model_0.parameters(), lr=0.01)
    torch.manual_seed(42)
    epochs = 100
    train_loss_values = []; test_loss_values = []; epoch_count = []
    for epoch in range(epochs):
        model_0.train()
        y_pred = model_0(X_train)
        loss = loss_fn(y_pred, y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model_0.eval()
        with torch.inference_mode():
            test_pred = model_0(X_test)
            test_loss = loss_fn(test_pred, y_test.type(torch.float))
            if epoch % 20 == 0:
                epoch_count.append(epoch)
                train_loss_values.append(loss.detach().numpy())
                test_loss_values.append(test_loss.detach().numpy())
                print(f"Epoch: {epoch} | MAE Train Loss: {loss} | MAE Test Loss: {test_loss} ")
    print(model_0.state_dict(), train_loss_values[-1], test_loss_values)
    try:
        with torch.inference_mode():
            t = model_0(X_test)
        t.requires_grad_(True)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    try:
        with torch.inference_mode():
            t = torch.ones(2)
        (t * model_0.weights).sum().backward()
        print(model_0.weights.grad)
        t.add_(1)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    class LinearRegressionModelV2(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear_layer = nn.Linear(in_features=1, out_features=1)
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.linear_layer(x)
    torch.manual_seed(42)
    model_1 = LinearRegressionModelV2()
    print(model_1, model_1.state_dict(), next(model_1.parameters()).device)
    # 02 classification: circles replaced by two noisy rings drawn with torch's RNG
    n_samples = 40
    angles = torch.rand(n_samples) * 2 * math.pi
    radius = torch.where(torch.arange(n_samples) % 2 == 0, torch.tensor(1.0), torch.tensor(0.5))
    X = torch.stack([radius * angles.cos(), radius * angles.sin()], dim=1) + 0.03 * torch.randn(n_samples, 2)
    y = (torch.arange(n_samples) % 2 == 0).float()
    X_train, X_test = X[:32], X[32:]; y_train, y_test = y[:32], y[32:]
    class CircleModelV2(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_1 = nn.Linear(in_features=2, out_features=10)
            self.layer_2 = nn.Linear(in_features=10, out_features=10)
            self.layer_3 = nn.Linear(in_features=10, out_features=1)
            self.relu = nn.ReLU()
        def forward(self, x):
            return self.layer_3(self.relu(self.layer_2(self.relu(self.layer_1(x)))))
    model_3 = CircleModelV2()
    print(model_3)
    loss_fn = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model_3.parameters(), lr=0.1)
    def accuracy_fn(y_true, y_pred):
        correct = torch.eq(y_true, y_pred).sum().item()
        acc = (correct / len(y_pred)) * 100
        return acc
    torch.manual_seed(42)
    for epoch in range(30):
        y_logits = model_3(X_train).squeeze()
        y_pred = torch.round(torch.sigmoid(y_logits))
        loss = loss_fn(y_logits, y_train)
        acc = accuracy_fn(y_true=y_train, y_pred=y_pred)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model_3.eval()
        with torch.inference_mode():
            test_logits = model_3(X_test).squeeze()
            test_pred = torch.round(torch.sigmoid(test_logits))
            test_loss = loss_fn(test_logits, y_test)
            test_acc = accuracy_fn(y_true=y_test, y_pred=test_pred)
        if epoch % 10 == 0:
            print(f"Epoch: {epoch} | Loss: {loss:.5f}, Accuracy: {acc:.2f}% | Test Loss: {test_loss:.5f}, Test Accuracy: {test_acc:.2f}%")
    A = torch.arange(-10, 10, 1, dtype=torch.float32)
    def relu(x):
        return torch.maximum(torch.tensor(0), x)
    def sigmoid(x):
        return 1 / (1 + torch.exp(-x))
    print(relu(A), sigmoid(A), torch.sigmoid(A) == sigmoid(A))
    # multi-class
    NUM_CLASSES = 4
    X_blob = torch.randn(40, 2) + torch.randint(0, 4, (40, 1)) * 2.0
    y_blob = torch.randint(0, NUM_CLASSES, (40,)).type(torch.LongTensor)
    class BlobModel(nn.Module):
        def __init__(self, input_features, output_features, hidden_units=8):
            super().__init__()
            self.linear_layer_stack = nn.Sequential(
                nn.Linear(in_features=input_features, out_features=hidden_units), nn.ReLU(),
                nn.Linear(in_features=hidden_units, out_features=hidden_units), nn.ReLU(),
                nn.Linear(in_features=hidden_units, out_features=output_features))
        def forward(self, x):
            return self.linear_layer_stack(x)
    model_4 = BlobModel(input_features=2, output_features=NUM_CLASSES, hidden_units=8)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model_4.parameters(), lr=0.1)
    y_logits = model_4(X_blob[:5])
    y_pred_probs = torch.softmax(y_logits, dim=1)
    print(y_logits, y_pred_probs, torch.sum(y_pred_probs[0]), torch.argmax(y_pred_probs[0]))
    for epoch in range(20):
        model_4.train()
        y_logits = model_4(X_blob)
        y_pred = torch.softmax(y_logits, dim=1).argmax(dim=1)
        loss = loss_fn(y_logits, y_blob)
        acc = accuracy_fn(y_true=y_blob, y_pred=y_pred)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(f"Loss: {loss:.5f}, Acc: {acc:.2f}%", y_blob.type(), X_blob.type())


def raschka_llms_from_scratch(torch):
    # rasbt/LLMs-from-scratch ch03 (attention), ch04 (GPT model), ch05 (generation, training)
    nn = torch.nn
    inputs = torch.tensor(
        [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
         [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
    query = inputs[1]
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    print(attn_scores_2)
    attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()
    print("Attention weights:", attn_weights_2_tmp, "Sum:", attn_weights_2_tmp.sum())
    def softmax_naive(x):
        return torch.exp(x) / torch.exp(x).sum(dim=0)
    print(softmax_naive(attn_scores_2), torch.softmax(attn_scores_2, dim=0))
    context_vec_2 = torch.zeros(query.shape)
    for i, x_i in enumerate(inputs):
        context_vec_2 += torch.softmax(attn_scores_2, dim=0)[i] * x_i
    print(context_vec_2)
    attn_scores = inputs @ inputs.T
    attn_weights = torch.softmax(attn_scores, dim=-1)
    print(attn_weights, attn_weights.sum(dim=-1), attn_weights @ inputs)
    torch.manual_seed(123)
    d_in, d_out = 3, 2
    W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    keys = inputs @ W_key
    query_2 = inputs[1] @ W_query
    attn_scores_2 = query_2 @ keys.T
    d_k = keys.shape[-1]
    attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
    print(keys.shape, attn_weights_2, attn_weights_2 @ (inputs @ W_value))
    class CausalAttention(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
            super().__init__()
            self.d_out = d_out
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))
        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x)
            attn_scores = queries @ keys.transpose(1, 2)
            attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
            attn_weights = self.dropout(attn_weights)
            return attn_weights @ values
    batch = torch.stack((inputs, inputs), dim=0)
    torch.manual_seed(123)
    ca = CausalAttention(d_in, d_out, batch.shape[1], 0.0)
    context_vecs = ca(batch)
    print(context_vecs, "context_vecs.shape:", context_vecs.shape)
    torch.manual_seed(123)
    dropout = torch.nn.Dropout(0.5)
    example = torch.ones(6, 6)
    print(dropout(example))
    class MultiHeadAttention(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
            super().__init__()
            assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"
            self.d_out = d_out
            self.num_heads = num_heads
            self.head_dim = d_out // num_heads
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.out_proj = nn.Linear(d_out, d_out)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x)
            keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
            values = values.view(b, num_tokens, self.num_heads, self.head_dim)
            queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
            keys = keys.transpose(1, 2); queries = queries.transpose(1, 2); values = values.transpose(1, 2)
            attn_scores = queries @ keys.transpose(2, 3)
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
            attn_scores.masked_fill_(mask_bool, -torch.inf)
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
            attn_weights = self.dropout(attn_weights)
            context_vec = (attn_weights @ values).transpose(1, 2)
            context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
            context_vec = self.out_proj(context_vec)
            return context_vec
    class LayerNorm(nn.Module):
        def __init__(self, emb_dim):
            super().__init__()
            self.eps = 1e-5
            self.scale = nn.Parameter(torch.ones(emb_dim))
            self.shift = nn.Parameter(torch.zeros(emb_dim))
        def forward(self, x):
            mean = x.mean(dim=-1, keepdim=True)
            var = x.var(dim=-1, keepdim=True, unbiased=False)
            norm_x = (x - mean) / torch.sqrt(var + self.eps)
            return self.scale * norm_x + self.shift
    class GELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))
    class FeedForward(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                        nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
        def forward(self, x):
            return self.layers(x)
    class TransformerBlock(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
                                          num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
            self.ff = FeedForward(cfg)
            self.norm1 = LayerNorm(cfg["emb_dim"]); self.norm2 = LayerNorm(cfg["emb_dim"])
            self.drop_shortcut = nn.Dropout(cfg["drop_rate"])
        def forward(self, x):
            shortcut = x
            x = self.norm1(x); x = self.att(x); x = self.drop_shortcut(x)
            x = x + shortcut
            shortcut = x
            x = self.norm2(x); x = self.ff(x); x = self.drop_shortcut(x)
            x = x + shortcut
            return x
    class GPTModel(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
            self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
            self.drop_emb = nn.Dropout(cfg["drop_rate"])
            self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
            self.final_norm = LayerNorm(cfg["emb_dim"])
            self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)
        def forward(self, in_idx):
            batch_size, seq_len = in_idx.shape
            tok_embeds = self.tok_emb(in_idx)
            pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
            x = tok_embeds + pos_embeds
            x = self.drop_emb(x)
            x = self.trf_blocks(x)
            x = self.final_norm(x)
            logits = self.out_head(x)
            return logits
    GPT_CONFIG = {"vocab_size": 50, "context_length": 8, "emb_dim": 12, "n_heads": 3, "n_layers": 2,
                  "drop_rate": 0.1, "qkv_bias": False}
    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG)
    batch = torch.randint(0, 50, (2, 4))
    out = model(batch)
    print("Input batch:\n", batch, "\nOutput shape:", out.shape, out[0, 0, :5])
    total_params = sum(p.numel() for p in model.parameters())
    print(f"Total number of parameters: {total_params:,}")
    total_size_bytes = total_params * 4
    print(f"Total size of the model: {total_size_bytes / (1024 * 1024):.2f} MB")
    def generate_text_simple(model, idx, max_new_tokens, context_size):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -context_size:]
            with torch.no_grad():
                logits = model(idx_cond)
            logits = logits[:, -1, :]
            probas = torch.softmax(logits, dim=-1)
            idx_next = torch.argmax(probas, dim=-1, keepdim=True)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx
    model.eval()
    out = generate_text_simple(model=model, idx=torch.tensor([[3, 7, 1]]), max_new_tokens=6, context_size=8)
    print("Output:", out, "Output length:", len(out[0]))
    # ch05
    def calc_loss_batch(input_batch, target_batch, model, device):
        logits = model(input_batch)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
        return loss
    inputs = torch.randint(0, 50, (2, 3)); targets = torch.randint(0, 50, (2, 3))
    with torch.no_grad():
        logits = model(inputs)
    probas = torch.softmax(logits, dim=-1)
    token_ids = torch.argmax(probas, dim=-1, keepdim=True)
    print(probas.shape, token_ids)
    text_idx = 0
    target_probas_1 = probas[text_idx, [0, 1, 2], targets[text_idx]]
    print("Text 1:", target_probas_1)
    log_probas = torch.log(torch.cat((target_probas_1, probas[1, [0, 1, 2], targets[1]])))
    avg_log_probas = torch.mean(log_probas)
    print(log_probas, avg_log_probas, avg_log_probas * -1)
    logits_flat = logits.flatten(0, 1); targets_flat = targets.flatten()
    loss = torch.nn.functional.cross_entropy(logits_flat, targets_flat)
    print(loss, torch.exp(loss))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
    model.train()
    for step in range(3):
        optimizer.zero_grad()
        loss = calc_loss_batch(inputs, targets, model, None)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        print(step, loss.item())
    next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
    probas = torch.softmax(next_token_logits, dim=0)
    torch.manual_seed(123)
    next_token_id = torch.multinomial(probas, num_samples=1).item()
    def print_sampled_tokens(probas):
        torch.manual_seed(123)
        sample = [torch.multinomial(probas, num_samples=1).item() for i in range(1_000)]
        sampled_ids = torch.bincount(torch.tensor(sample), minlength=len(probas))
        print(sampled_ids)
    print_sampled_tokens(probas)
    def softmax_with_temperature(logits, temperature):
        scaled_logits = logits / temperature
        return torch.softmax(scaled_logits, dim=0)
    print([softmax_with_temperature(next_token_logits, T) for T in [1, 0.1, 5]])
    top_k = 3
    top_logits, top_pos = torch.topk(next_token_logits, top_k)
    new_logits = torch.where(condition=next_token_logits < top_logits[-1], input=torch.tensor(float("-inf")), other=next_token_logits)
    print(top_logits, top_pos, new_logits, torch.softmax(new_logits, dim=0))
    def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -context_size:]
            with torch.no_grad():
                logits = model(idx_cond)
            logits = logits[:, -1, :]
            if top_k is not None:
                top_logits, _ = torch.topk(logits, top_k)
                min_val = top_logits[:, -1]
                logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
            if temperature > 0.0:
                logits = logits / temperature
                probs = torch.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                idx_next = torch.argmax(logits, dim=-1, keepdim=True)
            if idx_next == eos_id:
                break
            idx = torch.cat((idx, idx_next), dim=1)
        return idx
    torch.manual_seed(123)
    model.eval()
    print(generate(model, torch.tensor([[3, 7, 1]]), 5, 8, top_k=5, temperature=1.4))
    # the cosine schedule with warmup of appendix D
    peak_lr = 0.001; initial_lr = 0.0001; min_lr = 0.1 * initial_lr
    total_training_steps = 12; warmup_steps = 3
    lr_increment = (peak_lr - initial_lr) / warmup_steps
    track_lrs = []
    for global_step in range(total_training_steps):
        if global_step < warmup_steps:
            lr = initial_lr + global_step * lr_increment
        else:
            progress = ((global_step - warmup_steps) / (total_training_steps - warmup_steps))
            lr = min_lr + (peak_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * progress))
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        track_lrs.append(optimizer.param_groups[0]["lr"])
    print(track_lrs)
    state = {"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}
    print(sorted(state["optimizer_state_dict"]["state"][0].keys()), state["optimizer_state_dict"]["param_groups"][0]["weight_decay"])


def uva_gnn(torch):
    # phlippe/uvadlc_notebooks tutorial7 GNN_overview.ipynb (GCNLayer, GATLayer)
    nn = torch.nn; F = torch.nn.functional
    class GCNLayer(nn.Module):
        def __init__(self, c_in, c_out):
            super().__init__()
            self.projection = nn.Linear(c_in, c_out)
        def forward(self, node_feats, adj_matrix):
            num_neighbours = adj_matrix.sum(dim=-1, keepdims=True)
            node_feats = self.projection(node_feats)
            node_feats = torch.bmm(adj_matrix, node_feats)
            node_feats = node_feats / num_neighbours
            return node_feats
    node_feats = torch.arange(8, dtype=torch.float32).view(1, 4, 2)
    adj_matrix = torch.Tensor([[[1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 1], [0, 1, 1, 1]]])
    print("Node features:\n", node_feats)
    print("\nAdjacency matrix:\n", adj_matrix)
    layer = GCNLayer(c_in=2, c_out=2)
    layer.projection.weight.data = torch.Tensor([[1., 0.], [0., 1.]])
    layer.projection.bias.data = torch.Tensor([0., 0.])
    with torch.no_grad():
        out_feats = layer(node_feats, adj_matrix)
    print("Adjacency matrix", adj_matrix)
    print("Input features", node_feats)
    print("Output features", out_feats)
    class GATLayer(nn.Module):
        def __init__(self, c_in, c_out, num_heads=1, concat_heads=True, alpha=0.2):
            super().__init__()
            self.num_heads = num_heads
            self.concat_heads = concat_heads
            if self.concat_heads:
                assert c_out % num_heads == 0, "Number of output features must be a multiple of the count of heads."
                c_out = c_out // num_heads
            self.projection = nn.Linear(c_in, c_out * num_heads)
            self.a = nn.Parameter(torch.Tensor(num_heads, 2 * c_out))
            self.leakyrelu = nn.LeakyReLU(alpha)
            nn.init.xavier_uniform_(self.projection.weight.data, gain=1.414)
            nn.init.xavier_uniform_(self.a.data, gain=1.414)
        def forward(self, node_feats, adj_matrix, print_attn_probs=False):
            batch_size, num_nodes = node_feats.size(0), node_feats.size(1)
            node_feats = self.projection(node_feats)
            node_feats = node_feats.view(batch_size, num_nodes, self.num_heads, -1)
            edges = adj_matrix.nonzero(as_tuple=False)
            node_feats_flat = node_feats.view(batch_size * num_nodes, self.num_heads, -1)
            edge_indices_row = edges[:, 0] * num_nodes + edges[:, 1]
            edge_indices_col = edges[:, 0] * num_nodes + edges[:, 2]
            a_input = torch.cat([
                torch.index_select(input=node_feats_flat, index=edge_indices_row, dim=0),
                torch.index_select(input=node_feats_flat, index=edge_indices_col, dim=0)], dim=-1)
            attn_logits = torch.einsum('bhc,hc->bh', a_input, self.a)
            attn_logits = self.leakyrelu(attn_logits)
            attn_matrix = attn_logits.new_zeros(adj_matrix.shape + (self.num_heads,)).fill_(-9e15)
            attn_matrix[adj_matrix[..., None].repeat(1, 1, 1, self.num_heads) == 1] = attn_logits.reshape(-1)
            attn_probs = F.softmax(attn_matrix, dim=2)
            if print_attn_probs:
                print("Attention probs\n", attn_probs.permute(0, 3, 1, 2))
            node_feats = torch.einsum('bijh,bjhc->bihc', attn_probs, node_feats)
            if self.concat_heads:
                node_feats = node_feats.reshape(batch_size, num_nodes, -1)
            else:
                node_feats = node_feats.mean(dim=2)
            return node_feats
    layer = GATLayer(2, 2, num_heads=2)
    layer.projection.weight.data = torch.Tensor([[1., 0.], [0., 1.]])
    layer.projection.bias.data = torch.Tensor([0., 0.])
    layer.a.data = torch.Tensor([[-0.2, 0.3], [0.1, -0.1]])
    with torch.no_grad():
        out_feats = layer(node_feats, adj_matrix, print_attn_probs=True)
    print("Adjacency matrix", adj_matrix)
    print("Input features", node_feats)
    print("Output features", out_feats)
    torch.manual_seed(0)
    layer = GATLayer(2, 4, num_heads=2, concat_heads=False)
    x = torch.randn(2, 4, 2, requires_grad=True)
    adj = (torch.rand(2, 4, 4) > 0.4).float() + torch.eye(4)
    adj = (adj > 0).float()
    out = layer(x, adj)
    out.pow(2).sum().backward()
    print(out, x.grad, layer.a.grad, out.grad_fn)
    # graph-level pooling with a scatter of node features per graph
    batch_idx = torch.tensor([0, 0, 1, 1, 1, 2])
    feats = torch.randn(6, 3, requires_grad=True)
    pooled = torch.zeros(3, 3).index_add(0, batch_idx, feats) / torch.bincount(batch_idx).unsqueeze(1)
    pooled.sum().backward()
    print(pooled, feats.grad, pooled.grad_fn)
    print(torch.zeros(3, 3).scatter_reduce(0, batch_idx[:, None].expand(-1, 3), feats.detach(), reduce="amax", include_self=False))


def cs231n_network_visualization(torch):
    # cs231n assignment3 Network_Visualization.ipynb (saliency maps, fooling images, class
    # visualization with jitter), on a tiny random CNN
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(4, 5))
    for param in model.parameters():
        param.requires_grad = False
    X = torch.randn(3, 3, 8, 8); y = torch.tensor([1, 4, 2])
    def compute_saliency_maps(X, y, model):
        model.eval()
        X.requires_grad_()
        saliency = None
        scores = model(X)
        scores = scores.gather(1, y.view(-1, 1)).squeeze()
        scores.backward(torch.ones(scores.shape))
        saliency, _ = torch.max(X.grad.abs(), dim=1)
        return saliency
    saliency = compute_saliency_maps(X, y, model)
    print(saliency.shape, saliency[0, :2])
    def make_fooling_image(X, target_y, model):
        X_fooling = X.clone()
        X_fooling = X_fooling.requires_grad_()
        learning_rate = 1
        for i in range(10):
            scores = model(X_fooling)
            _, idx = scores.max(1)
            if idx.item() == target_y:
                break
            score = scores[0, target_y]
            score.backward()
            grad = X_fooling.grad.data
            X_fooling.data += learning_rate * (grad / grad.norm())
            X_fooling.grad.zero_()
        return X_fooling, i
    X_fooling, steps = make_fooling_image(X[:1].detach(), 3, model)
    print(steps, model(X_fooling).argmax(), (X_fooling - X[:1]).abs().max())
    def jitter(X, ox, oy):
        if ox != 0:
            left = X[:, :, :, :-ox]
            right = X[:, :, :, -ox:]
            X = torch.cat([right, left], dim=3)
        if oy != 0:
            top = X[:, :, :-oy]
            bottom = X[:, :, -oy:]
            X = torch.cat([bottom, top], dim=2)
        return X
    img = torch.randn(1, 3, 8, 8).mul_(1.0).requires_grad_()
    import random
    random.seed(0)
    l2_reg = 1e-3; learning_rate = 25; max_jitter = 2
    for t in range(5):
        ox, oy = random.randint(0, max_jitter), random.randint(0, max_jitter)
        img.data.copy_(jitter(img.data, ox, oy))
        scores = model(img)
        target_score = scores[0, 2] - l2_reg * img.norm() ** 2
        target_score.backward()
        img.data += learning_rate * img.grad.data / img.grad.data.norm()
        img.grad.data.zero_()
        img.data.copy_(jitter(img.data, -ox, -oy))
        for c in range(3):
            lo = float(-0.5 / 0.2)
            hi = float((1.0 - 0.5) / 0.2)
            img.data[:, c].clamp_(min=lo, max=hi)
    print(img[0, 0, :2], torch.roll(img.detach(), shifts=(1, 2), dims=(2, 3))[0, 0, 0])


def pt_autograd_mechanics(torch):
    # pytorch docs notes/autograd.rst (grad modes, in-place correctness checks, saved tensors)
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    print(x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self)
    y = x.exp()
    print(y.equal(y.grad_fn._saved_result), y is y.grad_fn._saved_result)
    x = torch.ones(5, requires_grad=True)
    with torch.no_grad():
        y = x * 2
    print(y.requires_grad)
    with torch.inference_mode():
        z = x * 2
    print(z.requires_grad, z.is_inference(), torch.is_inference_mode_enabled())
    @torch.inference_mode()
    def f(x):
        return x * 3
    print(f(x).is_inference(), f(x).requires_grad)
    with torch.set_grad_enabled(False):
        print((x * 2).requires_grad, torch.is_grad_enabled())
    torch.set_grad_enabled(True)
    with torch.enable_grad():
        print((x * 2).requires_grad)
    lin = torch.nn.Linear(2, 2)
    lin.requires_grad_(False)
    print(lin.weight.requires_grad)
    try:
        z.add_(1)
        print(z)
        z.requires_grad_()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    try:
        (z * x).sum().backward()
        print(x.grad)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    a = torch.randn(3, requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    try:
        b.sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    a = torch.randn(3, requires_grad=True)
    b = a.exp()
    c = b * 2
    b.add_(1)
    try:
        b.sum().backward()
        print(a.grad)
        b2 = a.exp(); b2.add_(1); (b2 * 3).sum().backward()
        print(a.grad)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    x = torch.randn(3, requires_grad=True)
    y = x.sin()
    z = y.clone()
    print(y.grad_fn, z.grad_fn, y._version, torch.autograd.grad(z.sum(), x, retain_graph=True))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = x[0]
    w = x.detach()
    w.zero_()
    try:
        (v * 2).backward()
        print(x.grad, v._version, x._version)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    x = torch.randn(2, 2, requires_grad=True)
    y = x.clone()
    y[0, 0] = 5
    y.sum().backward()
    print(x.grad, y.grad_fn, y._version)
    out = torch.zeros(3)
    a = torch.ones(3, requires_grad=True)
    try:
        torch.mul(a, 2, out=out)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    with torch.no_grad():
        torch.mul(a, 2, out=out)
    print(out, out.requires_grad)
    print(torch.autograd.grad((a * a).sum(), a, create_graph=True)[0].grad_fn)
    # multithreading (each thread its own backward)
    import threading
    results = []
    def train_fn():
        x = torch.ones(5, 5, requires_grad=True)
        y = (x + 3) * (x + 4) * 0.5
        y.sum().backward()
        results.append(x.grad.sum().item())
    threads = [threading.Thread(target=train_fn) for _ in range(3)]
    for p in threads: p.start()
    for p in threads: p.join()
    print(results)
    # complex autograd
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (z.abs() ** 2).sum().backward()
    print(z.grad, z.grad.dtype)
    # saved-tensor hooks API objects
    x = torch.randn(3, requires_grad=True)
    y = x.pow(2)
    print(type(y.grad_fn).__name__, y.grad_fn.next_functions, [n for n in dir(y.grad_fn) if n.startswith('_saved')])


def d2l_gaussian_process(torch):
    # d2l-en chapter_gaussian-processes/gp-inference.md (from-scratch posterior, marginal
    # likelihood with Cholesky factors; scipy's optimizer replaced by torch's Adam)
    torch.manual_seed(0)
    def data_maker1(x, sig):
        return torch.sin(x) + 0.5 * torch.sin(4 * x) + torch.randn(x.shape, dtype=x.dtype) * sig
    sig = 0.25
    train_x, test_x = torch.linspace(0, 5, 12, dtype=torch.float64), torch.linspace(0, 5, 20, dtype=torch.float64)
    train_y, test_y = data_maker1(train_x, sig=sig), data_maker1(test_x, sig=0.)
    def rbfkernel(x1, x2, ls=4.):
        dist = torch.cdist(x1[:, None], x2[:, None], p=2) ** 2
        return torch.exp(-(1. / ls / 2) * dist)
    mean = torch.zeros(test_x.shape[0], dtype=torch.float64)
    cov = rbfkernel(test_x, test_x, ls=0.2)
    L = torch.linalg.cholesky(cov + 1e-6 * torch.eye(20, dtype=torch.float64))
    prior_samples = mean + (L @ torch.randn(20, 3, dtype=torch.float64)).T
    print(prior_samples[:, :4])
    ell_est = torch.tensor(0.4, dtype=torch.float64, requires_grad=True)
    post_sig_est = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    def neg_MLL(ell, sig):
        K = rbfkernel(train_x, train_x, ls=ell)
        kernel_term = -0.5 * train_y @ torch.linalg.solve(K + sig ** 2 * torch.eye(train_x.shape[0], dtype=torch.float64), train_y)
        logdet = -0.5 * torch.logdet(K + sig ** 2 * torch.eye(train_x.shape[0], dtype=torch.float64))
        const = -train_x.shape[0] / 2. * math.log(2 * math.pi)
        return -(kernel_term + logdet + const)
    opt = torch.optim.Adam([ell_est, post_sig_est], lr=0.05)
    for step in range(5):
        opt.zero_grad()
        loss = neg_MLL(ell_est, post_sig_est)
        loss.backward()
        opt.step()
        print(step, loss.item(), ell_est.item(), post_sig_est.item())
    ell, post_sig = ell_est.detach(), post_sig_est.detach()
    K_x_xstar = rbfkernel(train_x, test_x, ls=ell)
    K_x_x = rbfkernel(train_x, train_x, ls=ell)
    K_xstar_xstar = rbfkernel(test_x, test_x, ls=ell)
    post_mean = K_x_xstar.T @ torch.linalg.inv(K_x_x + post_sig ** 2 * torch.eye(train_x.shape[0], dtype=torch.float64)) @ train_y
    post_cov = K_xstar_xstar - K_x_xstar.T @ torch.linalg.inv(K_x_x + post_sig ** 2 * torch.eye(train_x.shape[0], dtype=torch.float64)) @ K_x_xstar
    lw_bd = post_mean - 2 * torch.sqrt(torch.diag(post_cov))
    up_bd = post_mean + 2 * torch.sqrt(torch.diag(post_cov))
    print(post_mean[:5], lw_bd[:3], up_bd[:3])
    # the same posterior through a Cholesky factor (float32 too)
    for dtype in (torch.float32, torch.float64):
        K = (K_x_x + post_sig ** 2 * torch.eye(12, dtype=torch.float64)).to(dtype)
        Lk = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(train_y.to(dtype)[:, None], Lk)
        v = torch.linalg.solve_triangular(Lk, K_x_xstar.to(dtype), upper=False)
        print(dtype, (K_x_xstar.to(dtype).T @ alpha)[:4, 0], (K_xstar_xstar.to(dtype) - v.T @ v).diagonal()[:3],
              2 * Lk.diagonal().log().sum(), torch.logdet(K), torch.cholesky_inverse(Lk)[0, :3])
    mvn = torch.distributions.MultivariateNormal(torch.zeros(12, dtype=torch.float64), covariance_matrix=K_x_x + 0.1 * torch.eye(12, dtype=torch.float64))
    print(mvn.log_prob(train_y), mvn.entropy(), mvn.scale_tril[3, :3])

SNIPPETS = [makemore_wavenet, mingpt_pieces, pt_nn_tutorial, pt_double_backward, pt_forward_ad,
            pt_saved_tensor_hooks, pt_ntk, uva_activations, uva_init_optim, uva_cnn_blocks,
            uva_mha, uva_flows_ebm, cs231n_pytorch, pt_mnist_rnn, fastai_matmul_backprop,
            pt_extending_func, pt_fuse_conv_bn, pt_parametrizations, pt_autograd_functional,
            uva_intro, uva_adversarial_pixelcnn_simclr, mrdbourke_workflow_classification,
            raschka_llms_from_scratch, uva_gnn, cs231n_network_visualization,
            pt_autograd_mechanics, d2l_gaussian_process]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet):
    try:
        assert first_difference(snippet, lg, torch) is None
    finally:  # (a snippet that sets the default dtype and fails before setting it back)
        lg.set_default_dtype(lg.float32)
        torch.set_default_dtype(torch.float32)


# -- defects found, each swept over its class of inputs -----------------------------------------


def _outcome(function):
    """The call's result, or its exception's type and first line."""
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return type(error).__name__, str(error).splitlines()[0]


def _same_outcomes(got, want) -> bool:
    """Lists of arrays (same bits, same zero signs) and other values, or the same error."""
    if isinstance(want, tuple) and len(want) == 2 and isinstance(want[0], str):
        return got == want
    if isinstance(got, tuple) and isinstance(got[0], str) or len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if isinstance(b, np.ndarray):
            if not (a.shape == b.shape and a.dtype == b.dtype
                    and np.array_equal(a, b, equal_nan=True)
                    and np.array_equal(np.signbit(a), np.signbit(b))):
                return False
        elif a != b:
            return False
    return True


@pytest.fixture
def _mkl_on_one_thread():
    from tests.ops._mkl_support import one_thread_and_defaults, require_mkl

    fixture = one_thread_and_defaults(torch)
    next(fixture)
    try:
        require_mkl()
        yield
    finally:
        next(fixture, None)


def _convolutions(m, dtype_name, case, needs, create_graph):
    """A convolution's output, its inputs' gradients (under a random weighting) and strides."""
    spatial, n, c, o, size, kernel, stride, padding, groups, bias, layout = case
    d = getattr(m, dtype_name)
    m.manual_seed(7)
    x = m.randn(n, c, *([size] * spatial), dtype=d)
    if layout == "strided":  # every other position of a wider input
        x = m.randn(n, c, *([size] * (spatial - 1)), 2 * size, dtype=d)[..., ::2]
    elif layout == "transposed":
        x = m.randn(c, n, *([size] * spatial), dtype=d).transpose(0, 1)
    w = m.randn(o, c // groups, *([kernel] * spatial), dtype=d)
    b = m.randn(o, dtype=d) if bias else None
    leaves = [t for t in (x, w, b) if t is not None]
    for t, need in zip(leaves, needs):
        t.requires_grad_(need)
    conv = m.nn.functional.conv1d if spatial == 1 else m.nn.functional.conv2d
    y = conv(x, w, b, stride=stride, padding=padding, groups=groups)
    outs = [y.detach().numpy().copy(), tuple(y.stride())]
    wanted = [t for t in leaves if t.requires_grad]
    if wanted:
        g = m.randn(*y.shape, dtype=d)
        grads = m.autograd.grad(y, wanted, g, create_graph=create_graph)
        outs += [gr.detach().numpy().copy() for gr in grads]
        outs += [tuple(gr.stride()) for gr in grads]
    return outs


# spatial dims, batch, in and out channels, size, kernel, stride, padding, groups, bias, layout
_SLOW_CONVOLUTIONS = [
    (2, 4, 4, 4, 6, 3, 1, 0, 1, True, "contiguous"),
    (2, 1, 3, 5, 7, 3, 2, 1, 1, True, "contiguous"),
    (2, 2, 4, 6, 9, 2, 3, 1, 2, False, "contiguous"),
    (2, 3, 2, 3, 5, 1, 1, 0, 1, True, "strided"),
    (2, 2, 3, 4, 6, 3, 1, 2, 1, True, "transposed"),
    (2, 0, 3, 4, 6, 3, 1, 1, 1, True, "contiguous"),
    (2, 1, 16, 8, 8, 3, 1, 1, 1, True, "contiguous"),
    (2, 1, 2, 3, 5, 1, 1, 1, 1, False, "strided"),
    (2, 2, 3, 1, 5, 4, 1, 0, 1, True, "contiguous"),
    (1, 2, 3, 4, 9, 3, 1, 1, 1, True, "contiguous"),
    (1, 1, 4, 2, 7, 2, 2, 0, 2, False, "strided"),
    (1, 1, 3, 4, 8, 3, 1, 2, 1, True, "contiguous"),
]


def test_slow_convolution_as_torch(_mkl_on_one_thread):
    # the fused conv + batch norm tutorial's float64 convolutions: torch's slow kernel (im2col
    # in channel-major order, one MKL gemm per sample; Note: torch's slow convolution,
    # ops/_slow_conv.py), where NumPy's matmul over channels-last columns gave other last bits
    # on 78% of the outputs; also float32 convolutions of one sample that oneDNN does not take
    for dtype_name, case, create_graph in itertools.product(
            ["float64", "float32"], _SLOW_CONVOLUTIONS, [False, True]):
        if dtype_name == "float32" and (case[1] > 1 or case[8] > 1):
            continue  # (oneDNN's: its gradients' last bits are not torch's, README)
        for needs in itertools.product([False, True], repeat=3 if case[9] else 2):
            got = _outcome(lambda: _convolutions(lg, dtype_name, case, needs, create_graph))
            want = _outcome(lambda: _convolutions(torch, dtype_name, case, needs, create_graph))
            assert _same_outcomes(got, want), (dtype_name, case, needs, create_graph)


def _solves(m, dtype_name, a_shape, b_shape, left, transposed, needs):
    """linalg.solve's and linalg.inv's results, strides and gradients, or the error."""
    d = getattr(m, dtype_name)
    m.manual_seed(5)
    a = m.randn(*a_shape, dtype=d)
    if transposed:
        a = a.mT.contiguous().mT
    b = m.randn(*b_shape, dtype=d)
    a.requires_grad_(needs[0])
    b.requires_grad_(needs[1])
    x = m.linalg.solve(a, b, left=left)
    inverse = m.linalg.inv(a)
    outs = [x.detach().numpy().copy(), tuple(x.stride()), inverse.detach().numpy().copy(),
            tuple(inverse.stride())]
    wanted = [t for t in (a, b) if t.requires_grad]
    if wanted:
        weights = m.randn(*x.shape, dtype=d), m.randn(*inverse.shape, dtype=d)
        loss = (x * weights[0]).sum() + (inverse * weights[1]).sum()
        outs += [g.numpy().copy() for g in m.autograd.grad(loss, wanted)]
    return outs


def test_solve_and_inverse_as_torch(_mkl_on_one_thread):
    # the parametrizations tutorial's Cayley map: linalg.solve is torch's getrf + getrs calls on
    # column-major copies (Note: torch's LU solve, ops/_lapack.py), where NumPy's LAPACK gave
    # other last bits on 60-100% of the elements; linalg.inv is solve(A, I); batched matrices
    # up to 32x32, vectors, X A = B, broadcast batches, empty and singular ones, and a
    # solution's strides where a dim has size 1 or 0
    shapes = [((3, 3), (3,), True), ((3, 3), (3, 2), True), ((3, 3), (2, 3), False),
              ((1, 1), (1,), True), ((2, 4, 4), (4,), True), ((2, 4, 4), (2, 4, 3), True),
              ((5, 5), (1, 5, 2), True), ((2, 32, 32), (2, 32, 1), True),
              ((33, 33), (33, 3), True), ((3, 3), (3, 0), True), ((0, 3, 3), (0, 3, 2), True),
              ((2, 6, 6), (6, 1), False)]
    for dtype_name, (a_shape, b_shape, left), transposed, needs in itertools.product(
            ["float32", "float64"], shapes, [False, True],
            itertools.product([False, True], repeat=2)):
        args = (dtype_name, a_shape, b_shape, left, transposed, needs)
        got, want = _outcome(lambda: _solves(lg, *args)), _outcome(lambda: _solves(torch, *args))
        assert _same_outcomes(got, want), args
    for m_shape in [(2, 2), (3, 2, 2)]:  # singular: torch's error for solve and for inv
        for name in ["solve", "inv"]:
            def call(m):
                a = m.zeros(*m_shape)
                return (m.linalg.solve(a, m.ones(2)) if name == "solve" else m.linalg.inv(a))
            assert _outcome(lambda: call(lg)) == _outcome(lambda: call(torch))


class _CosineWarmup:
    """uvadlc_notebooks tutorial6's scheduler, subclassing torch's old base class name."""

    @staticmethod
    def make(m):
        class CosineWarmupScheduler(m.optim.lr_scheduler._LRScheduler):
            def __init__(self, optimizer, warmup, max_iters):
                self.warmup = warmup
                self.max_num_iters = max_iters
                super().__init__(optimizer)

            def get_lr(self):
                factor = 0.5 * (1 + math.cos(math.pi * self.last_epoch / self.max_num_iters))
                if self.last_epoch <= self.warmup:
                    factor *= self.last_epoch * 1.0 / self.warmup
                return [base_lr * factor for base_lr in self.base_lrs]
        return CosineWarmupScheduler


def _warmup_rates(m, warmup, max_iters, steps, groups):
    scheduler_class = _CosineWarmup.make(m)
    params = [m.nn.Parameter(m.zeros(2)) for _ in range(groups)]
    optimizer = m.optim.Adam([{"params": [p], "lr": 1e-3 * (i + 1)}
                              for i, p in enumerate(params)])
    scheduler = scheduler_class(optimizer, warmup, max_iters)
    rates = [scheduler.get_last_lr()]
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr())
    base = m.optim.lr_scheduler._LRScheduler
    return (rates, sorted(scheduler.state_dict()), base.__name__, base.__mro__[1].__name__,
            isinstance(scheduler, m.optim.lr_scheduler.LRScheduler))


def test_old_scheduler_base_class_as_torch():
    # torch.optim.lr_scheduler._LRScheduler (torch's subclass of LRScheduler kept for old
    # code): a custom scheduler deriving from it steps as torch's
    for warmup, max_iters, steps, groups in itertools.product([1, 3], [5, 20], [0, 7], [1, 2]):
        assert _warmup_rates(lg, warmup, max_iters, steps, groups) == \
            _warmup_rates(torch, warmup, max_iters, steps, groups)


def _factorisations(m, dtype_name, shape, layout, singular, needs_grad):
    """det, slogdet, logdet, lu_factor and lu of one input, their strides and gradients."""
    m.manual_seed(11)
    a = m.randn(*shape, dtype=getattr(m, dtype_name))
    if layout == "transposed":
        a = a.mT.contiguous().mT
    elif layout == "strided":  # every other column of a wider matrix
        a = m.randn(*shape[:-1], 2 * shape[-1], dtype=a.dtype)[..., ::2]
    if singular and a.numel():
        a = a.clone()
        a[..., 0, :] = 0
    a.requires_grad_(needs_grad)
    outs = []
    if shape[-1] == shape[-2]:
        det, (sign, logabsdet) = m.linalg.det(a), m.linalg.slogdet(a)
        logdet = m.logdet(a @ a.mT + m.eye(shape[-1], dtype=a.dtype))
        outs += [t.detach().numpy().copy() for t in (det, sign, logabsdet, logdet)]
        if needs_grad and not singular:
            outs += [g.numpy().copy() for g in m.autograd.grad(
                (det * 1.5).sum() + logabsdet.sum() + logdet.sum(), a)]
    if not singular:
        lu, pivots = m.linalg.lu_factor(a)
        p, lower, upper = m.linalg.lu(a)
        outs += [t.detach().numpy().copy() for t in (lu, pivots, p, lower, upper)]
        outs += [tuple(lu.stride())]
    return outs


def test_lu_factorisations_as_torch(_mkl_on_one_thread):
    # torch's getrf (Note: torch's LU solve, ops/_lapack.py): lu_factor and lu factor a
    # column-major copy of A; det and slogdet (so logdet and MultivariateNormal's log_prob)
    # factor a contiguous A's transpose and multiply (add the logs of) the diagonal; NumPy's
    # det/slogdet and the pure NumPy elimination gave other last bits on most 8x8 inputs
    shapes = [(1, 1), (2, 2), (3, 3), (5, 5), (8, 8), (40, 40), (3, 4, 4), (0, 3, 3), (2, 0, 0),
              (3, 5), (6, 4)]
    for dtype_name, shape, layout, singular, needs_grad in itertools.product(
            ["float32", "float64"], shapes, ["contiguous", "transposed", "strided"],
            [False, True], [False, True]):
        args = (dtype_name, shape, layout, singular, needs_grad)
        got = _outcome(lambda: _factorisations(lg, *args))
        want = _outcome(lambda: _factorisations(torch, *args))
        assert _same_outcomes(got, want), args


def _cholesky_calls(m, dtype_name, factor_shape, b_shape, upper, needs, create_graph):
    """cholesky, cholesky_solve and cholesky_inverse: values, nodes, strides, gradients (and a
    second derivative under create_graph), or the error."""
    m.manual_seed(3)
    n = factor_shape[-1]
    a = m.randn(*factor_shape, dtype=getattr(m, dtype_name))
    spd = a @ a.mT + n * m.eye(n, dtype=a.dtype)
    factor = m.linalg.cholesky(spd, upper=upper).detach().requires_grad_(needs[0])
    b = m.randn(*b_shape, dtype=a.dtype, requires_grad=needs[1])
    solution = m.cholesky_solve(b, factor, upper=upper)
    inverse = m.cholesky_inverse(factor, upper=upper)
    outs = [m.linalg.cholesky(spd, upper=upper).numpy()]
    for t in (solution, inverse):
        outs += [t.detach().numpy().copy(), tuple(t.stride()),
                 type(t.grad_fn).__name__ if t.grad_fn is not None else None]
    wanted = [t for t in (factor, b) if t.requires_grad]
    if wanted:
        loss = (solution * m.randn(*solution.shape, dtype=a.dtype)).sum() + \
            (inverse * m.randn(*inverse.shape, dtype=a.dtype)).sum()
        grads = m.autograd.grad(loss, wanted, create_graph=create_graph)
        outs += [g.detach().numpy().copy() for g in grads] + [tuple(g.stride()) for g in grads]
        if create_graph:
            second = _outcome(lambda: m.autograd.grad(sum(g.sum() for g in grads), wanted,
                                                      allow_unused=True))
            outs.append(second if isinstance(second, tuple) and isinstance(second[0], str)
                        else [None if s is None else s.numpy().copy() for s in second])
    return outs


def test_cholesky_family_as_torch(_mkl_on_one_thread):
    # torch's potrf/potrs/potri (Note: torch's LU solve, ops/_lapack.py): linalg.cholesky,
    # cholesky_solve and cholesky_inverse on column-major copies, where NumPy's cholesky and a
    # pair of triangular solves gave other last bits on 10-80% of the elements; cholesky_solve
    # and cholesky_inverse with torch's nodes (CholeskySolveBackward0,
    # CholeskyInverseBackward0: the composites' were LinalgSolveTriangularBackward0) and
    # formulas, the factor's gradient a full matrix; broadcast batches, upper factors
    cases = [((3, 3), (3, 2)), ((1, 1), (1, 1)), ((2, 4, 4), (4, 1)), ((5, 5), (3, 5, 2)),
             ((2, 3, 3), (2, 3, 3))]
    for dtype_name, (factor_shape, b_shape), upper, needs, create_graph in itertools.product(
            ["float32", "float64"], cases, [False, True],
            itertools.product([False, True], repeat=2), [False, True]):
        args = (dtype_name, factor_shape, b_shape, upper, needs, create_graph)
        got = _outcome(lambda: _cholesky_calls(lg, *args))
        want = _outcome(lambda: _cholesky_calls(torch, *args))
        assert _compare_nested(got, want), args
    for m_shape in [(2, 2), (3, 2, 2)]:  # not positive definite: torch's error
        def call(m):
            return m.linalg.cholesky(-m.eye(2).expand(*m_shape))
        assert _outcome(lambda: call(lg)) == _outcome(lambda: call(torch))


def _compare_nested(got, want) -> bool:
    if isinstance(want, np.ndarray):
        return isinstance(got, np.ndarray) and _same_outcomes([got], [want])
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            _compare_nested(a, b) for a, b in zip(got, want))
    return got == want


def _triangular_solves(m, dtype_name, a_shape, b_shape, left, upper, unit, layout, needs):
    """linalg.solve_triangular's solution, its strides and both gradients."""
    m.manual_seed(2)
    n = a_shape[-1]
    d = getattr(m, dtype_name)
    a = m.randn(*a_shape, dtype=d) + 3 * m.eye(n, dtype=d)
    if layout == "transposed":
        a = a.mT.contiguous().mT
    elif layout == "strided":
        a = m.randn(*a_shape[:-1], 2 * n, dtype=d)[..., ::2] + 3 * m.eye(n, dtype=d)
    elif layout == "zero pivot":  # LAPACK's inf/nan, not an error
        a = a.clone()
        a[..., 0, 0] = 0
    a.requires_grad_(needs[0])
    b = m.randn(*b_shape, dtype=d, requires_grad=needs[1])
    x = m.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)
    outs = [x.detach().numpy().copy(), tuple(x.stride())]
    wanted = [t for t in (a, b) if t.requires_grad]
    if wanted:
        loss = (x * m.randn(*x.shape, dtype=d)).sum()
        outs += [g.numpy().copy() for g in m.autograd.grad(loss, wanted)]
    return outs


def test_solve_triangular_as_torch(_mkl_on_one_thread):
    # torch's trsm call (Note: torch's LU solve, ops/_lapack.py): the solution in a
    # column-major copy of B, a row-major A read as its transpose, a column-major one as it
    # is, any other (strided, broadcast) copied column-major; NumPy's LU solve of the masked
    # triangle gave other last bits on most elements (cholesky's backward solves with it too)
    cases = [((3, 3), (3, 2), True), ((3, 3), (2, 3), False), ((2, 4, 4), (4, 1), True),
             ((5, 5), (2, 5, 3), True), ((1, 1), (1, 2), True), ((33, 33), (33, 4), True)]
    with np.errstate(all="ignore"):
        for dtype_name, (a_shape, b_shape, left), upper, unit, layout, needs in \
                itertools.product(["float32", "float64"], cases, [False, True], [False, True],
                                  ["contiguous", "transposed", "strided", "zero pivot"],
                                  itertools.product([False, True], repeat=2)):
            args = (dtype_name, a_shape, b_shape, left, upper, unit, layout, needs)
            got = _outcome(lambda: _triangular_solves(lg, *args))
            want = _outcome(lambda: _triangular_solves(torch, *args))
            assert _same_outcomes(got, want), args
