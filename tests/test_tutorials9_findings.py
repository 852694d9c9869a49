"""Code from other people's tutorials and courses not covered before (srush's Tensor-Puzzles and
Autodiff-Puzzles; Patrick Loeber's pytorchTutorial series; Aladdin Persson's
Machine-Learning-Collection; cs231n assignment 2's PyTorch notebook; dvgodoy's "Deep Learning
with PyTorch Step-by-Step" chapters 0-4; pytorch/tutorials' NLP pages (bag-of-words, CBOW,
BiLSTM-CRF), "Introduction to torch.compile" and the dynamic-net/weight-sharing example;
ezyang's strides and storage walkthrough; autograd-graph walkthroughs), shrunk to small
synthetic data made with torch's own RNG and run with torch and with leafgrad in one process:
every printed line, warning and error must be the same (tests/_tutorial_harness.py); then one
test per defect found, sweeping its class of inputs."""

import itertools
import math
import os
import tempfile
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch
from tests._tutorial_harness import attempt, first_difference
from tests._tutorial_harness import default_validation  # noqa: F401 - a fixture

torch = require_torch()


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data)

def tensor_puzzles(torch):
    # srush/Tensor-Puzzles: every puzzle in broadcasting, arange and where only, checked
    # against torch's own function
    def arange(i): return torch.tensor(range(i))
    def where(q, a, b): return (q * a) + (~q) * b
    def ones(i): return (arange(i) >= 0) * 1
    def sum(a): return ones(a.shape[0]) @ a[:, None]
    def outer(a, b): return a[:, None] * b[None, :]
    def diag(a): return a[arange(a.shape[0]), arange(a.shape[0])]
    def eye(j): return (arange(j)[:, None] == arange(j)) * 1
    def triu(j): return (arange(j)[:, None] <= arange(j)) * 1
    def cumsum(a): return a @ triu(a.shape[0])
    def diff(a, i): return a[arange(i)] - where(arange(i) != 0, a[arange(i) - 1], 0)
    def vstack(a, b): return where(arange(2)[:, None] == ones(a.shape[0]), b, a)
    def roll(a, i): return a[(arange(i) + 1) % i]
    def flip(a, i): return a[i - arange(i) - 1]
    def compress(g, v, i): return v @ where(g[:, None], arange(i) == (cumsum(1 * g) - 1)[:, None], 0)
    def pad_to(a, i, j): return a @ ((arange(i)[:, None] == arange(j)) * 1)
    def sequence_mask(values, length): return where(length[:, None] > arange(values.shape[1]), values, 0)
    def bincount(a, j): return ones(a.shape[0]) @ eye(j)[a]
    def scatter_add(values, link, j): return values @ eye(j)[link]
    def flatten(a, i, j): return a[arange(i * j) // j, arange(i * j) % j]
    def linspace(i, j, n): return i + (j - i) * arange(n) / max(1, n - 1)
    def heaviside(a, b): return where(a == 0, b, a > 0)
    def repeat(a, d): return ones(d)[:, None] @ a[None]
    def bucketize(v, boundaries): return (1 * (v[:, None] >= boundaries)) @ ones(boundaries.shape[0])
    torch.manual_seed(0)
    a = torch.randint(-5, 5, (6,)); b = torch.randint(-5, 5, (4,))
    print(arange(5), where(a > 0, a, b.sum()), ones(3), sum(a), outer(a, b))
    m = torch.randint(0, 9, (4, 4))
    print(diag(m), eye(3), triu(4), cumsum(a), torch.cumsum(a, 0))
    print(diff(a, 6), vstack(a, a * 2), roll(a, 6), torch.roll(a, -1), flip(a, 6), torch.flip(a, [0]))
    g = torch.tensor([True, False, True, True, False, False])
    print(compress(g, a, 6), pad_to(a, 6, 8), pad_to(a, 6, 3))
    values = torch.randint(0, 9, (3, 5)); length = torch.tensor([0, 2, 5])
    print(sequence_mask(values, length))
    idx = torch.randint(0, 4, (8,))
    print(bincount(idx, 4), torch.bincount(idx, minlength=4), scatter_add(a, idx[:6], 4))
    print(flatten(m, 4, 4), linspace(0, 1, 5), torch.linspace(0, 1, 5), linspace(2, -3, 1))
    print(heaviside(torch.tensor([-1.5, 0.0, 2.0]), torch.tensor([0.5, 0.5, 0.5])))
    print(torch.heaviside(torch.tensor([-1.5, 0.0, 2.0]), torch.tensor([0.5])))
    print(repeat(a, 3), bucketize(torch.tensor([0.1, 2.0, 5.5]), torch.tensor([1.0, 2.0, 5.0])))
    print(torch.bucketize(torch.tensor([0.1, 2.0, 5.5]), torch.tensor([1.0, 2.0, 5.0]), right=True))
    print(torch.equal(cumsum(a), torch.cumsum(a, 0)), (diag(m) == torch.diag(m)).all().item())
    print(where(g, 1.5, 2), where(g, torch.tensor(1.5), a))
    attempt(lambda: print(sum(torch.ones(3, 2))))

def autodiff_puzzles(torch):
    # srush/Autodiff-Puzzles lib.py: Jacobians filled entry by entry and checked against
    # numerical derivatives and against autograd
    torch.manual_seed(1)
    gy = torch.tensor([math.sin(x / 20) * 0.5 + (torch.rand(1).item() - 0.5) for x in range(12)])
    def v(s, f):
        ret = torch.zeros(s)
        for i in range(s):
            ret[i] = f(i)
        return ret
    def m(inp, out, f):
        ret = torch.zeros(inp.shape[0], out.shape[0])
        for i in range(ret.shape[0]):
            for j in range(ret.shape[1]):
                ret[i, j] = f(i, j)
        return ret.T
    def numerical_deriv(fb, x, out):
        s = x.shape[0]
        dx2 = torch.zeros(out.shape[0], s)
        for i in range(s):
            up = x + 1e-5 * torch.eye(s)[i]
            f = fb(up)
            for j in range(out.shape[0]):
                dx2[j, i] = (f(j) - out[j]) / 1e-5
        return dx2
    def one_argf(fb, x, out_shape):
        f, dx = fb(x)
        out = v(out_shape, f)
        dx = m(x, out, dx)
        dx2 = numerical_deriv(lambda a: fb(a)[0], x, out)
        return out, dx, dx2
    def check(dx, dx2):
        bad = {}
        for j, i in (~torch.isclose(dx, dx2, atol=1e-2)).nonzero():
            bad.setdefault(i.item(), []).append(j.item())
        return bad
    def fb_demo(x):
        f = lambda o: x[o]
        dx = lambda i, o: (abs(o - i) < 4) * (abs(o - i) % 2)
        return f, dx
    def fb_constant(x):
        return (lambda o: 0), (lambda i, o: 0)
    def fb_id(x):
        return (lambda o: x[o]), (lambda i, o: 1 if i == o else 0)
    def fb_square(x):
        return (lambda o: x[o] * x[o]), (lambda i, o: 2 * x[i] if i == o else 0)
    def fb_cube(x):
        return (lambda o: x[o] ** 3), (lambda i, o: 3 * x[i] ** 2 if i == o else 0)
    def fb_relu(x):
        return (lambda o: (x[o] if x[o] > 0 else 0)), (lambda i, o: (1 if x[i] > 0 else 0) if i == o else 0)
    def fb_sum(x):
        return (lambda o: sum(x[i] for i in range(x.shape[0])) if o == 0 else 0), (lambda i, o: 1 if o == 0 else 0)
    def fb_index(x):
        return (lambda o: x[o + 2]), (lambda i, o: 1 if i == o + 2 else 0)
    def fb_cumsum(x):
        return (lambda o: sum(x[i] for i in range(o + 1))), (lambda i, o: 1 if i <= o else 0)
    def fb_running_mean(x, W=3):
        return (lambda o: sum(x[o - d] for d in range(W)) / W if o - (W - 1) >= 0 else 0), \
               (lambda i, o: 1 / W if (o - (W - 1) >= 0 and 0 <= o - i < W) else 0)
    def fb_sort(x):
        sx = x.sort()[0]; order = x.argsort()
        return (lambda o: sx[o]), (lambda i, o: 1 if order[o] == i else 0)
    for fb, n in [(fb_demo, 12), (fb_constant, 12), (fb_id, 12), (fb_square, 12), (fb_cube, 12),
                  (fb_relu, 12), (fb_sum, 1), (fb_index, 8), (fb_cumsum, 12), (fb_running_mean, 12),
                  (fb_sort, 12)]:
        out, dx, dx2 = one_argf(fb, gy, n)
        print(fb.__name__, out[:4], dx.shape, dx[:3, :3], check(dx, dx2))
    # the same Jacobians by autograd
    x = gy.clone().requires_grad_()
    for f in [lambda t: t * t, lambda t: t ** 3, torch.relu, lambda t: t.cumsum(0), lambda t: t.sort()[0],
              lambda t: torch.nn.functional.avg_pool1d(t[None, None], 3, 1)[0, 0], lambda t: t[2:]]:
        jac = torch.autograd.functional.jacobian(f, x)
        print(jac.shape, jac[:2, :4], jac.sum())
    y = torch.tensor(1); q = torch.maximum(torch.minimum(y, gy), -y); print(q, q.dtype)
    land = gy / gy; land = torch.cat([land, torch.tensor([0, 0])], 0); print(land)
    qq = torch.zeros(4, 4); qq[1, 2] = 3
    for i in range(4):
        for j in qq[:, i].nonzero()[:, 0]:
            if qq[j, i] != 0 and i < 3:
                print(i, j, abs(qq[j, i] / qq.abs().max()), 0.3 * abs(qq[j, i] / 2))

def loeber_basics_autograd(torch):
    # Patrick Loeber pytorchTutorial 02_tensor_basics and 03_autograd
    torch.manual_seed(0)
    x = torch.empty(2, 3); print(x.size(), x.dtype)
    x = torch.rand(5, 3); print(x)
    x = torch.zeros(5, 3); print(x)
    x = torch.ones(2, 2, dtype=torch.float16); print(x, x.dtype, x.size())
    x = torch.tensor([5.5, 3]); print(x.size())
    x = torch.tensor([5.5, 3], requires_grad=True); print(x)
    x = torch.rand(2, 2); y = torch.rand(2, 2)
    z = x + y; print(torch.add(x, y)); y.add_(x); print(y)
    z = x - y; z = torch.sub(x, y); z = x * y; z = torch.mul(x, y); z = x / y; z = torch.div(x, y); print(z)
    x = torch.rand(5, 3); print(x[:, 0], x[1, :], x[1, 1], x[1, 1].item())
    x = torch.randn(4, 4); y = x.view(16); z = x.view(-1, 8); print(x.size(), y.size(), z.size())
    a = torch.ones(5); print(a); b = a.numpy(); print(b, type(b))
    a.add_(1); print(a); print(b)
    a = np.ones(5); b = torch.from_numpy(a); print(a); print(b)
    a += 1; print(a); print(b)
    print(torch.cuda.is_available())
    x = torch.ones(5, requires_grad=True); print(x)
    # 03_autograd
    x = torch.randn(3, requires_grad=True); print(x)
    y = x + 2; print(y); print(y.grad_fn)
    z = y * y * 3; print(z); z = z.mean(); print(z)
    z.backward(); print(x.grad)
    x = torch.randn(3, requires_grad=True); y = x * 2
    for _ in range(10):
        y = y * 2
    print(y, y.shape)
    v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float32)
    y.backward(v); print(x.grad)
    a = torch.randn(2, 2); a = ((a * 3) / (a - 1)); print(a.requires_grad)
    b = (a * a).sum(); a.requires_grad_(True); print(a.requires_grad); b = (a * a).sum(); print(b.grad_fn)
    a = torch.randn(2, 2, requires_grad=True); b = a.detach(); print(b.requires_grad)
    with torch.no_grad():
        print((x ** 2).requires_grad)
    weights = torch.ones(4, requires_grad=True)
    for epoch in range(3):
        model_output = (weights * 3).sum()
        model_output.backward()
        print(weights.grad)
        weights.grad.zero_()
    print(weights)
    optimizer = torch.optim.SGD([weights], lr=0.1)
    optimizer.step(); optimizer.zero_grad(); print(weights, weights.grad)
    attempt(lambda: torch.randn(3, requires_grad=True).mul(2).backward())
    attempt(lambda: torch.randn(3).sum().backward())

def loeber_backprop_gd(torch):
    # Loeber 04_backpropagation, 05_gradientdescent_auto (numpy by hand, then autograd), 06 and 07
    x = torch.tensor(1.0); y = torch.tensor(2.0); w = torch.tensor(1.0, requires_grad=True)
    y_predicted = w * x; loss = (y_predicted - y) ** 2; print(loss)
    loss.backward(); print(w.grad)
    with torch.no_grad():
        w -= 0.01 * w.grad
    w.grad.zero_(); print(w, w.grad)
    X = np.array([1, 2, 3, 4], dtype=np.float32); Y = np.array([2, 4, 6, 8], dtype=np.float32)
    w_np = 0.0
    forward = lambda x: w_np * x
    loss_np = lambda y, yp: ((yp - y) ** 2).mean()
    gradient = lambda x, y, yp: np.dot(2 * x, yp - y).mean()
    for epoch in range(5):
        y_pred = forward(X); l = loss_np(Y, y_pred); dw = gradient(X, Y, y_pred); w_np -= 0.01 * dw
        print(f'epoch {epoch + 1}: w = {w_np:.3f}, loss = {l:.8f}')
    X = torch.tensor([1, 2, 3, 4], dtype=torch.float32); Y = torch.tensor([2, 4, 6, 8], dtype=torch.float32)
    w = torch.tensor(0.0, dtype=torch.float32, requires_grad=True)
    def forward(x): return w * x
    def loss(y, y_pred): return ((y_pred - y) ** 2).mean()
    print(f'Prediction before training: f(5) = {forward(5).item():.3f}')
    for epoch in range(20):
        y_pred = forward(X); l = loss(Y, y_pred); l.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
        w.grad.zero_()
        if epoch % 4 == 0:
            print(f'epoch {epoch + 1}: w = {w.item():.3f}, loss = {l.item():.8f}', w, l)
    print(f'Prediction after training: f(5) = {forward(5).item():.3f}')
    # 06: training pipeline with nn
    nn = torch.nn
    X = torch.tensor([[1], [2], [3], [4]], dtype=torch.float32); Y = torch.tensor([[2], [4], [6], [8]], dtype=torch.float32)
    n_samples, n_features = X.shape; print(f'#samples: {n_samples}, #features: {n_features}')
    X_test = torch.tensor([5], dtype=torch.float32)
    torch.manual_seed(0)
    class LinearRegression(nn.Module):
        def __init__(self, input_dim, output_dim):
            super(LinearRegression, self).__init__()
            self.lin = nn.Linear(input_dim, output_dim)
        def forward(self, x):
            return self.lin(x)
    model = LinearRegression(n_features, n_features)
    print(f'Prediction before training: f(5) = {model(X_test).item():.3f}')
    loss = nn.MSELoss(); optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(50):
        y_predicted = model(X); l = loss(Y, y_predicted); l.backward(); optimizer.step(); optimizer.zero_grad()
        if epoch % 10 == 0:
            [w, b] = model.parameters()
            print('epoch ', epoch + 1, ': w = ', w[0][0].item(), ' loss = ', l)
    print(f'Prediction after training: f(5) = {model(X_test).item():.3f}', model(X_test))
    # 07 linear regression on torch-made regression data
    X_numpy = torch.randn(20, 1).numpy().astype(np.float64); y_numpy = (3 * X_numpy[:, 0] + torch.randn(20).numpy())
    X = torch.from_numpy(X_numpy.astype(np.float32)); y = torch.from_numpy(y_numpy.astype(np.float32))
    y = y.view(y.shape[0], 1)
    model = nn.Linear(1, 1); criterion = nn.MSELoss(); optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(30):
        y_predicted = model(X); loss = criterion(y_predicted, y)
        loss.backward(); optimizer.step(); optimizer.zero_grad()
        if (epoch + 1) % 10 == 0:
            print(f'epoch: {epoch + 1}, loss = {loss.item():.4f}')
    predicted = model(X).detach().numpy(); print(predicted[:3], predicted.dtype)

def loeber_logistic_softmax_activations(torch):
    # Loeber 08_logistic_regression, 11_softmax_and_crossentropy, 12_activation_functions
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(1)
    X = torch.randn(40, 5).double().numpy(); y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    X_train, X_test, y_train, y_test = X[:30], X[30:], y[:30], y[30:]
    mu, sd = X_train.mean(0), X_train.std(0)
    X_train = (X_train - mu) / sd; X_test = (X_test - mu) / sd
    X_train = torch.from_numpy(X_train.astype(np.float32)); X_test = torch.from_numpy(X_test.astype(np.float32))
    y_train = torch.from_numpy(y_train.astype(np.float32)); y_test = torch.from_numpy(y_test.astype(np.float32))
    y_train = y_train.view(y_train.shape[0], 1); y_test = y_test.view(y_test.shape[0], 1)
    class Model(nn.Module):
        def __init__(self, n_input_features):
            super(Model, self).__init__(); self.linear = nn.Linear(n_input_features, 1)
        def forward(self, x):
            return torch.sigmoid(self.linear(x))
    model = Model(5); criterion = nn.BCELoss(); optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(30):
        y_pred = model(X_train); loss = criterion(y_pred, y_train); loss.backward(); optimizer.step(); optimizer.zero_grad()
        if (epoch + 1) % 10 == 0:
            print(f'epoch: {epoch + 1}, loss = {loss.item():.4f}')
    with torch.no_grad():
        y_predicted = model(X_test); y_predicted_cls = y_predicted.round()
        acc = y_predicted_cls.eq(y_test).sum() / float(y_test.shape[0])
        print(f'accuracy: {acc.item():.4f}', acc)
    # 11
    def softmax(x): return np.exp(x) / np.sum(np.exp(x), axis=0)
    x = np.array([2.0, 1.0, 0.1]); outputs = softmax(x); print('softmax numpy:', outputs)
    x = torch.tensor([2.0, 1.0, 0.1]); outputs = torch.softmax(x, dim=0); print('softmax torch:', outputs)
    def cross_entropy(actual, predicted):
        EPS = 1e-15; predicted = np.clip(predicted, EPS, 1 - EPS); return -np.sum(actual * np.log(predicted))
    Y = np.array([1, 0, 0]); Y_pred_good = np.array([0.7, 0.2, 0.1]); Y_pred_bad = np.array([0.1, 0.3, 0.6])
    print(f'Loss1 numpy: {cross_entropy(Y, Y_pred_good):.4f}', f'Loss2 numpy: {cross_entropy(Y, Y_pred_bad):.4f}')
    loss = nn.CrossEntropyLoss()
    Y = torch.tensor([0])
    Y_pred_good = torch.tensor([[2.0, 1.0, 0.1]]); Y_pred_bad = torch.tensor([[0.5, 2.0, 0.3]])
    l1 = loss(Y_pred_good, Y); l2 = loss(Y_pred_bad, Y)
    print(f'PyTorch Loss1: {l1.item():.4f}', f'PyTorch Loss2: {l2.item():.4f}', l1, l2)
    _, predictions1 = torch.max(Y_pred_good, 1); _, predictions2 = torch.max(Y_pred_bad, 1)
    print(f'Actual class: {Y.item()}, Y_pred1: {predictions1.item()}, Y_pred2: {predictions2.item()}')
    Y = torch.tensor([2, 0, 1])
    Y_pred_good = torch.tensor([[0.1, 0.2, 3.9], [1.2, 0.1, 0.3], [0.3, 2.2, 0.2]])
    Y_pred_bad = torch.tensor([[0.9, 0.2, 0.1], [0.1, 0.3, 1.5], [1.2, 0.2, 0.5]])
    l1 = loss(Y_pred_good, Y); l2 = loss(Y_pred_bad, Y); print(l1, l2, torch.max(Y_pred_good, 1), torch.max(Y_pred_bad, 1))
    class NeuralNet1(nn.Module):
        def __init__(self, input_size, hidden_size):
            super(NeuralNet1, self).__init__()
            self.linear1 = nn.Linear(input_size, hidden_size); self.relu = nn.ReLU(); self.linear2 = nn.Linear(hidden_size, 1)
        def forward(self, x):
            return torch.sigmoid(self.linear2(self.relu(self.linear1(x))))
    model = NeuralNet1(input_size=28 * 28, hidden_size=5); criterion = nn.BCELoss(); print(model, criterion)
    # 12
    x = torch.tensor([-1.0, 1.0, 2.0, 3.0])
    print(torch.softmax(x, dim=0), nn.Softmax(dim=0)(x), torch.sigmoid(x), nn.Sigmoid()(x))
    print(torch.tanh(x), nn.Tanh()(x), torch.relu(x), nn.ReLU()(x), F.leaky_relu(x, negative_slope=0.1), nn.LeakyReLU(0.1)(x))
    print(F.relu(x), nn.Softmax(dim=0), nn.LeakyReLU(0.1), nn.LeakyReLU())
    attempt(lambda: torch.softmax(x))
    attempt(lambda: F.softmax(x))

def loeber_data_transforms(torch):
    # Loeber 09_dataloader and 10_dataset_transforms on a torch-made wine-like table
    data = torch.utils.data
    torch.manual_seed(2)
    table = np.concatenate([np.arange(1, 4).repeat(6)[:, None].astype(np.float32),
                            torch.rand(18, 4).numpy() * 10], 1)
    class WineDataset(data.Dataset):
        def __init__(self, transform=None):
            xy = table
            self.n_samples = xy.shape[0]
            self.x_data = xy[:, 1:]; self.y_data = xy[:, [0]]
            self.transform = transform
        def __getitem__(self, index):
            sample = self.x_data[index], self.y_data[index]
            if self.transform:
                sample = self.transform(sample)
            return sample
        def __len__(self):
            return self.n_samples
    class ToTensor:
        def __call__(self, sample):
            inputs, targets = sample
            return torch.from_numpy(inputs), torch.from_numpy(targets)
    class MulTransform:
        def __init__(self, factor):
            self.factor = factor
        def __call__(self, sample):
            inputs, targets = sample
            inputs *= self.factor
            return inputs, targets
    class Compose:
        def __init__(self, transforms): self.transforms = transforms
        def __call__(self, s):
            for t in self.transforms:
                s = t(s)
            return s
    dataset = WineDataset(transform=ToTensor())
    first_data = dataset[0]; features, labels = first_data
    print(type(features), type(labels), features, labels)
    dataset = WineDataset(transform=None); features, labels = dataset[0]; print(type(features), features.dtype, labels)
    composed = Compose([ToTensor(), MulTransform(4)])
    dataset = WineDataset(transform=composed); features, labels = dataset[0]; print(features, labels)
    dataset = WineDataset(transform=ToTensor())
    train_loader = data.DataLoader(dataset=dataset, batch_size=4, shuffle=True, num_workers=0)
    dataiter = iter(train_loader); features, labels = next(dataiter); print(features, labels)
    num_epochs = 2; total_samples = len(dataset); n_iterations = math.ceil(total_samples / 4)
    print(total_samples, n_iterations)
    for epoch in range(num_epochs):
        for i, (inputs, labels) in enumerate(train_loader):
            if (i + 1) % 2 == 0:
                print(f'Epoch: {epoch + 1}/{num_epochs}, Step {i + 1}/{n_iterations}| Inputs {inputs.shape} | Labels {labels.shape}', labels.view(-1))
    loader = data.DataLoader(dataset, batch_size=5, shuffle=False, drop_last=True)
    print(len(loader), [b[1].view(-1).tolist() for b in loader])
    dataset2 = WineDataset(transform=None)
    loader = data.DataLoader(dataset2, batch_size=3)
    x, y = next(iter(loader)); print(x.dtype, y.dtype, x.shape, type(x))

def loeber_ffn_cnn_saveload(torch):
    # Loeber 13_feedforward, 14_cnn (shape walk), 17_save_load
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(3)
    input_size = 16; hidden_size = 10; num_classes = 4; batch_size = 8; learning_rate = 0.001
    images = torch.rand(32, 1, 4, 4); targets = torch.randint(0, 4, (32,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, targets), batch_size=batch_size, shuffle=True)
    examples = iter(loader); example_data, example_targets = next(examples); print(example_data.shape, example_targets.shape)
    class NeuralNet(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes):
            super(NeuralNet, self).__init__()
            self.input_size = input_size
            self.l1 = nn.Linear(input_size, hidden_size); self.relu = nn.ReLU(); self.l2 = nn.Linear(hidden_size, num_classes)
        def forward(self, x):
            return self.l2(self.relu(self.l1(x)))
    model = NeuralNet(input_size, hidden_size, num_classes)
    criterion = nn.CrossEntropyLoss(); optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    n_total_steps = len(loader)
    for epoch in range(2):
        for i, (imgs, labels) in enumerate(loader):
            imgs = imgs.reshape(-1, 4 * 4)
            outputs = model(imgs); loss = criterion(outputs, labels)
            optimizer.zero_grad(); loss.backward(); optimizer.step()
            if (i + 1) % 2 == 0:
                print(f'Epoch [{epoch + 1}/2], Step [{i + 1}/{n_total_steps}], Loss: {loss.item():.4f}')
    with torch.no_grad():
        n_correct = 0; n_samples = 0
        for imgs, labels in loader:
            imgs = imgs.reshape(-1, 16); outputs = model(imgs)
            _, predicted = torch.max(outputs.data, 1)
            n_samples += labels.size(0); n_correct += (predicted == labels).sum().item()
        acc = 100.0 * n_correct / n_samples; print(f'Accuracy of the network: {acc} %')
    # 14: the shape walk
    imgs = torch.randn(4, 3, 32, 32)
    conv1 = nn.Conv2d(3, 6, 5); pool = nn.MaxPool2d(2, 2); conv2 = nn.Conv2d(6, 16, 5)
    print(imgs.shape); x = conv1(imgs); print(x.shape); x = pool(x); print(x.shape); x = conv2(x); print(x.shape); x = pool(x); print(x.shape)
    class ConvNet(nn.Module):
        def __init__(self):
            super(ConvNet, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5); self.pool = nn.MaxPool2d(2, 2); self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 12); self.fc2 = nn.Linear(12, 8); self.fc3 = nn.Linear(8, 10)
        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x))); x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 5 * 5); x = F.relu(self.fc1(x)); x = F.relu(self.fc2(x)); return self.fc3(x)
    net = ConvNet(); out = net(imgs); loss = F.cross_entropy(out, torch.tensor([0, 1, 2, 3])); loss.backward()
    print(out, loss, net.conv1.weight.grad.sum(), net.fc3.bias.grad)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001); optimizer.step()
    class_correct = [0 for i in range(10)]; class_samples = [0 for i in range(10)]
    labels = torch.tensor([0, 1, 2, 3]); _, predicted = torch.max(out, 1)
    for i in range(4):
        label = labels[i]; pred = predicted[i]
        if (label == pred):
            class_correct[label] += 1
        class_samples[label] += 1
    print(class_correct, class_samples)
    # 17 save / load: whole model, state_dict, checkpoint
    d = tempfile.mkdtemp()
    class Model(nn.Module):
        def __init__(self, n_input_features):
            super(Model, self).__init__(); self.linear = nn.Linear(n_input_features, 1)
        def forward(self, x):
            return torch.sigmoid(self.linear(x))
    model = Model(n_input_features=6)
    for param in model.parameters():
        print(param)
    FILE = os.path.join(d, "model.pth")
    attempt(lambda: torch.save(model, FILE))  # (a class local to the snippet does not pickle)
    torch.save(torch.nn.Sequential(torch.nn.Linear(6, 1), torch.nn.Sigmoid()), FILE)
    loaded = torch.load(FILE, weights_only=False); loaded.eval()
    for param in loaded.parameters():
        print(param)
    print(loaded)
    attempt(lambda: torch.load(FILE))
    torch.save(model.state_dict(), FILE)
    loaded_model = Model(n_input_features=6); loaded_model.load_state_dict(torch.load(FILE)); loaded_model.eval()
    print(loaded_model.state_dict())
    learning_rate = 0.01; optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    checkpoint = {"epoch": 90, "model_state": model.state_dict(), "optim_state": optimizer.state_dict()}
    print(optimizer.state_dict())
    FILE = os.path.join(d, "checkpoint.pth"); torch.save(checkpoint, FILE)
    model = Model(n_input_features=6); optimizer = torch.optim.SGD(model.parameters(), lr=0)
    checkpoint = torch.load(FILE); model.load_state_dict(checkpoint['model_state'])
    optimizer.load_state_dict(checkpoint['optim_state']); epoch = checkpoint['epoch']
    model.eval(); print(optimizer.state_dict(), epoch)
    attempt(lambda: model.load_state_dict({"linear.weight": torch.zeros(1, 5)}))

def persson_classifiers(torch):
    # Aladdin Persson Machine-Learning-Collection: simple fully connected net, CNN, RNN/GRU/LSTM
    # and bidirectional LSTM classifiers with their check_accuracy, init weights, checkpoints
    nn = torch.nn; F = torch.nn.functional; optim = torch.optim
    torch.manual_seed(4)
    x_all = torch.rand(24, 1, 6, 6); y_all = torch.randint(0, 3, (24,))
    dataset = torch.utils.data.TensorDataset(x_all, y_all)
    train_loader = torch.utils.data.DataLoader(dataset=dataset, batch_size=8, shuffle=True)
    class NN(nn.Module):
        def __init__(self, input_size, num_classes):
            super(NN, self).__init__(); self.fc1 = nn.Linear(input_size, 10); self.fc2 = nn.Linear(10, num_classes)
        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))
    model = NN(36, 3); x = torch.randn(8, 36); print(model(x).shape)
    criterion = nn.CrossEntropyLoss(); optimizer = optim.Adam(model.parameters(), lr=0.001)
    for epoch in range(2):
        for batch_idx, (data, targets) in enumerate(train_loader):
            data = data.reshape(data.shape[0], -1)
            scores = model(data); loss = criterion(scores, targets)
            optimizer.zero_grad(); loss.backward(); optimizer.step()
    def check_accuracy(loader, model, reshape=True):
        num_correct = 0; num_samples = 0; model.eval()
        with torch.no_grad():
            for x, y in loader:
                if reshape:
                    x = x.reshape(x.shape[0], -1)
                scores = model(x); _, predictions = scores.max(1)
                num_correct += (predictions == y).sum(); num_samples += predictions.size(0)
            print(f"Got {num_correct} / {num_samples} with accuracy {float(num_correct)/float(num_samples)*100:.2f}")
        model.train()
        return num_correct / num_samples
    print(check_accuracy(train_loader, model))
    class CNN(nn.Module):
        def __init__(self, in_channels=1, num_classes=3):
            super(CNN, self).__init__()
            self.conv1 = nn.Conv2d(in_channels=in_channels, out_channels=4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
            self.pool = nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2))
            self.conv2 = nn.Conv2d(in_channels=4, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
            self.bn = nn.BatchNorm2d(8)
            self.fc1 = nn.Linear(8 * 1 * 1, num_classes)
            self.initialize_weights()
        def forward(self, x):
            x = F.relu(self.conv1(x)); x = self.pool(x); x = F.relu(self.bn(self.conv2(x))); x = self.pool(x)
            x = x.reshape(x.shape[0], -1); return self.fc1(x)
        def initialize_weights(self):
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_uniform_(m.weight)
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1); nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.kaiming_uniform_(m.weight); nn.init.constant_(m.bias, 0)
    model = CNN(); print(model); print(model(torch.randn(2, 1, 6, 6)).shape)
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    def save_checkpoint(state, filename):
        print("=> Saving checkpoint"); torch.save(state, filename)
    def load_checkpoint(checkpoint, model, optimizer):
        print("=> Loading checkpoint"); model.load_state_dict(checkpoint["state_dict"]); optimizer.load_state_dict(checkpoint["optimizer"])
    d = tempfile.mkdtemp(); fname = os.path.join(d, "my_checkpoint.pth.tar")
    for epoch in range(2):
        losses = []
        if epoch % 1 == 0:
            checkpoint = {"state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}
            save_checkpoint(checkpoint, fname)
        for data, targets in train_loader:
            loss = criterion(model(data), targets); losses.append(loss.item())
            optimizer.zero_grad(); loss.backward(); optimizer.step()
        mean_loss = sum(losses) / len(losses); print(f"Loss at epoch {epoch} was {mean_loss:.5f}")
    load_checkpoint(torch.load(fname), model, optimizer)
    print(check_accuracy(train_loader, model, reshape=False))
    # RNN / GRU / LSTM / BiLSTM over rows of the image
    input_size = 6; hidden_size = 5; num_layers = 2; sequence_length = 6; num_classes = 3
    class RNN(nn.Module):
        def __init__(self, kind):
            super(RNN, self).__init__()
            self.hidden_size = hidden_size; self.num_layers = num_layers; self.kind = kind
            self.rnn = getattr(nn, kind)(input_size, hidden_size, num_layers, batch_first=True)
            self.fc = nn.Linear(hidden_size * sequence_length, num_classes)
        def forward(self, x):
            h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
            if self.kind == "LSTM":
                c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size); out, _ = self.rnn(x, (h0, c0))
            else:
                out, _ = self.rnn(x, h0)
            out = out.reshape(out.shape[0], -1); return self.fc(out)
    class BRNN(nn.Module):
        def __init__(self):
            super(BRNN, self).__init__()
            self.hidden_size = hidden_size; self.num_layers = num_layers
            self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(hidden_size * 2, num_classes)
        def forward(self, x):
            h0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size)
            c0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size)
            out, _ = self.lstm(x, (h0, c0)); return self.fc(out[:, -1, :])
    for model in [RNN("RNN"), RNN("GRU"), RNN("LSTM"), BRNN()]:
        optimizer = optim.Adam(model.parameters(), lr=0.005)
        for data, targets in train_loader:
            data = data.squeeze(1); scores = model(data); loss = criterion(scores, targets)
            optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(type(model).__name__, loss, scores[:2])
        num_correct = 0
        with torch.no_grad():
            for x, y in train_loader:
                num_correct += (model(x.squeeze(1)).argmax(1) == y).sum()
        print(num_correct, f"{float(num_correct) / 24 * 100:.2f}")

def persson_training_utils(torch):
    # Persson: imbalanced classes with WeightedRandomSampler, LR schedulers, mixed precision,
    # progress of a training loop, set_seed helpers
    nn = torch.nn; optim = torch.optim; data = torch.utils.data
    torch.manual_seed(5)
    x = torch.randn(30, 3); y = (torch.arange(30) < 4).long()
    dataset = data.TensorDataset(x, y)
    class_weights = [1, 50]
    sample_weights = [0] * len(dataset)
    for idx, (d, label) in enumerate(dataset):
        class_weight = class_weights[label]
        sample_weights[idx] = class_weight
    print(sample_weights[:6])
    sampler = data.WeightedRandomSampler(sample_weights, num_samples=len(sample_weights), replacement=True)
    loader = data.DataLoader(dataset, batch_size=10, sampler=sampler)
    num_retrievers = 0; num_elkhounds = 0
    for epoch in range(3):
        for d, labels in loader:
            num_retrievers += torch.sum(labels == 0); num_elkhounds += torch.sum(labels == 1)
    print(num_retrievers, num_elkhounds, num_retrievers.item())
    class_counts = torch.bincount(y); weights = 1.0 / class_counts.float(); print(weights, weights[y][:6])
    model = nn.Linear(3, 2)
    optimizer = optim.Adam(model.parameters(), lr=0.1)
    scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.1, patience=1)
    for epoch in range(6):
        losses = []
        for d, targets in data.DataLoader(dataset, batch_size=10):
            loss = nn.functional.cross_entropy(model(d), targets); losses.append(loss.item())
            optimizer.zero_grad(); loss.backward(); optimizer.step()
        mean_loss = sum(losses) / len(losses)
        scheduler.step(mean_loss if epoch < 2 else 10.0)
        print(f"Cost at epoch {epoch} is {mean_loss:.5f}", optimizer.param_groups[0]["lr"], scheduler.get_last_lr(), scheduler.num_bad_epochs)
    attempt(lambda: optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.1, patience=5, verbose=True))
    attempt(lambda: optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=1.5))
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    print([(scheduler.step(), round(scheduler.get_last_lr()[0], 8))[1] for _ in range(5)])
    scaler = attempt(lambda: torch.cuda.amp.GradScaler())
    print(type(scaler).__name__, scaler.is_enabled() if scaler is not None else None)
    scaler = torch.amp.GradScaler("cpu"); print(scaler.is_enabled(), scaler.get_scale())
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        out = model(x); loss = nn.functional.cross_entropy(out, y)
    print(out.dtype, loss.dtype)
    scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update(); print(scaler.get_scale(), model.weight.grad.dtype)
    attempt(lambda: torch.autocast(device_type="cuda"))
    def seed_everything(seed=42):
        os.environ["PYTHONHASHSEED"] = str(seed)
        torch.manual_seed(seed); torch.cuda.manual_seed(seed); torch.cuda.manual_seed_all(seed)
        np.random.seed(seed)
        torch.backends.cudnn.deterministic = True; torch.backends.cudnn.benchmark = False
    seed_everything(); print(torch.rand(2), np.random.rand(), torch.backends.cudnn.deterministic)

def persson_gans(torch):
    # Persson: simple GAN, DCGAN with its weight init, WGAN with weight clipping and WGAN-GP's
    # gradient penalty
    nn = torch.nn; optim = torch.optim
    torch.manual_seed(6)
    class Discriminator(nn.Module):
        def __init__(self, in_features):
            super().__init__()
            self.disc = nn.Sequential(nn.Linear(in_features, 8), nn.LeakyReLU(0.01), nn.Linear(8, 1), nn.Sigmoid())
        def forward(self, x):
            return self.disc(x)
    class Generator(nn.Module):
        def __init__(self, z_dim, img_dim):
            super().__init__()
            self.gen = nn.Sequential(nn.Linear(z_dim, 8), nn.LeakyReLU(0.01), nn.Linear(8, img_dim), nn.Tanh())
        def forward(self, x):
            return self.gen(x)
    z_dim = 4; image_dim = 6; batch_size = 5
    disc = Discriminator(image_dim); gen = Generator(z_dim, image_dim)
    fixed_noise = torch.randn((batch_size, z_dim))
    opt_disc = optim.Adam(disc.parameters(), lr=3e-4); opt_gen = optim.Adam(gen.parameters(), lr=3e-4)
    criterion = nn.BCELoss()
    for batch_idx in range(3):
        real = torch.rand(batch_size, 1, 2, 3).view(-1, 6)
        noise = torch.randn(batch_size, z_dim); fake = gen(noise)
        disc_real = disc(real).view(-1); lossD_real = criterion(disc_real, torch.ones_like(disc_real))
        disc_fake = disc(fake).view(-1); lossD_fake = criterion(disc_fake, torch.zeros_like(disc_fake))
        lossD = (lossD_real + lossD_fake) / 2
        disc.zero_grad(); lossD.backward(retain_graph=True); opt_disc.step()
        output = disc(fake).view(-1); lossG = criterion(output, torch.ones_like(output))
        gen.zero_grad(); lossG.backward(); opt_gen.step()
        print(f"Batch {batch_idx} Loss D: {lossD:.4f}, loss G: {lossG:.4f}")
    with torch.no_grad():
        fake = gen(fixed_noise).reshape(-1, 1, 2, 3); print(fake[0])
    attempt(lambda: disc(fake).backward())
    # DCGAN
    def initialize_weights(model):
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d, nn.BatchNorm2d)):
                nn.init.normal_(m.weight.data, 0.0, 0.02)
    class Critic(nn.Module):
        def __init__(self, channels_img, features_d, norm):
            super().__init__()
            self.disc = nn.Sequential(
                nn.Conv2d(channels_img, features_d, kernel_size=4, stride=2, padding=1), nn.LeakyReLU(0.2),
                self._block(features_d, features_d * 2, 4, 2, 1, norm),
                nn.Conv2d(features_d * 2, 1, kernel_size=4, stride=2, padding=0))
        def _block(self, in_channels, out_channels, kernel_size, stride, padding, norm):
            return nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
                                 norm(out_channels), nn.LeakyReLU(0.2))
        def forward(self, x):
            return self.disc(x)
    class Gen(nn.Module):
        def __init__(self, channels_noise, channels_img, features_g):
            super().__init__()
            self.net = nn.Sequential(self._block(channels_noise, features_g * 4, 4, 1, 0), self._block(features_g * 4, features_g * 2, 4, 2, 1),
                                     nn.ConvTranspose2d(features_g * 2, channels_img, kernel_size=4, stride=2, padding=1), nn.Tanh())
        def _block(self, in_channels, out_channels, kernel_size, stride, padding):
            return nn.Sequential(nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
                                 nn.BatchNorm2d(out_channels), nn.ReLU())
        def forward(self, x):
            return self.net(x)
    def test():
        N, in_channels, H, W = 2, 1, 16, 16; noise_dim = 5
        x = torch.randn((N, in_channels, H, W))
        disc = Critic(in_channels, 4, nn.BatchNorm2d); print(disc(x).shape)
        assert disc(x).shape == (N, 1, 1, 1), "Discriminator test failed"
        gen = Gen(noise_dim, in_channels, 4); z = torch.randn((N, noise_dim, 1, 1)); print(gen(z).shape)
        assert gen(z).shape == (N, in_channels, H, W), "Generator test failed"
        print("Success, tests passed!")
    test()
    gen = Gen(5, 1, 4); critic = Critic(1, 4, lambda c: nn.InstanceNorm2d(c, affine=True))
    initialize_weights(gen); initialize_weights(critic)
    print(critic)
    opt_gen = optim.RMSprop(gen.parameters(), lr=5e-5); opt_critic = optim.RMSprop(critic.parameters(), lr=5e-5)
    for _ in range(2):
        real = torch.randn(3, 1, 16, 16)
        noise = torch.randn(3, 5, 1, 1); fake = gen(noise)
        critic_real = critic(real).reshape(-1); critic_fake = critic(fake).reshape(-1)
        loss_critic = -(torch.mean(critic_real) - torch.mean(critic_fake))
        critic.zero_grad(); loss_critic.backward(retain_graph=True); opt_critic.step()
        for p in critic.parameters():
            p.data.clamp_(-0.01, 0.01)
        gen_fake = critic(fake).reshape(-1); loss_gen = -torch.mean(gen_fake)
        gen.zero_grad(); loss_gen.backward(); opt_gen.step()
        print(loss_critic, loss_gen)
    def gradient_penalty(critic, real, fake, device="cpu"):
        BATCH_SIZE, C, H, W = real.shape
        alpha = torch.rand((BATCH_SIZE, 1, 1, 1)).repeat(1, C, H, W).to(device)
        interpolated_images = real * alpha + fake * (1 - alpha)
        mixed_scores = critic(interpolated_images)
        gradient = torch.autograd.grad(inputs=interpolated_images, outputs=mixed_scores,
                                       grad_outputs=torch.ones_like(mixed_scores), create_graph=True, retain_graph=True)[0]
        gradient = gradient.view(gradient.shape[0], -1)
        gradient_norm = gradient.norm(2, dim=1)
        return torch.mean((gradient_norm - 1) ** 2)
    opt_critic = optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
    real = torch.randn(3, 1, 16, 16); fake = gen(torch.randn(3, 5, 1, 1))
    gp = gradient_penalty(critic, real, fake)
    critic_real = critic(real).reshape(-1); critic_fake = critic(fake).reshape(-1)
    loss_critic = -(torch.mean(critic_real) - torch.mean(critic_fake)) + 10 * gp
    critic.zero_grad(); loss_critic.backward(retain_graph=True); opt_critic.step()
    print(gp, loss_critic, critic.disc[0].weight.grad.norm())

def persson_transformer_vae(torch):
    # Persson: transformer from scratch (einsum attention, masks) and the VAE with its loss
    nn = torch.nn
    torch.manual_seed(7)
    class SelfAttention(nn.Module):
        def __init__(self, embed_size, heads):
            super(SelfAttention, self).__init__()
            self.embed_size = embed_size; self.heads = heads; self.head_dim = embed_size // heads
            assert (self.head_dim * heads == embed_size), "Embedding size needs to be divisible by heads"
            self.values = nn.Linear(embed_size, embed_size); self.keys = nn.Linear(embed_size, embed_size)
            self.queries = nn.Linear(embed_size, embed_size); self.fc_out = nn.Linear(embed_size, embed_size)
        def forward(self, values, keys, query, mask):
            N = query.shape[0]
            value_len, key_len, query_len = values.shape[1], keys.shape[1], query.shape[1]
            values = self.values(values); keys = self.keys(keys); queries = self.queries(query)
            values = values.reshape(N, value_len, self.heads, self.head_dim)
            keys = keys.reshape(N, key_len, self.heads, self.head_dim)
            queries = queries.reshape(N, query_len, self.heads, self.head_dim)
            energy = torch.einsum("nqhd,nkhd->nhqk", [queries, keys])
            if mask is not None:
                energy = energy.masked_fill(mask == 0, float("-1e20"))
            attention = torch.softmax(energy / (self.embed_size ** (1 / 2)), dim=3)
            out = torch.einsum("nhql,nlhd->nqhd", [attention, values]).reshape(N, query_len, self.heads * self.head_dim)
            return self.fc_out(out)
    class TransformerBlock(nn.Module):
        def __init__(self, embed_size, heads, dropout, forward_expansion):
            super(TransformerBlock, self).__init__()
            self.attention = SelfAttention(embed_size, heads)
            self.norm1 = nn.LayerNorm(embed_size); self.norm2 = nn.LayerNorm(embed_size)
            self.feed_forward = nn.Sequential(nn.Linear(embed_size, forward_expansion * embed_size), nn.ReLU(),
                                              nn.Linear(forward_expansion * embed_size, embed_size))
            self.dropout = nn.Dropout(dropout)
        def forward(self, value, key, query, mask):
            attention = self.attention(value, key, query, mask)
            x = self.dropout(self.norm1(attention + query))
            forward = self.feed_forward(x)
            return self.dropout(self.norm2(forward + x))
    class Encoder(nn.Module):
        def __init__(self, src_vocab_size, embed_size, num_layers, heads, forward_expansion, dropout, max_length):
            super(Encoder, self).__init__()
            self.embed_size = embed_size
            self.word_embedding = nn.Embedding(src_vocab_size, embed_size)
            self.position_embedding = nn.Embedding(max_length, embed_size)
            self.layers = nn.ModuleList([TransformerBlock(embed_size, heads, dropout=dropout, forward_expansion=forward_expansion) for _ in range(num_layers)])
            self.dropout = nn.Dropout(dropout)
        def forward(self, x, mask):
            N, seq_length = x.shape
            positions = torch.arange(0, seq_length).expand(N, seq_length)
            out = self.dropout((self.word_embedding(x) + self.position_embedding(positions)))
            for layer in self.layers:
                out = layer(out, out, out, mask)
            return out
    src_pad_idx = 0
    x = torch.tensor([[1, 5, 6, 4, 3, 9, 5, 2, 0], [1, 8, 7, 3, 4, 5, 6, 7, 2]])
    trg = torch.tensor([[1, 7, 4, 3, 5, 9, 2, 0], [1, 5, 6, 2, 4, 7, 6, 2]])
    src_mask = (x != src_pad_idx).unsqueeze(1).unsqueeze(2); print(src_mask.shape, src_mask.dtype)
    N, trg_len = trg.shape
    trg_mask = torch.tril(torch.ones((trg_len, trg_len))).expand(N, 1, trg_len, trg_len); print(trg_mask.shape, trg_mask[0, 0, 2])
    enc = Encoder(10, 8, 2, 2, 2, 0.0, 20)
    out = enc(x, src_mask); print(out.shape, out[0, :2])
    attn = SelfAttention(8, 2)
    e = torch.randn(2, 8, 8)
    y = attn(e, e, e, trg_mask); y.sum().backward(); print(y[1, -1], attn.queries.weight.grad.norm())
    attempt(lambda: SelfAttention(8, 3))
    # VAE
    class VariationalAutoEncoder(nn.Module):
        def __init__(self, input_dim, h_dim=10, z_dim=2):
            super().__init__()
            self.img_2hid = nn.Linear(input_dim, h_dim); self.hid_2mu = nn.Linear(h_dim, z_dim); self.hid_2sigma = nn.Linear(h_dim, z_dim)
            self.z_2hid = nn.Linear(z_dim, h_dim); self.hid_2img = nn.Linear(h_dim, input_dim); self.relu = nn.ReLU()
        def encode(self, x):
            h = self.relu(self.img_2hid(x)); return self.hid_2mu(h), self.hid_2sigma(h)
        def decode(self, z):
            h = self.relu(self.z_2hid(z)); return torch.sigmoid(self.hid_2img(h))
        def forward(self, x):
            mu, sigma = self.encode(x)
            epsilon = torch.randn_like(sigma)
            z_new = mu + sigma * epsilon
            return self.decode(z_new), mu, sigma
    x = torch.rand(4, 12)
    vae = VariationalAutoEncoder(input_dim=12)
    x_reconstructed, mu, sigma = vae(x); print(x_reconstructed.shape, mu.shape, sigma.shape)
    optimizer = torch.optim.Adam(vae.parameters(), lr=3e-4); loss_fn = nn.BCELoss(reduction="sum")
    for _ in range(3):
        x_reconstructed, mu, sigma = vae(x)
        reconstruction_loss = loss_fn(x_reconstructed, x)
        kl_div = -torch.sum(1 + torch.log(sigma.pow(2)) - mu.pow(2) - sigma.pow(2))
        loss = reconstruction_loss + kl_div
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(reconstruction_loss, kl_div, loss.item())
    def inference(digit, num_examples=1):
        with torch.no_grad():
            mu, sigma = vae.encode(x[digit].view(1, 12))
        for example in range(num_examples):
            epsilon = torch.randn_like(sigma); z = mu + sigma * epsilon
            out = vae.decode(z); out = out.view(-1, 1, 3, 4); print(out.shape, out.requires_grad)
    inference(1, 2)

def persson_detection_utils(torch):
    # Persson: IoU, non-max suppression, mean average precision and the YOLOv1 loss
    nn = torch.nn
    from collections import Counter
    def intersection_over_union(boxes_preds, boxes_labels, box_format="midpoint"):
        if box_format == "midpoint":
            box1_x1 = boxes_preds[..., 0:1] - boxes_preds[..., 2:3] / 2; box1_y1 = boxes_preds[..., 1:2] - boxes_preds[..., 3:4] / 2
            box1_x2 = boxes_preds[..., 0:1] + boxes_preds[..., 2:3] / 2; box1_y2 = boxes_preds[..., 1:2] + boxes_preds[..., 3:4] / 2
            box2_x1 = boxes_labels[..., 0:1] - boxes_labels[..., 2:3] / 2; box2_y1 = boxes_labels[..., 1:2] - boxes_labels[..., 3:4] / 2
            box2_x2 = boxes_labels[..., 0:1] + boxes_labels[..., 2:3] / 2; box2_y2 = boxes_labels[..., 1:2] + boxes_labels[..., 3:4] / 2
        elif box_format == "corners":
            box1_x1 = boxes_preds[..., 0:1]; box1_y1 = boxes_preds[..., 1:2]; box1_x2 = boxes_preds[..., 2:3]; box1_y2 = boxes_preds[..., 3:4]
            box2_x1 = boxes_labels[..., 0:1]; box2_y1 = boxes_labels[..., 1:2]; box2_x2 = boxes_labels[..., 2:3]; box2_y2 = boxes_labels[..., 3:4]
        x1 = torch.max(box1_x1, box2_x1); y1 = torch.max(box1_y1, box2_y1)
        x2 = torch.min(box1_x2, box2_x2); y2 = torch.min(box1_y2, box2_y2)
        intersection = (x2 - x1).clamp(0) * (y2 - y1).clamp(0)
        box1_area = abs((box1_x2 - box1_x1) * (box1_y2 - box1_y1))
        box2_area = abs((box2_x2 - box2_x1) * (box2_y2 - box2_y1))
        return intersection / (box1_area + box2_area - intersection + 1e-6)
    t1 = torch.tensor([[0.8, 0.1, 0.2, 0.2]]); t2 = torch.tensor([[0.9, 0.2, 0.2, 0.2]])
    print(intersection_over_union(t1, t2), intersection_over_union(t1, t2, "corners"))
    print(intersection_over_union(torch.tensor([0, 0, 2, 2]), torch.tensor([1, 1, 3, 3]), "corners"))
    print(intersection_over_union(torch.tensor([2, 2, 3, 3]), torch.tensor([1, 1, 3, 3]), "corners").item())
    def non_max_suppression(bboxes, iou_threshold, threshold, box_format="corners"):
        assert type(bboxes) == list
        bboxes = [box for box in bboxes if box[1] > threshold]
        bboxes = sorted(bboxes, key=lambda x: x[1], reverse=True)
        bboxes_after_nms = []
        while bboxes:
            chosen_box = bboxes.pop(0)
            bboxes = [box for box in bboxes if box[0] != chosen_box[0]
                      or intersection_over_union(torch.tensor(chosen_box[2:]), torch.tensor(box[2:]), box_format=box_format) < iou_threshold]
            bboxes_after_nms.append(chosen_box)
        return bboxes_after_nms
    boxes = [[1, 1, 0.5, 0.45, 0.4, 0.5], [1, 0.8, 0.5, 0.5, 0.2, 0.4], [1, 0.7, 0.25, 0.35, 0.3, 0.1], [1, 0.05, 0.1, 0.1, 0.1, 0.1]]
    print(non_max_suppression(boxes, 7 / 20, 0.2, box_format="midpoint"))
    def mean_average_precision(pred_boxes, true_boxes, iou_threshold=0.5, box_format="midpoint", num_classes=2):
        average_precisions = []; epsilon = 1e-6
        for c in range(num_classes):
            detections = [d for d in pred_boxes if d[1] == c]; ground_truths = [t for t in true_boxes if t[1] == c]
            amount_bboxes = Counter([gt[0] for gt in ground_truths])
            for key, val in amount_bboxes.items():
                amount_bboxes[key] = torch.zeros(val)
            detections.sort(key=lambda x: x[2], reverse=True)
            TP = torch.zeros((len(detections))); FP = torch.zeros((len(detections)))
            total_true_bboxes = len(ground_truths)
            if total_true_bboxes == 0:
                continue
            for detection_idx, detection in enumerate(detections):
                ground_truth_img = [bbox for bbox in ground_truths if bbox[0] == detection[0]]
                best_iou = 0
                for idx, gt in enumerate(ground_truth_img):
                    iou = intersection_over_union(torch.tensor(detection[3:]), torch.tensor(gt[3:]), box_format=box_format)
                    if iou > best_iou:
                        best_iou = iou; best_gt_idx = idx
                if best_iou > iou_threshold:
                    if amount_bboxes[detection[0]][best_gt_idx] == 0:
                        TP[detection_idx] = 1; amount_bboxes[detection[0]][best_gt_idx] = 1
                    else:
                        FP[detection_idx] = 1
                else:
                    FP[detection_idx] = 1
            TP_cumsum = torch.cumsum(TP, dim=0); FP_cumsum = torch.cumsum(FP, dim=0)
            recalls = TP_cumsum / (total_true_bboxes + epsilon)
            precisions = TP_cumsum / (TP_cumsum + FP_cumsum + epsilon)
            precisions = torch.cat((torch.tensor([1]), precisions)); recalls = torch.cat((torch.tensor([0]), recalls))
            print(precisions, recalls, best_iou)
            average_precisions.append(torch.trapz(precisions, recalls))
        return sum(average_precisions) / len(average_precisions)
    targets = [[0, 0, 1, 0.55, 0.2, 0.3, 0.2], [0, 0, 1, 0.35, 0.6, 0.3, 0.2], [0, 1, 1, 0.8, 0.7, 0.2, 0.2]]
    preds = [[0, 0, 0.9, 0.55, 0.2, 0.3, 0.2], [0, 0, 0.8, 0.35, 0.6, 0.3, 0.2], [0, 1, 0.7, 0.8, 0.7, 0.2, 0.2], [0, 0, 0.6, 0.1, 0.1, 0.1, 0.1]]
    print(mean_average_precision(preds, targets))
    print(torch.trapz(torch.tensor([1, 2, 3]), torch.tensor([0.0, 0.5, 2.0])), torch.trapezoid(torch.tensor([1.0, 2, 4]), dx=0.5))
    # YOLOv1 loss on a 2x2 grid with 3 classes
    class YoloLoss(nn.Module):
        def __init__(self, S=2, B=2, C=3):
            super(YoloLoss, self).__init__()
            self.mse = nn.MSELoss(reduction="sum"); self.S = S; self.B = B; self.C = C
            self.lambda_noobj = 0.5; self.lambda_coord = 5
        def forward(self, predictions, target):
            C = self.C
            predictions = predictions.reshape(-1, self.S, self.S, self.C + self.B * 5)
            iou_b1 = intersection_over_union(predictions[..., C + 1:C + 5], target[..., C + 1:C + 5])
            iou_b2 = intersection_over_union(predictions[..., C + 6:C + 10], target[..., C + 1:C + 5])
            ious = torch.cat([iou_b1.unsqueeze(0), iou_b2.unsqueeze(0)], dim=0)
            iou_maxes, bestbox = torch.max(ious, dim=0)
            exists_box = target[..., C].unsqueeze(3)
            box_predictions = exists_box * ((bestbox * predictions[..., C + 6:C + 10] + (1 - bestbox) * predictions[..., C + 1:C + 5]))
            box_targets = exists_box * target[..., C + 1:C + 5]
            box_predictions[..., 2:4] = torch.sign(box_predictions[..., 2:4]) * torch.sqrt(torch.abs(box_predictions[..., 2:4] + 1e-6))
            box_targets[..., 2:4] = torch.sqrt(box_targets[..., 2:4])
            box_loss = self.mse(torch.flatten(box_predictions, end_dim=-2), torch.flatten(box_targets, end_dim=-2))
            pred_box = (bestbox * predictions[..., C + 5:C + 6] + (1 - bestbox) * predictions[..., C:C + 1])
            object_loss = self.mse(torch.flatten(exists_box * pred_box), torch.flatten(exists_box * target[..., C:C + 1]))
            no_object_loss = self.mse(torch.flatten((1 - exists_box) * predictions[..., C:C + 1], start_dim=1),
                                      torch.flatten((1 - exists_box) * target[..., C:C + 1], start_dim=1))
            no_object_loss += self.mse(torch.flatten((1 - exists_box) * predictions[..., C + 5:C + 6], start_dim=1),
                                       torch.flatten((1 - exists_box) * target[..., C:C + 1], start_dim=1))
            class_loss = self.mse(torch.flatten(exists_box * predictions[..., :C], end_dim=-2), torch.flatten(exists_box * target[..., :C], end_dim=-2))
            return self.lambda_coord * box_loss + object_loss + self.lambda_noobj * no_object_loss + class_loss
    torch.manual_seed(8)
    predictions = torch.randn(2, 2 * 2 * 13, requires_grad=True)
    target = torch.rand(2, 2, 2, 13); target[..., 3] = (target[..., 3] > 0.5).float()
    loss = YoloLoss()(predictions, target); loss.backward()
    print(loss, loss.grad_fn, predictions.grad.abs().sum())

def cs231n_pytorch(torch):
    # cs231n assignment 2 PyTorch.ipynb: barebones two-layer net and three-layer convnet with
    # hand-written init, then the Module and Sequential APIs
    nn = torch.nn; F = torch.nn.functional; optim = torch.optim
    USE_GPU = True; dtype = torch.float32
    device = torch.device('cuda') if USE_GPU and torch.cuda.is_available() else torch.device('cpu')
    print('using device:', device)
    torch.manual_seed(9)
    def flatten(x):
        N = x.shape[0]; return x.view(N, -1)
    def test_flatten():
        x = torch.arange(12).view(2, 1, 3, 2); print('Before flattening: ', x); print('After flattening: ', flatten(x))
    test_flatten()
    def two_layer_fc(x, params):
        x = flatten(x); w1, w2 = params; x = F.relu(x.mm(w1)); return x.mm(w2)
    def two_layer_fc_test():
        hidden_layer_size = 42
        x = torch.zeros((64, 50), dtype=dtype); w1 = torch.zeros((50, hidden_layer_size), dtype=dtype); w2 = torch.zeros((hidden_layer_size, 10), dtype=dtype)
        scores = two_layer_fc(x, [w1, w2]); print(scores.size())
    two_layer_fc_test()
    def three_layer_convnet(x, params):
        conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
        x = F.relu(F.conv2d(x, conv_w1, conv_b1, padding=2))
        x = F.relu(F.conv2d(x, conv_w2, conv_b2, padding=1))
        return flatten(x).mm(fc_w) + fc_b
    def three_layer_convnet_test():
        x = torch.zeros((64, 3, 8, 8), dtype=dtype)
        conv_w1 = torch.zeros((6, 3, 5, 5), dtype=dtype); conv_b1 = torch.zeros((6,))
        conv_w2 = torch.zeros((9, 6, 3, 3), dtype=dtype); conv_b2 = torch.zeros((9,))
        fc_w = torch.zeros((9 * 8 * 8, 10)); fc_b = torch.zeros(10)
        scores = three_layer_convnet(x, [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b]); print(scores.size())
    three_layer_convnet_test()
    def random_weight(shape):
        if len(shape) == 2:
            fan_in = shape[0]
        else:
            fan_in = np.prod(shape[1:])
        w = torch.randn(shape, device=device, dtype=dtype) * np.sqrt(2. / fan_in)
        w.requires_grad = True
        return w
    def zero_weight(shape):
        return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)
    print(random_weight((3, 5)))
    w = random_weight((2, 3, 2, 2)); print(w.dtype, w.is_leaf, w.grad_fn)
    xs = torch.randn(40, 3, 8, 8); ys = torch.randint(0, 10, (40,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=16)
    def check_accuracy_part2(loader, model_fn, params):
        num_correct, num_samples = 0, 0
        with torch.no_grad():
            for x, y in loader:
                x = x.to(device=device, dtype=dtype); y = y.to(device=device, dtype=torch.int64)
                scores = model_fn(x, params); _, preds = scores.max(1)
                num_correct += (preds == y).sum(); num_samples += preds.size(0)
            acc = float(num_correct) / num_samples
            print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))
    def train_part2(model_fn, params, learning_rate):
        for t, (x, y) in enumerate(loader):
            x = x.to(device=device, dtype=dtype); y = y.to(device=device, dtype=torch.long)
            scores = model_fn(x, params); loss = F.cross_entropy(scores, y)
            loss.backward()
            with torch.no_grad():
                for w in params:
                    w -= learning_rate * w.grad
                    w.grad.zero_()
            if t % 2 == 0:
                print('Iteration %d, loss = %.4f' % (t, loss.item()))
                check_accuracy_part2(loader, model_fn, params)
    w1 = random_weight((3 * 8 * 8, 20)); w2 = random_weight((20, 10))
    train_part2(two_layer_fc, [w1, w2], 1e-2)
    params = [random_weight((6, 3, 5, 5)), zero_weight((6,)), random_weight((9, 6, 3, 3)), zero_weight((9,)),
              random_weight((9 * 8 * 8, 10)), zero_weight((10,))]
    train_part2(three_layer_convnet, params, 3e-3)
    class TwoLayerFC(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes):
            super().__init__()
            self.fc1 = nn.Linear(input_size, hidden_size); nn.init.kaiming_normal_(self.fc1.weight)
            self.fc2 = nn.Linear(hidden_size, num_classes); nn.init.kaiming_normal_(self.fc2.weight)
        def forward(self, x):
            return self.fc2(F.relu(self.fc1(flatten(x))))
    class ThreeLayerConvNet(nn.Module):
        def __init__(self, in_channel, channel_1, channel_2, num_classes):
            super().__init__()
            self.conv1 = nn.Conv2d(in_channel, channel_1, 5, padding=2); nn.init.kaiming_normal_(self.conv1.weight); nn.init.zeros_(self.conv1.bias)
            self.conv2 = nn.Conv2d(channel_1, channel_2, 3, padding=1); nn.init.kaiming_normal_(self.conv2.weight); nn.init.zeros_(self.conv2.bias)
            self.fc = nn.Linear(channel_2 * 8 * 8, num_classes); nn.init.kaiming_normal_(self.fc.weight); nn.init.zeros_(self.fc.bias)
        def forward(self, x):
            return self.fc(flatten(F.relu(self.conv2(F.relu(self.conv1(x))))))
    x = torch.zeros((64, 3, 8, 8), dtype=dtype)
    print(TwoLayerFC(3 * 8 * 8, 42, 10)(x).size(), ThreeLayerConvNet(3, 12, 8, 10)(x).size())
    def check_accuracy_part34(loader, model):
        num_correct = 0; num_samples = 0; model.eval()
        with torch.no_grad():
            for x, y in loader:
                scores = model(x); _, preds = scores.max(1)
                num_correct += (preds == y).sum(); num_samples += preds.size(0)
            acc = float(num_correct) / num_samples
            print('Got %d / %d correct (%.2f)' % (num_correct, num_samples, 100 * acc))
    def train_part34(model, optimizer, epochs=1):
        model = model.to(device=device)
        for e in range(epochs):
            for t, (x, y) in enumerate(loader):
                model.train(); scores = model(x); loss = F.cross_entropy(scores, y)
                optimizer.zero_grad(); loss.backward(); optimizer.step()
                if t % 2 == 0:
                    print('Iteration %d, loss = %.4f' % (t, loss.item()))
                    check_accuracy_part34(loader, model); print()
    model = ThreeLayerConvNet(3, 6, 4, 10)
    train_part34(model, optim.SGD(model.parameters(), lr=3e-3))
    class Flatten(nn.Module):
        def forward(self, x):
            return flatten(x)
    model = nn.Sequential(Flatten(), nn.Linear(3 * 8 * 8, 20), nn.ReLU(), nn.Linear(20, 10))
    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
    train_part34(model, optimizer); print(model)
    model = nn.Sequential(nn.Conv2d(3, 6, 5, padding=2), nn.ReLU(), nn.Conv2d(6, 4, 3, padding=1), nn.ReLU(), Flatten(), nn.Linear(4 * 8 * 8, 10))
    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
    train_part34(model, optimizer)
    attempt(lambda: optim.SGD(model.parameters(), lr=1e-2, nesterov=True))

def dvgodoy_ch0_ch1(torch):
    # dvgodoy "Deep Learning with PyTorch Step-by-Step" chapters 0 and 1: gradient descent by
    # hand in NumPy, then tensors, autograd, the dynamic graph, optimizer and loss, nn models
    nn = torch.nn; optim = torch.optim
    true_b = 1; true_w = 2; N = 20
    torch.manual_seed(42)
    x = torch.rand(N, 1).double().numpy(); epsilon = (.1 * torch.randn(N, 1)).double().numpy()
    y = true_b + true_w * x + epsilon
    idx = np.arange(N); train_idx = idx[:int(N * .8)]; val_idx = idx[int(N * .8):]
    x_train, y_train = x[train_idx], y[train_idx]
    b = np.array([0.49671415]); w = np.array([-0.1382643])
    lr = 0.1
    for epoch in range(3):
        yhat = b + w * x_train; error = (yhat - y_train); loss = (error ** 2).mean()
        b_grad = 2 * error.mean(); w_grad = 2 * (x_train * error).mean()
        b = b - lr * b_grad; w = w - lr * w_grad
    print(b, w, loss)
    scalar = torch.tensor(3.14159); vector = torch.tensor([1, 2, 3])
    matrix = torch.ones((2, 3), dtype=torch.float); tensor = torch.randn((2, 3, 4), dtype=torch.float)
    print(scalar); print(vector); print(matrix); print(tensor)
    print(tensor.size(), tensor.shape); print(scalar.size(), scalar.shape)
    same_matrix = matrix.view(1, 6); same_matrix[0, 1] = 2.; print(matrix); print(same_matrix)
    different_matrix = matrix.new_tensor(matrix.view(1, 6)); different_matrix[0, 1] = 3.; print(matrix); print(different_matrix)
    another_matrix = matrix.view(1, 6).clone().detach(); another_matrix[0, 1] = 4.; print(matrix); print(another_matrix)
    x_train_tensor = torch.as_tensor(x_train); print(x_train.dtype, x_train_tensor.dtype)
    float_tensor = x_train_tensor.float(); print(float_tensor.dtype)
    dummy_array = np.array([1, 2, 3]); dummy_tensor = torch.as_tensor(dummy_array)
    dummy_array[1] = 0; print(dummy_tensor)
    print(dummy_tensor.numpy())
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    n_cudas = torch.cuda.device_count(); print(device, n_cudas)
    gpu_tensor = torch.as_tensor(x_train).to(device); print(gpu_tensor[0])
    back_to_numpy = gpu_tensor.cpu().numpy(); print(type(back_to_numpy))
    x_train_tensor = torch.as_tensor(x_train).float().to(device); y_train_tensor = torch.as_tensor(y_train).float().to(device)
    print(type(x_train), type(x_train_tensor), x_train_tensor.type())
    b = torch.randn(1, requires_grad=True, dtype=torch.float).to(device)
    print(b); print(b.grad)
    b = torch.randn(1, dtype=torch.float).to(device); w = torch.randn(1, dtype=torch.float).to(device)
    b.requires_grad_(); w.requires_grad_(); print(b, w)
    torch.manual_seed(42)
    b = torch.randn(1, requires_grad=True, dtype=torch.float, device=device)
    w = torch.randn(1, requires_grad=True, dtype=torch.float, device=device); print(b, w)
    yhat = b + w * x_train_tensor; error = (yhat - y_train_tensor); loss = (error ** 2).mean()
    loss.backward()
    print(error.requires_grad, yhat.requires_grad, b.requires_grad, w.requires_grad)
    print(y_train_tensor.requires_grad, x_train_tensor.requires_grad)
    print(b.grad, w.grad)
    b.grad.zero_(), w.grad.zero_()
    for epoch in range(3):
        yhat = b + w * x_train_tensor; error = (yhat - y_train_tensor); loss = (error ** 2).mean()
        loss.backward()
        with torch.no_grad():
            b -= lr * b.grad; w -= lr * w.grad
        b.grad.zero_(); w.grad.zero_()
    print(b, w)
    def bad_inplace():
        bb = torch.randn(1, requires_grad=True); (bb * 2).sum().backward(); bb -= lr * bb.grad
    attempt(bad_inplace)
    def bad_rebind():
        bb = torch.randn(1, requires_grad=True); (bb * 2).sum().backward(); bb = bb - lr * bb.grad; bb.grad.zero_()
    attempt(bad_rebind)
    print(loss.detach().cpu().numpy(), loss.tolist(), loss.item())
    attempt(lambda: loss.numpy())
    torch.manual_seed(42)
    b = torch.randn(1, requires_grad=True, dtype=torch.float, device=device)
    w = torch.randn(1, requires_grad=True, dtype=torch.float, device=device)
    optimizer = optim.SGD([b, w], lr=lr); loss_fn = nn.MSELoss(reduction='mean'); print(loss_fn)
    for epoch in range(3):
        yhat = b + w * x_train_tensor; loss = loss_fn(yhat, y_train_tensor); loss.backward(); optimizer.step(); optimizer.zero_grad()
    print(b, w, loss)
    class ManualLinearRegression(nn.Module):
        def __init__(self):
            super().__init__()
            self.b = nn.Parameter(torch.randn(1, requires_grad=True, dtype=torch.float))
            self.w = nn.Parameter(torch.randn(1, requires_grad=True, dtype=torch.float))
        def forward(self, x):
            return self.b + self.w * x
    torch.manual_seed(42)
    dummy = ManualLinearRegression(); print(list(dummy.parameters())); print(dummy.state_dict())
    print(optimizer.state_dict())
    class MyLinearRegression(nn.Module):
        def __init__(self):
            super().__init__(); self.linear = nn.Linear(1, 1)
        def forward(self, x):
            return self.linear(x)
    torch.manual_seed(42); dummy = MyLinearRegression().to(device); print(list(dummy.parameters()), dummy.state_dict())
    torch.manual_seed(42); model = nn.Sequential(nn.Linear(1, 1)).to(device); print(model.state_dict())
    model = nn.Sequential(); model.add_module('layer1', nn.Linear(3, 5)); model.add_module('layer2', nn.Linear(5, 1)); print(model)
    print(model.layer1, model[0] is model.layer1)

def dvgodoy_ch2_ch4(torch):
    # dvgodoy chapters 2-4: the train-step closure, TensorDataset/random_split/DataLoader, the
    # mini-batch loop, checkpoints, the StepByStep class, logistic regression losses and a
    # balanced sampler
    nn = torch.nn; optim = torch.optim; data = torch.utils.data; F = torch.nn.functional
    torch.manual_seed(13)
    x = torch.rand(40, 1); y = 1 + 2 * x + .1 * torch.randn(40, 1)
    def make_train_step_fn(model, loss_fn, optimizer):
        def perform_train_step_fn(x, y):
            model.train(); yhat = model(x); loss = loss_fn(yhat, y); loss.backward(); optimizer.step(); optimizer.zero_grad()
            return loss.item()
        return perform_train_step_fn
    def make_val_step_fn(model, loss_fn):
        def perform_val_step_fn(x, y):
            model.eval(); yhat = model(x); loss = loss_fn(yhat, y); return loss.item()
        return perform_val_step_fn
    def mini_batch(device, data_loader, step_fn):
        mini_batch_losses = []
        for x_batch, y_batch in data_loader:
            x_batch = x_batch.to(device); y_batch = y_batch.to(device)
            mini_batch_losses.append(step_fn(x_batch, y_batch))
        return np.mean(mini_batch_losses)
    dataset = data.TensorDataset(x, y); print(dataset[0])
    ratio = .8; n_total = len(dataset); n_train = int(n_total * ratio); n_val = n_total - n_train
    train_data, val_data = data.random_split(dataset, [n_train, n_val]); print(len(train_data), len(val_data), train_data.indices[:5])
    train_loader = data.DataLoader(dataset=train_data, batch_size=16, shuffle=True)
    val_loader = data.DataLoader(dataset=val_data, batch_size=16)
    print(next(iter(train_loader)))
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(1, 1)); optimizer = optim.SGD(model.parameters(), lr=0.1); loss_fn = nn.MSELoss(reduction='mean')
    train_step_fn = make_train_step_fn(model, loss_fn, optimizer); val_step_fn = make_val_step_fn(model, loss_fn)
    losses = []; val_losses = []
    for epoch in range(5):
        loss = mini_batch('cpu', train_loader, train_step_fn); losses.append(loss)
        with torch.no_grad():
            val_loss = mini_batch('cpu', val_loader, val_step_fn); val_losses.append(val_loss)
    print(model.state_dict(), losses[-1], val_losses[-1], type(losses[-1]))
    d = tempfile.mkdtemp()
    checkpoint = {'epoch': 5, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': optimizer.state_dict(), 'loss': losses, 'val_loss': val_losses}
    torch.save(checkpoint, os.path.join(d, 'model_checkpoint.pth'))
    attempt(lambda: torch.load(os.path.join(d, 'model_checkpoint.pth')))  # (NumPy float64 losses)
    checkpoint = torch.load(os.path.join(d, 'model_checkpoint.pth'), weights_only=False)
    model.load_state_dict(checkpoint['model_state_dict']); optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
    saved_epoch = checkpoint['epoch']; saved_losses = checkpoint['loss']; print(saved_epoch, saved_losses[:2], type(saved_losses[0]))
    new_data = torch.tensor([.5, .3, .7]).view(-1, 1); model.eval(); predictions = model(new_data); print(predictions)
    class StepByStep(object):
        def __init__(self, model, loss_fn, optimizer):
            self.model = model; self.loss_fn = loss_fn; self.optimizer = optimizer
            self.device = 'cuda' if torch.cuda.is_available() else 'cpu'; self.model.to(self.device)
            self.train_loader = None; self.val_loader = None; self.losses = []; self.val_losses = []; self.total_epochs = 0
            self.train_step_fn = self._make_train_step_fn(); self.val_step_fn = self._make_val_step_fn()
        def to(self, device):
            try:
                self.device = device; self.model.to(self.device)
            except RuntimeError:
                self.device = ('cuda' if torch.cuda.is_available() else 'cpu')
                print(f"Couldn't send it to {device}, sending it to {self.device} instead."); self.model.to(self.device)
        def set_loaders(self, train_loader, val_loader=None):
            self.train_loader = train_loader; self.val_loader = val_loader
        def _make_train_step_fn(self):
            return make_train_step_fn(self.model, self.loss_fn, self.optimizer)
        def _make_val_step_fn(self):
            return make_val_step_fn(self.model, self.loss_fn)
        def set_seed(self, seed=42):
            torch.backends.cudnn.deterministic = True; torch.backends.cudnn.benchmark = False
            torch.manual_seed(seed); np.random.seed(seed)
            try:
                self.train_loader.sampler.generator.manual_seed(seed)
            except AttributeError:
                pass
        def train(self, n_epochs, seed=42):
            self.set_seed(seed)
            for epoch in range(n_epochs):
                self.total_epochs += 1
                self.losses.append(mini_batch(self.device, self.train_loader, self.train_step_fn))
                with torch.no_grad():
                    self.val_losses.append(mini_batch(self.device, self.val_loader, self.val_step_fn))
        def predict(self, x):
            self.model.eval(); x_tensor = torch.as_tensor(x).float(); y_hat_tensor = self.model(x_tensor.to(self.device))
            self.model.train(); return y_hat_tensor.detach().cpu().numpy()
        def count_parameters(self):
            return sum(p.numel() for p in self.model.parameters() if p.requires_grad)
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(1, 1)); optimizer = optim.SGD(model.parameters(), lr=0.1)
    sbs = StepByStep(model, nn.MSELoss(reduction='mean'), optimizer); sbs.to('cuda:7' if False else 'cpu')
    sbs.set_loaders(train_loader, val_loader); sbs.train(n_epochs=4)
    print(model.state_dict(), sbs.total_epochs, sbs.predict(np.array([[.5], [.3]])), sbs.count_parameters())
    attempt(lambda: nn.Linear(1, 1).to('cuda'))
    # chapter 3: logistic regression
    def sigmoid(z): return 1 / (1 + np.exp(-z))
    def odds_ratio(prob): return prob / (1 - prob)
    def log_odds_ratio(prob): return np.log(odds_ratio(prob))
    p = .75; q = 1 - p; print(odds_ratio(p), odds_ratio(q), log_odds_ratio(p), log_odds_ratio(q))
    print(sigmoid(log_odds_ratio(p)), torch.sigmoid(torch.tensor(1.0986)))
    dummy_labels = torch.tensor([1.0, 0.0]); dummy_predictions = torch.tensor([.9, .2])
    positive_pred = dummy_predictions[dummy_labels == 1]; first_summation = torch.log(positive_pred).sum()
    negative_pred = dummy_predictions[dummy_labels == 0]; second_summation = torch.log(1 - negative_pred).sum()
    n_total = dummy_labels.size(0); loss = -(first_summation + second_summation) / n_total; print(loss)
    summation = torch.sum(dummy_labels * torch.log(dummy_predictions) + (1 - dummy_labels) * torch.log(1 - dummy_predictions)); print(-summation / n_total)
    loss_fn = nn.BCELoss(reduction='mean'); print(loss_fn)
    print(loss_fn(dummy_predictions, dummy_labels)); print(loss_fn(dummy_labels, dummy_predictions))
    logit1 = log_odds_ratio(.9); logit2 = log_odds_ratio(.2)
    dummy_logits = torch.tensor([logit1, logit2]); print(dummy_logits, dummy_logits.dtype)
    loss_fn_logits = nn.BCEWithLogitsLoss(reduction='mean'); print(loss_fn_logits(dummy_logits, dummy_labels))
    dummy_imb_labels = torch.tensor([1.0, 0.0, 0.0, 0.0]); dummy_imb_logits = torch.tensor([logit1, logit2, logit2, logit2])
    n_neg = (dummy_imb_labels == 0).sum().float(); n_pos = (dummy_imb_labels == 1).sum().float()
    pos_weight = (n_neg / n_pos).view(1,); print(pos_weight)
    loss_fn_imb = nn.BCEWithLogitsLoss(reduction='mean', pos_weight=pos_weight); print(loss_fn_imb(dummy_imb_logits, dummy_imb_labels))
    loss_fn_imb_sum = nn.BCEWithLogitsLoss(reduction='sum', pos_weight=pos_weight)
    loss = loss_fn_imb_sum(dummy_imb_logits, dummy_imb_labels); loss = loss / (pos_weight * n_pos + n_neg); print(loss)
    attempt(lambda: loss_fn(dummy_logits, dummy_labels))
    attempt(lambda: nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0]))(dummy_imb_logits, dummy_imb_labels))
    # chapter 4: balanced sampler and a flattening model
    ys = torch.tensor([0, 1, 1, 1, 0, 1, 1, 1, 1, 1]).view(-1, 1).float()
    def make_balanced_sampler(y):
        classes, counts = y.unique(return_counts=True)
        weights = 1.0 / counts.float()
        sample_weights = weights[y.squeeze().long()]
        generator = torch.Generator()
        sampler = data.WeightedRandomSampler(weights=sample_weights, num_samples=len(sample_weights), generator=generator, replacement=True)
        return sampler
    sampler = make_balanced_sampler(ys); sampler.generator.manual_seed(42)
    print(list(sampler), sampler.weights)
    loader = data.DataLoader(data.TensorDataset(torch.arange(10).float().view(-1, 1), ys), batch_size=5, sampler=sampler)
    print(torch.tensor([t[1].sum() for t in iter(loader)]).sum())
    torch.manual_seed(17)
    model_nn = nn.Sequential(); model_nn.add_module('flatten', nn.Flatten())
    model_nn.add_module('hidden0', nn.Linear(25, 5, bias=False)); model_nn.add_module('activation0', nn.Sigmoid())
    model_nn.add_module('hidden1', nn.Linear(5, 3, bias=False)); model_nn.add_module('activation1', nn.Sigmoid())
    model_nn.add_module('output', nn.Linear(3, 1, bias=False)); model_nn.add_module('sigmoid', nn.Sigmoid())
    images = torch.rand(4, 1, 5, 5); print(model_nn(images), model_nn)
    w_nn_hidden0 = model_nn.hidden0.weight.detach(); w_nn_output = model_nn.output.weight.detach()
    print(w_nn_hidden0.shape, w_nn_output.shape)
    def normalize(x, mean, std):
        return (x - torch.as_tensor(mean).view(-1, 1, 1)) / torch.as_tensor(std).view(-1, 1, 1)
    print(normalize(images[0], (.5,), (.5,)))
    print(torch.as_tensor([.5]).dtype, torch.as_tensor((.5,), dtype=torch.float64).dtype)

def nlp_bow_crf(torch):
    # pytorch/tutorials beginner_source/nlp: PyTorch basics, deep learning building blocks, the
    # bag-of-words classifier, a CBOW model and the BiLSTM-CRF (forward algorithm, Viterbi)
    nn = torch.nn; F = torch.nn.functional; optim = torch.optim
    torch.manual_seed(1)
    V_data = [1., 2., 3.]; V = torch.tensor(V_data); print(V)
    M_data = [[1., 2., 3.], [4., 5., 6]]; M = torch.tensor(M_data); print(M)
    T_data = [[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]]; T = torch.tensor(T_data); print(T)
    print(V[0], V[0].item(), M[0], T[0])
    x = torch.randn((3, 4, 5)); print(x)
    x = torch.tensor([1., 2., 3.]); y = torch.tensor([4., 5., 6.]); z = x + y; print(z)
    x_1 = torch.randn(2, 5); y_1 = torch.randn(3, 5); z_1 = torch.cat([x_1, y_1]); print(z_1)
    x_2 = torch.randn(2, 3); y_2 = torch.randn(2, 5); z_2 = torch.cat([x_2, y_2], 1); print(z_2)
    attempt(lambda: torch.cat([x_1, x_2]))
    x = torch.randn(2, 3, 4); print(x); print(x.view(2, 12)); print(x.view(2, -1))
    x = torch.tensor([1., 2., 3], requires_grad=True); y = torch.tensor([4., 5., 6], requires_grad=True)
    z = x + y; print(z); print(z.grad_fn)
    s = z.sum(); print(s); print(s.grad_fn)
    s.backward(); print(x.grad)
    x = torch.randn(2, 2); y = torch.randn(2, 2)
    print(x.requires_grad, y.requires_grad); z = x + y; print(z.grad_fn)
    x = x.requires_grad_(); y = y.requires_grad_(); z = x + y; print(z.grad_fn); print(z.requires_grad)
    new_z = z.detach(); print(new_z.grad_fn)
    print(x.requires_grad); print((x ** 2).requires_grad)
    with torch.no_grad():
        print((x ** 2).requires_grad)
    lin = nn.Linear(5, 3); data = torch.randn(2, 5); print(lin(data))
    data = torch.randn(2, 2); print(data); print(F.relu(data))
    data = torch.randn(5); print(data); print(F.softmax(data, dim=0)); print(F.softmax(data, dim=0).sum()); print(F.log_softmax(data, dim=0))
    data = [("me gusta comer en la cafeteria".split(), "SPANISH"), ("Give it to me".split(), "ENGLISH"),
            ("No creo que sea una buena idea".split(), "SPANISH"), ("No it is not a good idea to get lost at sea".split(), "ENGLISH")]
    test_data = [("Yo creo que si".split(), "SPANISH"), ("it is lost on me".split(), "ENGLISH")]
    word_to_ix = {}
    for sent, _ in data + test_data:
        for word in sent:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    VOCAB_SIZE = len(word_to_ix); NUM_LABELS = 2
    class BoWClassifier(nn.Module):
        def __init__(self, num_labels, vocab_size):
            super(BoWClassifier, self).__init__(); self.linear = nn.Linear(vocab_size, num_labels)
        def forward(self, bow_vec):
            return F.log_softmax(self.linear(bow_vec), dim=1)
    def make_bow_vector(sentence, word_to_ix):
        vec = torch.zeros(len(word_to_ix))
        for word in sentence:
            vec[word_to_ix[word]] += 1
        return vec.view(1, -1)
    def make_target(label, label_to_ix):
        return torch.LongTensor([label_to_ix[label]])
    model = BoWClassifier(NUM_LABELS, VOCAB_SIZE)
    for param in model.parameters():
        print(param)
    with torch.no_grad():
        sample = data[0]; bow_vector = make_bow_vector(sample[0], word_to_ix); log_probs = model(bow_vector); print(log_probs)
    label_to_ix = {"SPANISH": 0, "ENGLISH": 1}
    with torch.no_grad():
        for instance, label in test_data:
            print(model(make_bow_vector(instance, word_to_ix)))
    print(next(model.parameters())[:, word_to_ix["creo"]])
    loss_function = nn.NLLLoss(); optimizer = optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(20):
        for instance, label in data:
            model.zero_grad()
            bow_vec = make_bow_vector(instance, word_to_ix); target = make_target(label, label_to_ix)
            loss = loss_function(model(bow_vec), target); loss.backward(); optimizer.step()
    with torch.no_grad():
        for instance, label in test_data:
            print(model(make_bow_vector(instance, word_to_ix)))
    print(next(model.parameters())[:, word_to_ix["creo"]], make_target("ENGLISH", label_to_ix).type())
    # CBOW
    CONTEXT_SIZE = 2
    raw_text = """We are about to study the idea of a computational process. Computational processes are abstract beings that inhabit computers.""".split()
    vocab = sorted(set(raw_text)); word_to_ix = {word: i for i, word in enumerate(vocab)}
    cbow_data = []
    for i in range(CONTEXT_SIZE, len(raw_text) - CONTEXT_SIZE):
        context = ([raw_text[i - j - 1] for j in range(CONTEXT_SIZE)] + [raw_text[i + j + 1] for j in range(CONTEXT_SIZE)])
        cbow_data.append((context, raw_text[i]))
    print(cbow_data[:2])
    class CBOW(nn.Module):
        def __init__(self, vocab_size, embedding_dim):
            super().__init__(); self.embeddings = nn.Embedding(vocab_size, embedding_dim); self.linear = nn.Linear(embedding_dim, vocab_size)
        def forward(self, inputs):
            embeds = self.embeddings(inputs).sum(dim=0).view(1, -1); return F.log_softmax(self.linear(embeds), dim=1)
    def make_context_vector(context, word_to_ix):
        return torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)
    model = CBOW(len(vocab), 6); optimizer = optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(3):
        total_loss = 0
        for context, target in cbow_data:
            model.zero_grad(); log_probs = model(make_context_vector(context, word_to_ix))
            loss = F.nll_loss(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long)); loss.backward(); optimizer.step()
            total_loss += loss.item()
        print(total_loss)
    # BiLSTM-CRF
    def argmax(vec):
        _, idx = torch.max(vec, 1); return idx.item()
    def prepare_sequence(seq, to_ix):
        return torch.tensor([to_ix[w] for w in seq], dtype=torch.long)
    def log_sum_exp(vec):
        max_score = vec[0, argmax(vec)]
        max_score_broadcast = max_score.view(1, -1).expand(1, vec.size()[1])
        return max_score + torch.log(torch.sum(torch.exp(vec - max_score_broadcast)))
    START_TAG = "<START>"; STOP_TAG = "<STOP>"
    class BiLSTM_CRF(nn.Module):
        def __init__(self, vocab_size, tag_to_ix, embedding_dim, hidden_dim):
            super(BiLSTM_CRF, self).__init__()
            self.embedding_dim = embedding_dim; self.hidden_dim = hidden_dim; self.vocab_size = vocab_size
            self.tag_to_ix = tag_to_ix; self.tagset_size = len(tag_to_ix)
            self.word_embeds = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, num_layers=1, bidirectional=True)
            self.hidden2tag = nn.Linear(hidden_dim, self.tagset_size)
            self.transitions = nn.Parameter(torch.randn(self.tagset_size, self.tagset_size))
            self.transitions.data[tag_to_ix[START_TAG], :] = -10000
            self.transitions.data[:, tag_to_ix[STOP_TAG]] = -10000
            self.hidden = self.init_hidden()
        def init_hidden(self):
            return (torch.randn(2, 1, self.hidden_dim // 2), torch.randn(2, 1, self.hidden_dim // 2))
        def _forward_alg(self, feats):
            init_alphas = torch.full((1, self.tagset_size), -10000.)
            init_alphas[0][self.tag_to_ix[START_TAG]] = 0.
            forward_var = init_alphas
            for feat in feats:
                alphas_t = []
                for next_tag in range(self.tagset_size):
                    emit_score = feat[next_tag].view(1, -1).expand(1, self.tagset_size)
                    trans_score = self.transitions[next_tag].view(1, -1)
                    next_tag_var = forward_var + trans_score + emit_score
                    alphas_t.append(log_sum_exp(next_tag_var).view(1))
                forward_var = torch.cat(alphas_t).view(1, -1)
            terminal_var = forward_var + self.transitions[self.tag_to_ix[STOP_TAG]]
            return log_sum_exp(terminal_var)
        def _get_lstm_features(self, sentence):
            self.hidden = self.init_hidden()
            embeds = self.word_embeds(sentence).view(len(sentence), 1, -1)
            lstm_out, self.hidden = self.lstm(embeds, self.hidden)
            lstm_out = lstm_out.view(len(sentence), self.hidden_dim)
            return self.hidden2tag(lstm_out)
        def _score_sentence(self, feats, tags):
            score = torch.zeros(1)
            tags = torch.cat([torch.tensor([self.tag_to_ix[START_TAG]], dtype=torch.long), tags])
            for i, feat in enumerate(feats):
                score = score + self.transitions[tags[i + 1], tags[i]] + feat[tags[i + 1]]
            return score + self.transitions[self.tag_to_ix[STOP_TAG], tags[-1]]
        def _viterbi_decode(self, feats):
            backpointers = []
            init_vvars = torch.full((1, self.tagset_size), -10000.)
            init_vvars[0][self.tag_to_ix[START_TAG]] = 0
            forward_var = init_vvars
            for feat in feats:
                bptrs_t = []; viterbivars_t = []
                for next_tag in range(self.tagset_size):
                    next_tag_var = forward_var + self.transitions[next_tag]
                    best_tag_id = argmax(next_tag_var)
                    bptrs_t.append(best_tag_id); viterbivars_t.append(next_tag_var[0][best_tag_id].view(1))
                forward_var = (torch.cat(viterbivars_t) + feat).view(1, -1)
                backpointers.append(bptrs_t)
            terminal_var = forward_var + self.transitions[self.tag_to_ix[STOP_TAG]]
            best_tag_id = argmax(terminal_var); path_score = terminal_var[0][best_tag_id]
            best_path = [best_tag_id]
            for bptrs_t in reversed(backpointers):
                best_tag_id = bptrs_t[best_tag_id]; best_path.append(best_tag_id)
            start = best_path.pop()
            assert start == self.tag_to_ix[START_TAG]
            best_path.reverse()
            return path_score, best_path
        def neg_log_likelihood(self, sentence, tags):
            feats = self._get_lstm_features(sentence)
            return self._forward_alg(feats) - self._score_sentence(feats, tags)
        def forward(self, sentence):
            return self._viterbi_decode(self._get_lstm_features(sentence))
    training_data = [("the wall street journal reported today that apple corporation made money".split(), "B I I I O O O B I O O".split()),
                     ("georgia tech is a university in georgia".split(), "B I O O O O B".split())]
    word_to_ix = {}
    for sentence, tags in training_data:
        for word in sentence:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    tag_to_ix = {"B": 0, "I": 1, "O": 2, START_TAG: 3, STOP_TAG: 4}
    model = BiLSTM_CRF(len(word_to_ix), tag_to_ix, 5, 4)
    optimizer = optim.SGD(model.parameters(), lr=0.01, weight_decay=1e-4)
    with torch.no_grad():
        precheck_sent = prepare_sequence(training_data[0][0], word_to_ix)
        precheck_tags = torch.tensor([tag_to_ix[t] for t in training_data[0][1]], dtype=torch.long)
        print(model(precheck_sent))
    for epoch in range(4):
        for sentence, tags in training_data:
            model.zero_grad()
            sentence_in = prepare_sequence(sentence, word_to_ix); targets = torch.tensor([tag_to_ix[t] for t in tags], dtype=torch.long)
            loss = model.neg_log_likelihood(sentence_in, targets); loss.backward(); optimizer.step()
        print(loss, loss.grad_fn)
    with torch.no_grad():
        print(model(prepare_sequence(training_data[0][0], word_to_ix)))
    print(model.transitions)

def strides_and_graphs(torch):
    # ezyang's "PyTorch internals" strides/storage examples and autograd-graph walkthroughs
    # (next_functions, AccumulateGrad, saved tensors, hooks on nodes)
    x = torch.arange(12).view(3, 4)
    print(x.stride(), x.storage_offset(), x.is_contiguous(), x.shape)
    row = x[1, :]; print(row, row.stride(), row.storage_offset())
    col = x[:, 1]; print(col, col.stride(), col.storage_offset(), col.is_contiguous())
    t = x.t(); print(t.stride(), t.is_contiguous(), t.contiguous().stride())
    print(x.untyped_storage().nbytes(), x.element_size(), x.nelement(), x.untyped_storage().size())
    print(row.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), row.data_ptr() - x.data_ptr())
    attempt(lambda: t.view(-1))
    print(t.reshape(-1), x[:, ::2].stride(), x[::2, 1:].storage_offset(), x.unsqueeze(1).stride(), x.expand(2, 3, 4).stride())
    print(torch.as_strided(x, (2, 2), (1, 2)), x.as_strided((3,), (5,), 1))
    print(x.flip(0).stride(), x.narrow(1, 1, 2).stride(), x.narrow(1, 1, 2).storage_offset())
    s = x.storage(); print(type(s).__name__, s.size(), s.dtype, s[5], len(s))
    y = torch.empty(0); y.set_(x.untyped_storage(), 2, (2, 3), (3, 1)); print(y)
    z = torch.zeros(4, 4)[1:3, 1:3]; print(z.stride(), z.storage_offset(), z.contiguous().storage_offset())
    print(x.view(2, 6).stride(), x.view(torch.int32).shape if False else x.dtype, x.T.mT.stride())
    a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True)
    c = a * b; d = c.exp(); e = d + a
    print(c.grad_fn, c.grad_fn.next_functions, d.grad_fn.next_functions[0][0] is c.grad_fn)
    acc = c.grad_fn.next_functions[0][0]; print(type(acc).__name__, acc.name(), acc.variable is a)
    print(c.grad_fn._saved_self, c.grad_fn._saved_other, d.grad_fn._saved_result, e.grad_fn.next_functions)
    print(e.grad_fn._saved_alpha if hasattr(e.grad_fn, '_saved_alpha') else None)
    f = a * 3; print(f.grad_fn.next_functions, f.grad_fn._saved_other, f.grad_fn._saved_self)
    g = a.sin(); print(g.grad_fn._saved_self, g.grad_fn.name(), g.grad_fn.metadata)
    calls = []
    h1 = c.grad_fn.register_hook(lambda gi, go: calls.append(("post", len(gi), len(go))))
    h2 = c.grad_fn.register_prehook(lambda go: calls.append(("pre", go[0].item())))
    e.backward(retain_graph=True); print(calls, a.grad, b.grad)
    h1.remove(); h2.remove(); e.backward(); print(len(calls), a.grad)
    attempt(lambda: c.grad_fn._saved_self)
    w = torch.randn(3, requires_grad=True); v = w.view(3)
    print(v.grad_fn, v._base is w, v._version, w.is_leaf, v.is_leaf)
    v2 = w[0:2]; print(v2.grad_fn, v2.grad_fn.next_functions)
    n = (w * 2).sum(); print(n.grad_fn, n.grad_fn.next_functions[0][0], n.grad_fn.next_functions[0][0].next_functions)
    def walk(fn, depth=0):
        if fn is None:
            return
        print(" " * depth + type(fn).__name__)
        for nxt, _ in fn.next_functions:
            walk(nxt, depth + 1)
    walk(e.grad_fn)
    m = torch.nn.Linear(2, 1); out = m(torch.ones(1, 2)).sum(); walk(out.grad_fn)
    print(m.weight.grad_fn, m.weight.is_leaf, out.grad_fn.next_functions[0][0]._saved_self if False else None)

def compile_intro(torch):
    # pytorch/tutorials "Introduction to torch.compile": functions, decorators, nested calls,
    # modules (torch.compile(mod) and mod.compile()), graph breaks, fullgraph, modes and
    # backends, a training loop (KNOWN: torch's compiled outputs hang off one
    # CompiledFunctionBackward node, leafgrad's replay rebuilds the eager graph; the results
    # are printed detached; the eager backend, as inductor's first compile takes seconds)
    eager = "eager"
    def foo(x, y):
        a = torch.sin(x); b = torch.cos(y); return a + b
    torch.manual_seed(0)
    opt_foo1 = torch.compile(foo, backend=eager)
    print(opt_foo1(torch.randn(3, 3), torch.randn(3, 3)))
    @torch.compile(backend=eager)
    def opt_foo2(x, y):
        a = torch.sin(x); b = torch.cos(y); return a + b
    print(opt_foo2(torch.randn(3, 3), torch.randn(3, 3)))
    def inner(x): return torch.sin(x)
    @torch.compile(backend=eager)
    def outer(x, y):
        a = inner(x); b = torch.cos(y); return a + b
    print(outer(torch.randn(3, 3), torch.randn(3, 3)))
    class MyModule(torch.nn.Module):
        def __init__(self):
            super().__init__(); self.lin = torch.nn.Linear(3, 3)
        def forward(self, x):
            return torch.nn.functional.relu(self.lin(x))
    mod = MyModule(); print(mod.compile(backend=eager))
    for _ in range(2):
        print(mod(torch.randn(3, 3)).detach(), mod, list(mod.state_dict()))
    opt_mod = torch.compile(MyModule(), backend=eager); print(type(opt_mod).__name__, opt_mod(torch.randn(3, 3)).detach())
    print(opt_mod)
    print(isinstance(opt_mod, torch.nn.Module), list(opt_mod.state_dict().keys()))
    def bar(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b
    opt_bar = torch.compile(bar, backend=eager)
    inp1 = torch.ones(3); inp2 = torch.ones(3)
    for _ in range(2):
        print(opt_bar(inp1, inp2), opt_bar(inp1, -inp2))
    def bar2(a, b):
        if b.sum() < 0:
            b = b * -1
        return a * b
    # (fullgraph=True raising at bar2's branch: test_fullgraph_data_dependent_branch_error_as_
    # torch, which runs torch's side in a process of its own: after that error torch's dynamo
    # leaves two more references to the locals of every frame the process runs afterwards,
    # which the reference-count tests of leafgrad's engine would then see)
    print(callable(torch.compile(bar2, fullgraph=True, backend=eager)))
    torch._dynamo.reset(); torch.compiler.reset()
    print(callable(torch.compile(foo, mode="reduce-overhead")), callable(torch.compile(foo, mode="max-autotune-no-cudagraphs", dynamic=True)))
    print(callable(torch.compile(foo, options={"max_autotune": True})), callable(torch.compile(foo, mode="nonsense", backend="eager")))
    attempt(lambda: torch.compile(foo, mode="nonsense"))
    attempt(lambda: torch.compile(foo, backend="nonsense"))
    attempt(lambda: torch.compile(foo, mode="default", options={}))
    print(torch.compile(foo, backend="eager")(inp1, inp2), torch.compile(foo, backend="aot_eager")(inp1, inp2))
    @torch.compiler.disable
    def f2(x): return x + 1
    print(f2(inp1), torch.compiler.is_compiling())
    model = torch.nn.Sequential(torch.nn.Linear(3, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cm = torch.compile(model, backend=eager)
    for _ in range(3):
        loss = cm(torch.ones(4, 3)).sum(); loss.backward(); opt.step(); opt.zero_grad()
    print(loss.detach(), loss.requires_grad, model[0].weight)
    @torch.compile(backend=eager)
    def train_step(x):
        return torch.nn.functional.mse_loss(model(x), torch.zeros(4, 2))
    for _ in range(2):
        l = train_step(torch.ones(4, 3)); l.backward(); print(l.detach(), model[0].weight.grad)

def persson_tensor_basics(torch):
    # Persson pytorch_tensorbasics.py: initialising, converting, math, indexing, reshaping; and
    # pytorch_std_mean's per-channel mean and std of a loader
    torch.manual_seed(10)
    my_tensor = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float32, device="cpu", requires_grad=True)
    print(my_tensor); print(my_tensor.dtype); print(my_tensor.device); print(my_tensor.shape); print(my_tensor.requires_grad)
    x = torch.zeros((3, 3)); x = torch.rand((3, 3)); print(x)
    x = torch.ones((3, 3)); x = torch.eye(5, 5); print(x)
    x = torch.arange(start=0, end=5, step=1); print(x)
    x = torch.linspace(start=0.1, end=1, steps=10); print(x)
    x = torch.empty(size=(1, 5)).normal_(mean=0, std=1); print(x)
    x = torch.empty(size=(1, 5)).uniform_(0, 1); print(x)
    x = torch.diag(torch.ones(3)); print(x)
    tensor = torch.arange(4)
    print(tensor.bool(), tensor.short(), tensor.long(), tensor.half(), tensor.float(), tensor.double())
    np_array = np.zeros((5, 5)); tensor = torch.from_numpy(np_array); np_array_again = tensor.numpy(); print(tensor.dtype, np_array_again.dtype)
    x = torch.tensor([1, 2, 3]); y = torch.tensor([9, 8, 7])
    z1 = torch.empty(3); torch.add(x, y, out=z1); print(z1)
    z2 = torch.add(x, y); z = x + y; z = x - y; print(z)
    z = torch.true_divide(x, y); print(z)
    t = torch.zeros(3); t.add_(x); t += x; print(t)
    z = x.pow(2); z = x ** 2; print(z)
    z = x > 0; z = x < 0; print(z)
    x1 = torch.rand((2, 5)); x2 = torch.rand((5, 3)); x3 = torch.mm(x1, x2); x3 = x1.mm(x2); print(x3)
    matrix_exp = torch.rand(5, 5); print(matrix_exp.matrix_power(3))
    z = x * y; print(z)
    z = torch.dot(x, y); print(z)
    batch = 4; n = 5; m = 6; p = 7
    tensor1 = torch.rand((batch, n, m)); tensor2 = torch.rand((batch, m, p)); out_bmm = torch.bmm(tensor1, tensor2); print(out_bmm.shape)
    x1 = torch.rand((5, 5)); x2 = torch.rand((1, 5)); z = x1 - x2; z = x1 ** x2; print(z)
    sum_x = torch.sum(x, dim=0); values, indices = torch.max(x, dim=0); values, indices = torch.min(x, dim=0)
    abs_x = torch.abs(x); z = torch.argmax(x, dim=0); z = torch.argmin(x, dim=0); print(sum_x, values, indices, abs_x, z)
    mean_x = torch.mean(x.float(), dim=0); print(mean_x)
    attempt(lambda: torch.mean(x, dim=0))
    z = torch.eq(x, y); print(z)
    sorted_y, indices = torch.sort(y, dim=0, descending=False); print(sorted_y, indices)
    z = torch.clamp(x, min=0); print(z)
    x = torch.tensor([1, 0, 1, 1, 1], dtype=torch.bool); z = torch.any(x); z2 = torch.all(x); print(z, z2)
    batch_size = 10; features = 25; x = torch.rand((batch_size, features))
    print(x[0].shape); print(x[:, 0].shape); print(x[2, 0:10].shape)
    x[0, 0] = 100
    x = torch.arange(10); indices = [2, 5, 8]; print(x[indices])
    x = torch.rand((3, 5)); rows = torch.tensor([1, 0]); cols = torch.tensor([4, 0]); print(x[rows, cols])
    x = torch.arange(10); print(x[(x < 2) | (x > 8)]); print(x[x.remainder(2) == 0])
    print(torch.where(x > 5, x, x * 2))
    x = torch.tensor([0, 0, 1, 2, 2, 3, 4]).unique(); print(x)
    print(torch.arange(10).ndimension(), torch.arange(10).numel())
    x = torch.arange(9); x_3x3 = x.view(3, 3); x_3x3 = x.reshape(3, 3)
    y = x_3x3.t(); print(y.is_contiguous(), y.contiguous().view(9))
    attempt(lambda: y.view(9))
    x1 = torch.rand(2, 5); x2 = torch.rand(2, 5)
    print(torch.cat((x1, x2), dim=0).shape); print(torch.cat((x1, x2), dim=1).shape)
    z = x1.view(-1); print(z.shape)
    batch = 64; x = torch.rand((batch, 2, 5)); z = x.view(batch, -1); print(z.shape)
    z = x.permute(0, 2, 1); print(z.shape)
    z = torch.chunk(x, chunks=2, dim=1); print(z[0].shape); print(z[1].shape)
    x = torch.arange(10); print(x.unsqueeze(0).shape); print(x.unsqueeze(1).shape)
    x = torch.arange(10).unsqueeze(0).unsqueeze(1); z = x.squeeze(1); print(z.shape)
    # std / mean of a dataset
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.rand(12, 3, 4, 4), torch.zeros(12)), batch_size=4)
    channels_sum, channels_squared_sum, num_batches = 0, 0, 0
    for data, _ in loader:
        channels_sum += torch.mean(data, dim=[0, 2, 3]); channels_squared_sum += torch.mean(data ** 2, dim=[0, 2, 3]); num_batches += 1
    mean = channels_sum / num_batches; std = (channels_squared_sum / num_batches - mean ** 2) ** 0.5
    print(mean, std)

def persson_seq2seq_text(torch):
    # Persson: custom text dataset with a vocabulary and a padding collate, seq2seq with teacher
    # forcing, and seq2seq with attention (einsum context)
    nn = torch.nn
    import random
    torch.manual_seed(11)
    class Vocabulary:
        def __init__(self, freq_threshold):
            self.itos = {0: "<PAD>", 1: "<SOS>", 2: "<EOS>", 3: "<UNK>"}
            self.stoi = {"<PAD>": 0, "<SOS>": 1, "<EOS>": 2, "<UNK>": 3}
            self.freq_threshold = freq_threshold
        def __len__(self):
            return len(self.itos)
        @staticmethod
        def tokenizer_eng(text):
            return [tok.lower() for tok in text.split(" ")]
        def build_vocabulary(self, sentence_list):
            frequencies = {}; idx = 4
            for sentence in sentence_list:
                for word in self.tokenizer_eng(sentence):
                    frequencies[word] = frequencies.get(word, 0) + 1
                    if frequencies[word] == self.freq_threshold:
                        self.stoi[word] = idx; self.itos[idx] = word; idx += 1
        def numericalize(self, text):
            return [self.stoi[token] if token in self.stoi else self.stoi["<UNK>"] for token in self.tokenizer_eng(text)]
    captions = ["a dog runs", "a cat sits on a mat", "the dog sits", "a cat runs on the mat fast"]
    vocab = Vocabulary(1); vocab.build_vocabulary(captions); print(len(vocab), vocab.numericalize("a dog flies"))
    class TextDataset(torch.utils.data.Dataset):
        def __len__(self):
            return len(captions)
        def __getitem__(self, index):
            numericalized = [vocab.stoi["<SOS>"]] + vocab.numericalize(captions[index]) + [vocab.stoi["<EOS>"]]
            return torch.rand(3, 2, 2), torch.tensor(numericalized)
    class MyCollate:
        def __init__(self, pad_idx):
            self.pad_idx = pad_idx
        def __call__(self, batch):
            imgs = [item[0].unsqueeze(0) for item in batch]; imgs = torch.cat(imgs, dim=0)
            targets = [item[1] for item in batch]
            targets = nn.utils.rnn.pad_sequence(targets, batch_first=False, padding_value=self.pad_idx)
            return imgs, targets
    loader = torch.utils.data.DataLoader(TextDataset(), batch_size=2, shuffle=True, collate_fn=MyCollate(vocab.stoi["<PAD>"]))
    for idx, (imgs, captions_) in enumerate(loader):
        print(imgs.shape, captions_.shape, captions_)
    print(nn.utils.rnn.pad_sequence([torch.ones(2), torch.ones(4), torch.ones(1)], batch_first=True, padding_value=-1, padding_side="left"))
    class Encoder(nn.Module):
        def __init__(self, input_size, embedding_size, hidden_size, num_layers, p):
            super(Encoder, self).__init__()
            self.dropout = nn.Dropout(p); self.hidden_size = hidden_size; self.num_layers = num_layers
            self.embedding = nn.Embedding(input_size, embedding_size)
            self.rnn = nn.LSTM(embedding_size, hidden_size, num_layers, dropout=p)
        def forward(self, x):
            embedding = self.dropout(self.embedding(x)); outputs, (hidden, cell) = self.rnn(embedding); return hidden, cell
    class Decoder(nn.Module):
        def __init__(self, input_size, embedding_size, hidden_size, output_size, num_layers, p):
            super(Decoder, self).__init__()
            self.dropout = nn.Dropout(p); self.embedding = nn.Embedding(input_size, embedding_size)
            self.rnn = nn.LSTM(embedding_size, hidden_size, num_layers, dropout=p); self.fc = nn.Linear(hidden_size, output_size)
        def forward(self, x, hidden, cell):
            x = x.unsqueeze(0); embedding = self.dropout(self.embedding(x))
            outputs, (hidden, cell) = self.rnn(embedding, (hidden, cell))
            predictions = self.fc(outputs).squeeze(0); return predictions, hidden, cell
    class Seq2Seq(nn.Module):
        def __init__(self, encoder, decoder):
            super(Seq2Seq, self).__init__(); self.encoder = encoder; self.decoder = decoder
        def forward(self, source, target, teacher_force_ratio=0.5):
            batch_size = source.shape[1]; target_len = target.shape[0]; target_vocab_size = len(vocab)
            outputs = torch.zeros(target_len, batch_size, target_vocab_size)
            hidden, cell = self.encoder(source); x = target[0]
            for t in range(1, target_len):
                output, hidden, cell = self.decoder(x, hidden, cell)
                outputs[t] = output
                best_guess = output.argmax(1)
                x = target[t] if random.random() < teacher_force_ratio else best_guess
            return outputs
    random.seed(0)
    V = len(vocab)
    # (in float64: the float32 LSTM layer's last bits are oneDNN's, a known difference)
    model = Seq2Seq(Encoder(V, 4, 6, 2, 0.0), Decoder(V, 4, 6, V, 2, 0.0)).double()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01); criterion = nn.CrossEntropyLoss(ignore_index=0)
    src = torch.randint(1, V, (5, 2)); trg = torch.randint(1, V, (6, 2)); trg[-1, 0] = 0
    for epoch in range(3):
        output = model(src, trg); output = output[1:].reshape(-1, output.shape[2]); target = trg[1:].reshape(-1)
        optimizer.zero_grad(); loss = criterion(output, target); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1); optimizer.step(); print(loss)
    class AttnEncoder(nn.Module):
        def __init__(self, input_size, embedding_size, hidden_size):
            super().__init__()
            self.embedding = nn.Embedding(input_size, embedding_size)
            self.rnn = nn.LSTM(embedding_size, hidden_size, 1, bidirectional=True)
            self.fc_hidden = nn.Linear(hidden_size * 2, hidden_size); self.fc_cell = nn.Linear(hidden_size * 2, hidden_size)
        def forward(self, x):
            encoder_states, (hidden, cell) = self.rnn(self.embedding(x))
            hidden = self.fc_hidden(torch.cat((hidden[0:1], hidden[1:2]), dim=2))
            cell = self.fc_cell(torch.cat((cell[0:1], cell[1:2]), dim=2))
            return encoder_states, hidden, cell
    class AttnDecoder(nn.Module):
        def __init__(self, input_size, embedding_size, hidden_size, output_size):
            super().__init__()
            self.embedding = nn.Embedding(input_size, embedding_size)
            self.rnn = nn.LSTM(hidden_size * 2 + embedding_size, hidden_size, 1)
            self.energy = nn.Linear(hidden_size * 3, 1); self.fc = nn.Linear(hidden_size, output_size)
            self.softmax = nn.Softmax(dim=0); self.relu = nn.ReLU()
        def forward(self, x, encoder_states, hidden, cell):
            x = x.unsqueeze(0); embedding = self.embedding(x)
            sequence_length = encoder_states.shape[0]
            h_reshaped = hidden.repeat(sequence_length, 1, 1)
            energy = self.relu(self.energy(torch.cat((h_reshaped, encoder_states), dim=2)))
            attention = self.softmax(energy)
            context_vector = torch.einsum("snk,snl->knl", attention, encoder_states)
            rnn_input = torch.cat((context_vector, embedding), dim=2)
            outputs, (hidden, cell) = self.rnn(rnn_input, (hidden, cell))
            return self.fc(outputs).squeeze(0), hidden, cell
    enc = AttnEncoder(V, 4, 5).double(); dec = AttnDecoder(V, 4, 5, V).double()
    states, h, c = enc(src); x = trg[0]; total = 0
    for t in range(1, 4):
        out, h, c = dec(x, states, h, c); total = total + out.logsumexp(1).sum(); x = out.argmax(1)
    total.backward(); print(total, enc.fc_hidden.weight.grad.norm(), dec.energy.weight.grad)

def persson_architectures(torch):
    # Persson: LeNet, VGG from a config, an Inception block, ResNet blocks with a downsample,
    # EfficientNet's MBConv (squeeze-excitation, stochastic depth), ProGAN's WSConv2d,
    # PixelNorm, minibatch std and fade-in, Pix2Pix/CycleGAN blocks with reflect padding
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(12)
    class LeNet(nn.Module):
        def __init__(self):
            super(LeNet, self).__init__()
            self.relu = nn.ReLU(); self.pool = nn.AvgPool2d(kernel_size=(2, 2), stride=(2, 2))
            self.conv1 = nn.Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(0, 0))
            self.conv2 = nn.Conv2d(6, 16, kernel_size=(5, 5), stride=(1, 1), padding=(0, 0))
            self.conv3 = nn.Conv2d(16, 12, kernel_size=(5, 5), stride=(1, 1), padding=(0, 0))
            self.linear1 = nn.Linear(12, 8); self.linear2 = nn.Linear(8, 10)
        def forward(self, x):
            x = self.pool(self.relu(self.conv1(x))); x = self.pool(self.relu(self.conv2(x)))
            x = self.relu(self.conv3(x)); x = x.reshape(x.shape[0], -1)
            return self.linear2(self.relu(self.linear1(x)))
    x = torch.randn(2, 1, 32, 32); print(LeNet()(x).shape, LeNet()(x)[0, :3])
    VGG_types = {"VGG_tiny": [4, "M", 8, "M", 8, 8, "M"]}
    class VGG_net(nn.Module):
        def __init__(self, in_channels=3, num_classes=10):
            super(VGG_net, self).__init__()
            self.in_channels = in_channels; self.conv_layers = self.create_conv_layers(VGG_types["VGG_tiny"])
            self.fcs = nn.Sequential(nn.Linear(8 * 2 * 2, 16), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(16, num_classes))
        def forward(self, x):
            x = self.conv_layers(x); x = x.reshape(x.shape[0], -1); return self.fcs(x)
        def create_conv_layers(self, architecture):
            layers = []; in_channels = self.in_channels
            for x in architecture:
                if type(x) == int:
                    out_channels = x
                    layers += [nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)),
                               nn.BatchNorm2d(x), nn.ReLU()]
                    in_channels = x
                elif x == "M":
                    layers += [nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2))]
            return nn.Sequential(*layers)
    vgg = VGG_net(); vgg.eval(); print(vgg(torch.randn(2, 3, 16, 16)), vgg.conv_layers)
    class conv_block(nn.Module):
        def __init__(self, in_channels, out_channels, **kwargs):
            super(conv_block, self).__init__()
            self.relu = nn.ReLU(); self.conv = nn.Conv2d(in_channels, out_channels, **kwargs); self.batchnorm = nn.BatchNorm2d(out_channels)
        def forward(self, x):
            return self.relu(self.batchnorm(self.conv(x)))
    class Inception_block(nn.Module):
        def __init__(self, in_channels, out_1x1, red_3x3, out_3x3, red_5x5, out_5x5, out_1x1pool):
            super(Inception_block, self).__init__()
            self.branch1 = conv_block(in_channels, out_1x1, kernel_size=(1, 1))
            self.branch2 = nn.Sequential(conv_block(in_channels, red_3x3, kernel_size=(1, 1)), conv_block(red_3x3, out_3x3, kernel_size=(3, 3), padding=(1, 1)))
            self.branch3 = nn.Sequential(conv_block(in_channels, red_5x5, kernel_size=(1, 1)), conv_block(red_5x5, out_5x5, kernel_size=(5, 5), padding=(2, 2)))
            self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)), conv_block(in_channels, out_1x1pool, kernel_size=(1, 1)))
        def forward(self, x):
            return torch.cat([self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1)
    inc = Inception_block(4, 2, 2, 3, 1, 2, 2); y = inc(torch.randn(2, 4, 6, 6)); y.mean().backward()
    print(y.shape, y[0, :, 0, 0], inc.branch3[1].conv.weight.grad.abs().sum())
    class block(nn.Module):
        def __init__(self, in_channels, intermediate_channels, identity_downsample=None, stride=1):
            super(block, self).__init__()
            self.expansion = 4
            self.conv1 = nn.Conv2d(in_channels, intermediate_channels, kernel_size=1, stride=1, padding=0, bias=False); self.bn1 = nn.BatchNorm2d(intermediate_channels)
            self.conv2 = nn.Conv2d(intermediate_channels, intermediate_channels, kernel_size=3, stride=stride, padding=1, bias=False); self.bn2 = nn.BatchNorm2d(intermediate_channels)
            self.conv3 = nn.Conv2d(intermediate_channels, intermediate_channels * self.expansion, kernel_size=1, stride=1, padding=0, bias=False)
            self.bn3 = nn.BatchNorm2d(intermediate_channels * self.expansion)
            self.relu = nn.ReLU(); self.identity_downsample = identity_downsample; self.stride = stride
        def forward(self, x):
            identity = x.clone()
            x = self.relu(self.bn1(self.conv1(x))); x = self.relu(self.bn2(self.conv2(x))); x = self.bn3(self.conv3(x))
            if self.identity_downsample is not None:
                identity = self.identity_downsample(identity)
            return self.relu(x + identity)
    down = nn.Sequential(nn.Conv2d(4, 8, kernel_size=1, stride=2, bias=False), nn.BatchNorm2d(8))
    res = block(4, 2, down, stride=2); y = res(torch.randn(2, 4, 6, 6)); print(y.shape, y.sum(), res.bn3.running_mean)
    class SqueezeExcitation(nn.Module):
        def __init__(self, in_channels, reduced_dim):
            super().__init__()
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(in_channels, reduced_dim, 1), nn.SiLU(), nn.Conv2d(reduced_dim, in_channels, 1), nn.Sigmoid())
        def forward(self, x):
            return x * self.se(x)
    class InvertedResidualBlock(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride, padding, expand_ratio, reduction=4, survival_prob=0.8):
            super().__init__()
            self.survival_prob = survival_prob; self.use_residual = in_channels == out_channels and stride == 1
            hidden_dim = in_channels * expand_ratio; self.expand = in_channels != hidden_dim
            reduced_dim = int(in_channels / reduction)
            if self.expand:
                self.expand_conv = nn.Sequential(nn.Conv2d(in_channels, hidden_dim, 3, 1, 1, bias=False), nn.BatchNorm2d(hidden_dim), nn.SiLU())
            self.conv = nn.Sequential(nn.Conv2d(hidden_dim, hidden_dim, kernel_size, stride, padding, groups=hidden_dim, bias=False), nn.BatchNorm2d(hidden_dim), nn.SiLU(),
                                      SqueezeExcitation(hidden_dim, reduced_dim), nn.Conv2d(hidden_dim, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels))
        def stochastic_depth(self, x):
            if not self.training:
                return x
            binary_tensor = torch.rand(x.shape[0], 1, 1, 1, device=x.device) < self.survival_prob
            return torch.div(x, self.survival_prob) * binary_tensor
        def forward(self, inputs):
            x = self.expand_conv(inputs) if self.expand else inputs
            if self.use_residual:
                return self.stochastic_depth(self.conv(x)) + inputs
            return self.conv(x)
    mb = InvertedResidualBlock(4, 4, 3, 1, 1, 2); y = mb(torch.randn(3, 4, 5, 5)); y.pow(2).mean().backward()
    print(y.shape, y[:, 0, 0, 0], mb.expand_conv[0].weight.grad.norm(), math.ceil(1.1 ** 2 * 3))
    mb.eval(); print(mb(torch.ones(1, 4, 5, 5))[0, 0, 0])
    factors = [1, 1, 1 / 2]
    class WSConv2d(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=1, gain=2):
            super(WSConv2d, self).__init__()
            self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding)
            self.scale = (gain / (in_channels * (kernel_size ** 2))) ** 0.5
            self.bias = self.conv.bias; self.conv.bias = None
            nn.init.normal_(self.conv.weight); nn.init.zeros_(self.bias)
        def forward(self, x):
            return self.conv(x * self.scale) + self.bias.view(1, self.bias.shape[0], 1, 1)
    class PixelNorm(nn.Module):
        def __init__(self):
            super(PixelNorm, self).__init__(); self.epsilon = 1e-8
        def forward(self, x):
            return x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.epsilon)
    ws = WSConv2d(3, 4); print(ws, [n for n, _ in ws.named_parameters()])
    x = torch.randn(2, 3, 4, 4); y = PixelNorm()(F.leaky_relu(ws(x), 0.2)); print(y[0, :, 0, 0])
    def minibatch_std(x):
        batch_statistics = torch.std(x, dim=0).mean().repeat(x.shape[0], 1, x.shape[2], x.shape[3])
        return torch.cat([x, batch_statistics], dim=1)
    print(minibatch_std(y).shape, minibatch_std(y)[:, -1, 0, 0])
    def fade_in(alpha, upscaled, generated):
        return torch.tanh(alpha * generated + (1 - alpha) * upscaled)
    upscaled = F.interpolate(x, scale_factor=2, mode="nearest"); print(fade_in(0.3, upscaled, torch.randn(2, 3, 8, 8))[0, 0, 0])
    print(nn.AvgPool2d(kernel_size=2, stride=2)(upscaled).equal(x))
    class Block(nn.Module):
        def __init__(self, in_channels, out_channels, down=True, act="relu", use_dropout=False):
            super(Block, self).__init__()
            self.conv = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 4, 2, 1, bias=False, padding_mode="reflect") if down else nn.ConvTranspose2d(in_channels, out_channels, 4, 2, 1, bias=False),
                nn.BatchNorm2d(out_channels), nn.ReLU() if act == "relu" else nn.LeakyReLU(0.2))
            self.use_dropout = use_dropout; self.dropout = nn.Dropout(0.5)
        def forward(self, x):
            x = self.conv(x); return self.dropout(x) if self.use_dropout else x
    down_b = Block(3, 4, down=True, act="leaky"); up_b = Block(4, 3, down=False)
    x = torch.randn(2, 3, 8, 8); d = down_b(x); u = up_b(d); print(d.shape, u.shape, down_b)
    class CNNBlock(nn.Module):
        def __init__(self, in_channels, out_channels, stride):
            super(CNNBlock, self).__init__()
            self.conv = nn.Sequential(nn.Conv2d(in_channels, out_channels, 4, stride, 1, bias=False, padding_mode="reflect"),
                                      nn.InstanceNorm2d(out_channels, affine=True), nn.LeakyReLU(0.2))
        def forward(self, x):
            return self.conv(x)
    disc_in = torch.cat([x, torch.randn(2, 3, 8, 8)], dim=1); blk = CNNBlock(6, 4, 2); out = blk(disc_in); out.mean().backward()
    print(out.shape, out[0, 0], blk.conv[0].weight.grad.abs().sum())
    print(nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect"), nn.Conv2d(3, 3, 3, padding=1, padding_mode="circular")(x)[0, 0, 0])
    # (padding_mode="zeroes": torch's message prints a set literal, whose order depends on the
    # process's string hashes and on how its .pyc stored the constant: not comparable)
    attempt(lambda: nn.Conv2d(3, 3, 3, padding=5, padding_mode="reflect")(x))
    print(nn.PixelShuffle(2)(torch.arange(16.).view(1, 4, 2, 2)), nn.Upsample(scale_factor=2, mode="nearest")(torch.arange(4.).view(1, 1, 2, 2)))

def pt_dynamic_net_distillation(torch):
    # pytorch/tutorials "Learning PyTorch with Examples": nn.Flatten(0, 1) polynomial, RMSprop,
    # the custom module and the dynamic net with weight sharing; the knowledge-distillation
    # tutorial's soft-target, cosine and regressor losses
    nn = torch.nn
    torch.manual_seed(13)
    x = torch.linspace(-math.pi, math.pi, 200); y = torch.sin(x)
    p = torch.tensor([1, 2, 3]); xx = x.unsqueeze(-1).pow(p); print(xx.shape, xx[:2])
    model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
    loss_fn = nn.MSELoss(reduction='sum'); learning_rate = 1e-3
    optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
    for t in range(200):
        y_pred = model(xx); loss = loss_fn(y_pred, y)
        if t % 50 == 49:
            print(t, loss.item())
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    linear_layer = model[0]
    print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
    class DynamicNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Parameter(torch.randn(())); self.b = nn.Parameter(torch.randn(())); self.c = nn.Parameter(torch.randn(()))
            self.d = nn.Parameter(torch.randn(())); self.e = nn.Parameter(torch.randn(()))
        def forward(self, x, k):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, k):
                y = y + self.e * x ** exp
            return y
        def string(self):
            return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?'
    model = DynamicNet(); criterion = nn.MSELoss(reduction='sum')
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    for t in range(60):
        k = int(torch.randint(4, 6, ()).item())
        y_pred = model(x, k); loss = criterion(y_pred, y)
        if t % 20 == 19:
            print(t, k, loss.item())
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(f'Result: {model.string()}', model.e.grad)
    # knowledge distillation
    T = 2; soft_target_loss_weight = 0.25; ce_loss_weight = 0.75
    teacher = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4)); student = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4))
    total_params_deep = "{:,}".format(sum(p.numel() for p in teacher.parameters())); print(f"DeepNN parameters: {total_params_deep}")
    inputs = torch.randn(8, 6); labels = torch.randint(0, 4, (8,))
    ce_loss = nn.CrossEntropyLoss(); optimizer = torch.optim.Adam(student.parameters(), lr=0.01)
    teacher.eval(); student.train()
    for epoch in range(3):
        optimizer.zero_grad()
        with torch.no_grad():
            teacher_logits = teacher(inputs)
        student_logits = student(inputs)
        soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
        soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
        soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T ** 2)
        label_loss = ce_loss(student_logits, labels)
        loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
        loss.backward(); optimizer.step()
        kl = nn.KLDivLoss(reduction="batchmean")(soft_prob, soft_targets) * T ** 2
        print(f"Epoch {epoch + 1}/3, Loss: {loss.item()}", soft_targets_loss, kl)
    cosine_loss = nn.CosineEmbeddingLoss()
    teacher_hidden = teacher[:2](inputs); student_hidden = nn.functional.avg_pool1d(teacher_hidden.detach(), 2) + student[:2](inputs)[:, :6].sum() * 0
    hidden_rep_loss = cosine_loss(student_hidden, teacher_hidden[:, ::2], target=torch.ones(inputs.size(0)))
    print(hidden_rep_loss, hidden_rep_loss.grad_fn)
    attempt(lambda: cosine_loss(student_hidden, teacher_hidden, target=torch.ones(8)))
    regressor = nn.Conv2d(2, 4, kernel_size=3, padding=1)
    feature_map = regressor(torch.randn(3, 2, 4, 4)); mse = nn.MSELoss()(feature_map, torch.randn(3, 4, 4, 4)); mse.backward()
    print(mse, regressor.weight.grad.shape, nn.functional.cosine_similarity(inputs[:2], inputs[2:4]))

def sdpa_tutorial(torch):
    # pytorch/tutorials "(Beta) Implementing High-Performance Transformers with Scaled Dot
    # Product Attention": the fused call with masks, causal variants, backend selection, the
    # CausalSelfAttention module
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(14)
    query, key, value = torch.randn(2, 3, 8), torch.randn(2, 3, 8), torch.randn(2, 3, 8)
    print(F.scaled_dot_product_attention(query, key, value))
    SDPBackend, sdpa_kernel = torch.nn.attention.SDPBackend, torch.nn.attention.sdpa_kernel
    with sdpa_kernel(SDPBackend.MATH):
        print(F.scaled_dot_product_attention(query, key, value, is_causal=True)[0, -1])
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        out = F.scaled_dot_product_attention(query, key, value, scale=0.5); print(out[1, 0])
    print(SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, list(SDPBackend.__members__)[:3] if hasattr(SDPBackend, '__members__') else None)
    mask = torch.tensor([[True, False, True], [True, True, False], [False, True, True]])
    print(F.scaled_dot_product_attention(query, key, value, attn_mask=mask)[0])
    print(F.scaled_dot_product_attention(query, key, value, attn_mask=torch.zeros(3, 3) - 1.5)[0, 0])
    attempt(lambda: F.scaled_dot_product_attention(query, key, value, attn_mask=mask, is_causal=True))
    print(F.scaled_dot_product_attention(query, key[:, :2], value[:, :2], is_causal=True)[0])
    q4 = torch.randn(2, 2, 4, 3, requires_grad=True); k4 = torch.randn(2, 2, 5, 3, requires_grad=True); v4 = torch.randn(2, 2, 5, 6, requires_grad=True)
    out = F.scaled_dot_product_attention(q4, k4, v4, dropout_p=0.0); out.sum().backward()
    print(out.shape, out.grad_fn, q4.grad[0, 0], v4.grad[1, 1, 0])
    kg = torch.randn(2, 1, 5, 3); vg = torch.randn(2, 1, 5, 6)
    print(F.scaled_dot_product_attention(q4.detach(), kg, vg, enable_gqa=True).shape)
    class CausalSelfAttention(nn.Module):
        def __init__(self, num_heads, embed_dimension, bias=False, is_causal=False, dropout=0.0):
            super().__init__()
            assert embed_dimension % num_heads == 0
            self.c_attn = nn.Linear(embed_dimension, 3 * embed_dimension, bias=bias)
            self.c_proj = nn.Linear(embed_dimension, embed_dimension, bias=bias)
            self.dropout = dropout; self.resid_dropout = nn.Dropout(dropout)
            self.num_heads = num_heads; self.embed_dimension = embed_dimension; self.is_causal = is_causal
        def forward(self, x):
            query_projected = self.c_attn(x)
            batch_size = query_projected.size(0); embed_dim = query_projected.size(2); head_dim = embed_dim // (self.num_heads * 3)
            query, key, value = query_projected.chunk(3, -1)
            query = query.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
            key = key.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
            value = value.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
            dropout = self.dropout if self.training else 0.0; is_causal = self.is_causal if self.training else False
            y = F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout, is_causal=is_causal)
            y = y.transpose(1, 2).view(batch_size, -1, self.num_heads * head_dim)
            return self.resid_dropout(self.c_proj(y))
    model = CausalSelfAttention(num_heads=2, embed_dimension=8, bias=False, is_causal=True, dropout=0.0).to("cpu", torch.float32).eval()
    print(model)
    x = torch.rand(2, 5, 8, device="cpu", dtype=torch.float32)
    with torch.no_grad():
        print(model(x)[0, :2])
    model.train(); y = model(x); y.pow(2).mean().backward(); print(y[1, -1], model.c_attn.weight.grad.abs().sum())
    # (torch.nn.attention.bias's causal_upper_left/causal_lower_right: not in leafgrad yet)

def loeber_lr_schedulers(torch):
    # Patrick Loeber's learning-rate scheduler tutorial: LambdaLR, MultiplicativeLR, StepLR,
    # MultiStepLR, ExponentialLR, ReduceLROnPlateau, each printing the optimizer's lr
    nn = torch.nn; lr_scheduler = torch.optim.lr_scheduler
    lr = 0.1
    model = nn.Linear(10, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    lambda1 = lambda epoch: epoch / 10
    scheduler = lr_scheduler.LambdaLR(optimizer, lambda1)
    print(optimizer.state_dict())
    for epoch in range(5):
        optimizer.step(); scheduler.step(); print(optimizer.state_dict()['param_groups'][0]['lr'])
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scheduler = lr_scheduler.MultiplicativeLR(optimizer, lambda epoch: 0.95)
    for epoch in range(3):
        optimizer.step(); scheduler.step(); print(optimizer.param_groups[0]['lr'])
    for make in (lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.1),
                 lambda o: lr_scheduler.MultiStepLR(o, milestones=[1, 3], gamma=0.5),
                 lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)):
        optimizer = torch.optim.SGD(model.parameters(), lr=lr); scheduler = make(optimizer)
        lrs = []
        for epoch in range(5):
            optimizer.step(); lrs.append(scheduler.get_last_lr()[0]); scheduler.step()
        print(type(scheduler).__name__, lrs, scheduler.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, 'min', patience=1, threshold=0.01)
    for val_loss in [1.0, 0.999, 0.998, 0.5, 0.6, 0.7, 0.8]:
        optimizer.step(); scheduler.step(val_loss); print(optimizer.param_groups[0]['lr'], scheduler.best, scheduler.num_bad_epochs)
    attempt(lambda: lr_scheduler.StepLR(optimizer))
    attempt(lambda: lr_scheduler.LambdaLR(optimizer, [lambda1, lambda1]))

def autograd_function_walkthrough(torch):
    # autograd walkthroughs (Elliot Waite's and the tutorials'): a custom Function with saved
    # tensors, tensor hooks that change gradients, retain_grad, autograd.grad of several
    # outputs, and the leaf / requires_grad states of views and in-place ops
    class MyExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp(); ctx.save_for_backward(result); return result
        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors; return grad_output * result
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = MyExp.apply(x); print(y, y.grad_fn, type(y.grad_fn).__name__, y.grad_fn.next_functions)
    y.sum().backward(); print(x.grad, x.grad.equal(y.detach()))
    a = torch.tensor([1.0, 2.0], requires_grad=True); b = a * 3; c = b ** 2
    b.retain_grad(); b.register_hook(lambda g: g * 10); handle = c.register_hook(lambda g: print("c hook", g))
    c.sum().backward(); print(a.grad, b.grad, b.is_leaf, c.is_leaf, b.retains_grad, a.retains_grad)
    handle.remove()
    u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v1 = u.sin(); v2 = (u * u).sum()
    g1, g2 = torch.autograd.grad([v1.sum(), v2], [u, u], retain_graph=True); print(g1, g2)
    print(torch.autograd.grad(v1, u, grad_outputs=torch.ones(3), create_graph=True))
    attempt(lambda: torch.autograd.grad(v2, [u, torch.ones(2, requires_grad=True)]))
    v2 = (u * u).sum(); print(torch.autograd.grad(v2, [u, torch.ones(2, requires_grad=True)], allow_unused=True))
    w = torch.ones(3, requires_grad=True); view = w[:2]; print(view.is_leaf, view.requires_grad, view.grad_fn)
    attempt(lambda: w.add_(1))
    z = w.clone(); z.add_(1); print(z.grad_fn, z._version, w._version)
    with torch.no_grad():
        w.mul_(2)
    print(w, w._version, w.is_leaf, w.grad_fn)
    d = w.detach(); d.zero_(); print(w, w._version)
    k = torch.tensor(3.0, requires_grad=True); out = k * k * k
    (gk,) = torch.autograd.grad(out, k, create_graph=True); (gkk,) = torch.autograd.grad(gk, k); print(gk, gkk)
    print(torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), torch.tensor([1.0, 2.0])))


SNIPPETS = [tensor_puzzles, autodiff_puzzles, loeber_basics_autograd, loeber_backprop_gd,
            loeber_logistic_softmax_activations, loeber_data_transforms, loeber_ffn_cnn_saveload,
            persson_classifiers, persson_training_utils, persson_gans, persson_transformer_vae,
            persson_detection_utils, cs231n_pytorch, dvgodoy_ch0_ch1, dvgodoy_ch2_ch4, nlp_bow_crf,
            strides_and_graphs, compile_intro, persson_tensor_basics, persson_seq2seq_text,
            persson_architectures, pt_dynamic_net_distillation, sdpa_tutorial,
            loeber_lr_schedulers, autograd_function_walkthrough]


@pytest.fixture(scope="module")
def dynamo_loaded():
    """torch's first compile in a process imports modules that warn once (torch.jit's
    script_method deprecation): made here, silenced, so no transcript depends on test order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for backend in ("eager", "aot_eager"):
            torch.compile(lambda x: torch.sin(x) + 1, backend=backend)(torch.ones(2))
        torch.compile(lambda x: x, mode="reduce-overhead", dynamic=True)  # (inductor's settings)
        torch._dynamo.reset()


@pytest.fixture
def backend_flags_settable():
    """torch.backends.cudnn's flags settable, as in a script: importing torch's own test
    utilities (an earlier test may) calls torch.backends.disable_global_flags(), after which
    the snippets' seed helpers (cudnn.deterministic = True) raise."""
    with getattr(torch.backends, "__allow_nonbracketed_mutation")():
        yield


@pytest.fixture
def no_global_module_hooks():
    """No global module hooks in torch while a snippet runs (restored after): torch.compile of
    a module warns when any is registered, and one left by another test in the same worker
    made compile_intro's transcript differ (seen once in a full run, not reproduced)."""
    import torch.nn.modules.module as torch_module

    saved = {name: dict(value) for name, value in vars(torch_module).items()
             if name.startswith("_global_") and isinstance(value, dict)}
    for name in saved:
        getattr(torch_module, name).clear()
    yield
    for name, value in saved.items():
        getattr(torch_module, name).update(value)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet, default_validation, dynamo_loaded,
                                  backend_flags_settable, no_global_module_hooks):
    assert first_difference(snippet, lg, torch) is None


# -- one test per defect found, sweeping its class --------------------------------------------


def _outcome(function):
    """A call's result or its exception as torch's tests compare it: type and first line."""
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - the type and first line are what is compared
        return (type(error).__name__, str(error).splitlines()[0] if str(error) else "")


def _double_input(module, args):
    return (args[0] * 2,)


def _module_compile_runs(m, hooked, norm):
    """Module.compile() on a module (a pre-hook scaling the input, BatchNorm in train and eval):
    what it returns, the outputs of several calls (captured, then replayed), after train/eval
    switches, the gradients, repr, state_dict keys, what a deepcopy and a pickle keep."""
    import copy
    import io
    import pickle
    m.manual_seed(0)
    layers = [m.nn.Linear(3, 4)] + ([m.nn.BatchNorm1d(4)] if norm else []) + [m.nn.Tanh()]
    net = m.nn.Sequential(*layers)
    if hooked:
        net.register_forward_pre_hook(_double_input)
    out = [net.compile(backend="eager"), net._compiled_call_impl is not None]
    xs = [m.randn(5, 3) for _ in range(3)]
    for mode in ("train", "eval", "train"):
        getattr(net, mode)()
        for x in xs:
            y = net(x)
            y.sum().backward()
            out.append((y.detach().numpy().copy(), y.requires_grad,
                        net[0].weight.grad.numpy().copy()))
            net.zero_grad()
    out += [repr(net), list(net.state_dict()), type(net).__name__]
    twin = copy.deepcopy(net)
    out += [twin._compiled_call_impl is None, twin(xs[0]).detach().numpy()]
    buffer = io.BytesIO()
    m.save(net, buffer)
    buffer.seek(0)
    loaded = m.load(buffer, weights_only=False)
    out += [loaded._compiled_call_impl is None, "_compiled_call_impl" in loaded.__dict__,
            "_compiled_call_impl" in pickle.loads(pickle.dumps(net)).__dict__]
    with m.no_grad():
        out.append(net(xs[1]).numpy())
    out.append(_outcome(lambda: net.compile(mode="nonsense")))
    out.append(net._compiled_call_impl is not None)
    plain = m.nn.Linear(2, 2)
    out.append(_outcome(lambda: plain.compile(mode="nonsense")))
    out.append(plain._compiled_call_impl is None)
    plain.compile(disable=True)
    out.append(plain(m.ones(1, 2)).detach().numpy())
    return out


def _same(got, want) -> bool:
    if isinstance(want, np.ndarray):
        return isinstance(got, np.ndarray) and got.dtype == want.dtype and \
            np.array_equal(got, want, equal_nan=True)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and \
            all(_same(a, b) for a, b in zip(got, want))
    if isinstance(want, str):
        return got == want.replace("torch", "leafgrad") or got == want
    return got == want


@pytest.mark.parametrize("hooked, norm", list(itertools.product([False, True], repeat=2)))
def test_module_compile_in_place_as_torch(hooked, norm):
    # Module.compile() (the torch.compile tutorial's mod.compile()) was missing: AttributeError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _module_compile_runs(lg, hooked, norm)
        want = _module_compile_runs(torch, hooked, norm)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert _same(a, b), (a, b)


def _settings_outcomes(m):
    """torch.compile's checks of mode, backend and options, made when it is called, for every
    target (a function, a module, Module.compile, the decorator form, disable=True)."""
    def foo(x):
        return x + 1
    settings = [dict(), dict(mode="default"), dict(mode="reduce-overhead"), dict(mode="lite"),
                dict(mode="max-autotune"), dict(mode="max-autotune-no-cudagraphs"),
                dict(mode=""), dict(mode="nonsense"), dict(mode="Default"),
                dict(mode="nonsense", backend="eager"), dict(mode="nonsense", backend="inductor"),
                dict(backend="eager"), dict(backend="aot_eager"), dict(backend="cudagraphs"),
                dict(backend="nonsense"), dict(backend="Eager"), dict(backend="inductor"),
                dict(options={"max_autotune": True}), dict(options={}),
                dict(mode="default", options={}), dict(mode="nonsense", options={}),
                dict(mode="default", options={"max_autotune": True}, backend="eager"),
                dict(backend="nonsense", mode="nonsense"), dict(backend=lambda gm, ex: gm.forward)]
    out = []
    for kw in settings:
        for target in ("function", "module", "method", "decorator", "disabled"):
            if target == "function":
                call = lambda: callable(m.compile(foo, **kw))
            elif target == "module":
                call = lambda: type(m.compile(m.nn.Identity(), **kw)).__name__
            elif target == "method":
                call = lambda: m.nn.Identity().compile(**kw)
            elif target == "decorator":
                call = lambda: callable(m.compile(**kw)) and callable(m.compile(**kw)(foo))
            else:
                call = lambda: callable(m.compile(foo, disable=True, **kw))
            out.append((sorted(k for k in kw), kw.get("mode"), str(kw.get("backend"))[:9],
                        target, _outcome(call)))
    return out


def test_compile_settings_checked_as_torch():
    # torch.compile refuses an unknown inductor mode, an unknown backend name and mode with
    # options when it is called; leafgrad took anything (and failed nowhere)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = _settings_outcomes(lg), _settings_outcomes(torch)
    assert got == want


def _fullgraph_breaks(m):
    """The first line of the error fullgraph=True gives at a data-dependent branch (every
    form of a tensor's truth value in control flow) and at torch._dynamo.graph_break()."""
    def branch_sum(a):
        if a.sum() < 0:
            a = a * -1
        return a + 1
    def branch_any(a):
        return a * 2 if (a > 1).any() else a
    def loop(a):
        while a.max() > 1:
            a = a / 2
        return a
    def not_tensor(a):
        return a if not a.all() else a - 1
    def assert_tensor(a):
        assert a.min() > -10
        return a + 1
    def explicit(a):
        a = a + 1
        m._dynamo.graph_break()
        return a * 2
    out = []
    # (assert_tensor left out: torch's fullgraph treats an assert on a tensor's values as a
    # break in one process and compiles it in another, by state of its own)
    for f in (branch_sum, branch_any, loop, not_tensor, explicit):
        for x in (m.ones(3), -m.ones(3), m.full((3,), 5.0)):
            m._dynamo.reset()
            compiled = m.compile(f, fullgraph=True, backend="eager")
            result = _outcome(lambda: compiled(x))
            out.append((f.__name__, result[0], result[1] if result[0] != "ok" else
                        result[1].numpy().tolist()))
    m._dynamo.reset()
    return out


def _torch_fullgraph_breaks():
    """``_fullgraph_breaks(torch)`` in a process of its own (see the compile snippet: torch's
    fullgraph error leaves the process's frames holding more references)."""
    import ast
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = ("import warnings; warnings.simplefilter('ignore'); import torch; "
            "import tests.test_tutorials9_findings as t; "
            "print(repr(t._fullgraph_breaks(torch)))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(root, "src"), root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_fullgraph_data_dependent_branch_error_as_torch():
    # leafgrad's Unsupported said "graph break: bool(tensor): ..." on its first line; torch's
    # first line is the graph break's title ("Data-dependent branching", "Call to
    # `torch._dynamo.graph_break()`"); leafgrad's reason and place follow on the next line
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _fullgraph_breaks(lg)
    assert got == _torch_fullgraph_breaks()


def _attention_layouts(m, dtype_name, layout, options, requires):
    """F.scaled_dot_product_attention with the query, key and value viewed in ``layout``: the
    output's strides and values, the tutorial's ``.transpose(1, 2).view(B, L, H * E)``, and
    the gradients of the inputs in ``requires``."""
    dtype = getattr(m, dtype_name)
    m.manual_seed(0)
    B, H, L, S, E = 2, 3, 4, 5, 6
    heads_kv = 1 if options.get("enable_gqa") else H
    if layout == "contiguous":
        q, k, v = m.randn(B, H, L, E), m.randn(B, heads_kv, S, E), m.randn(B, heads_kv, S, E)
    elif layout == "from (B, L, H, E)":
        q, k, v = (m.randn(B, n, h, E).transpose(1, 2) for n, h in ((L, H), (S, heads_kv),
                                                                     (S, heads_kv)))
    elif layout == "query only, (L, B, H, E)":
        q, k, v = m.randn(L, B, H, E).permute(1, 2, 0, 3), m.randn(B, heads_kv, S, E), \
            m.randn(B, heads_kv, S, E)
    elif layout == "packed projection":  # the tutorial's c_attn(x).chunk(3, -1)
        q, k, v = (t.view(B, L, -1, E).transpose(1, 2)
                   for t in m.randn(B, L, 3 * H * E).chunk(3, -1))
        if heads_kv == 1:
            k, v = k[:, :1], v[:, :1]
    elif layout == "non-dense query":
        q = m.randn(B, L, H, 2 * E)[..., :E].transpose(1, 2)
        k, v = m.randn(B, heads_kv, S, E), m.randn(B, heads_kv, S, E)
    else:  # "expanded query"
        q = m.randn(1, H, L, E).expand(B, H, L, E)
        k, v = m.randn(B, heads_kv, S, E), m.randn(B, heads_kv, S, E)
    if layout == "packed projection":
        S = L
    kw = dict(options)
    if kw.pop("mask", False):
        kw["attn_mask"] = m.rand(L, S) > 0.3
    inputs = []
    for index, t in enumerate((q, k, v)):
        t = t.to(dtype)
        if index in requires:  # a leaf with the same strides as the view
            leaf = m.empty_strided(t.shape, t.stride(), dtype=dtype)
            leaf.copy_(t)
            t = leaf.requires_grad_()
        inputs.append(t)
    out = m.nn.functional.scaled_dot_product_attention(*inputs, **kw)
    exact = dtype_name in ("float32", "float64")  # (see test_sdpa_reduced_types_known below)
    result = [tuple(out.shape), out.stride(), out.detach().numpy() if exact else None]
    result.append(_outcome(lambda: out.transpose(1, 2).view(B, L, -1).shape))
    if requires:
        out.sum().backward()
        for index in requires:
            # (the strides of size-1 dims aside: whether AccumulateGrad keeps such a gradient
            # or copies it into the leaf's strides follows reference counts, which leafgrad's
            # engine does not hold as torch's does for a node of several outputs)
            grad = inputs[index].grad
            result += [tuple(s for s, n in zip(grad.stride(), grad.shape) if n != 1),
                       grad.numpy() if exact else None]
    return result


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "bfloat16", "float16"])
def test_sdpa_output_laid_out_like_the_query_as_torch(dtype_name):
    # torch's CPU flash kernel writes an empty_like(query): for a query viewed from
    # (B, L, H, E) (the SDPA tutorial's CausalSelfAttention) the output's transpose(1, 2) is
    # contiguous and .view works; leafgrad's was row-major: its view raised
    layouts = ["contiguous", "from (B, L, H, E)", "query only, (L, B, H, E)",
               "packed projection", "non-dense query", "expanded query"]
    options = [{}, {"is_causal": True}, {"mask": True, "scale": 0.3}, {"enable_gqa": True},
               {"dropout_p": 0.0, "is_causal": False}]
    subsets = [(), (0,), (1, 2), (0, 1, 2)]
    for layout, option, requires in itertools.product(layouts, options, subsets):
        if requires and (layout == "expanded query" or dtype_name in ("bfloat16", "float16")
                         and layout != "from (B, L, H, E)"):
            continue  # (an expanded leaf cannot be written; reduced types: one layout)
        got = _attention_layouts(lg, dtype_name, layout, option, requires)
        want = _attention_layouts(torch, dtype_name, layout, option, requires)
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert _same(a, b), (layout, option, requires, a, b)


def _copied_grad_strides(m, dtype_name):
    """The strides of a leaf's first .grad when AccumulateGrad copies it (a hook holds the
    arriving gradient, or create_graph), for leaves whose size-1 dims have strides NumPy's
    row-major test ignores; the gradient's values with them."""
    out = []
    dtype = getattr(m, dtype_name)
    cases = [((2, 1, 5, 6), (30, 6, 6, 1)), ((1, 3), (1, 1)), ((3, 1), (1, 7)),
             ((2, 1, 1, 4), (4, 1, 1, 1)), ((1, 1), (5, 9)), ((2, 1, 3), (1, 6, 2)),
             ((2, 3), (3, 1)), ((3, 2), (1, 3))]
    for (shape, strides), (hold, create_graph) in itertools.product(
            cases, ((True, False), (False, True), (True, True))):
        leaf = m.empty_strided(shape, strides, dtype=dtype)
        leaf.copy_(m.arange(leaf.numel(), dtype=dtype).view(shape))
        leaf.requires_grad_()
        kept = []
        if hold:
            leaf.register_hook(kept.append)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (create_graph's reference-cycle warning)
            (leaf * 2).sum().backward(create_graph=create_graph)
        out.append((shape, hold, create_graph, leaf.grad.stride(),
                    leaf.grad.detach().numpy().tolist()))
    return out


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_copied_grad_keeps_size_one_strides_as_torch(dtype_name):
    # torch's clone_obey_contract gives a dense leaf's copied grad the leaf's exact strides;
    # leafgrad took a leaf with odd size-1-dim strides for row-major (NumPy's flag) and gave
    # its copy NumPy's strides there (the SDPA sweep's enable_gqa key gradients)
    assert _copied_grad_strides(lg, dtype_name) == _copied_grad_strides(torch, dtype_name)


def _hook_kept_grads(m):
    """A leaf's tensor hook that stores its gradient (grads.append, the autograd walkthroughs'
    way to look at gradients; also returning it, or returning a stored new one), for every way
    a gradient arrives (one use, summed from several uses, through views and broadcasts):
    whether .grad is the stored tensor or shares its memory, and what the stored one holds
    after .grad.zero_()."""
    uses = {"one use": lambda t: (t * 2).sum(),
            "t * t": lambda t: (t * t).sum(),
            "t + t": lambda t: (t + t).sum(),
            "three uses": lambda t: (t.exp() + t.sin() * t).sum(),
            "views": lambda t: (t[0] * t[1]).sum() + t.sum(),
            "broadcast": lambda t: (t[:, None] * t[None, :]).sum()}
    hooks = {"stores it": lambda kept: kept.append,
             "stores and returns it": lambda kept: lambda g: (kept.append(g), g)[1],
             "returns a stored new one": lambda kept: lambda g: (kept.append(g * 2), kept[-1])[1]}
    out = []
    for (name, use), (how, hook), create_graph in itertools.product(
            uses.items(), hooks.items(), (False, True)):
        leaf = m.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        kept = []
        leaf.register_hook(hook(kept))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (create_graph's reference-cycle warning)
            use(leaf).backward(create_graph=create_graph)
        same = kept[0] is leaf.grad
        shared = kept[0].data_ptr() == leaf.grad.data_ptr()
        values = kept[0].detach().clone()
        with m.no_grad():
            leaf.grad.zero_()
        out.append((name, how, create_graph, same, shared, m.equal(kept[0], values),
                    values.numpy().tolist()))
    return out


def test_gradient_a_hook_kept_is_not_the_grad_as_torch():
    # a leaf's hook that stored a gradient summed from several uses (t * t) got the very
    # tensor AccumulateGrad then kept as .grad: grad.zero_() (Loeber's autograd tutorial)
    # zeroed the stored one too; torch copies a gradient anything else holds
    assert _hook_kept_grads(lg) == _hook_kept_grads(torch)
