"""Code from other people's tutorials and courses not covered before (pytorch/tutorials'
"Introduction to PyTorch Tensors", "The Fundamentals of Autograd", "Optimizing Model
Parameters", "Save and Load the Model" with the checkpoint recipes, and the TensorBoard
recipes; "Deep Learning with PyTorch" (Stevens/Antiga) chapters 3-8; fast.ai's course part 2
notebooks (matmul from scratch, the forward/backward pass by hand, activation statistics with
hooks, initialisation and LSUV, BatchNorm/LayerNorm from scratch, mixup, label smoothing, an LR
finder, a learner with callbacks); karpathy's "Let's build GPT" notebook; Jeremy Howard's "How
does a neural net really work" and "Linear model and neural net from scratch"; d2l's Builders'
guide; saliency maps), shrunk to small synthetic data made with torch's own RNG and run with
torch and with leafgrad in one process: every printed line, warning and error must be the same
(tests/_tutorial_harness.py); then one test per defect found, sweeping its class of inputs."""

import io
import itertools
import math
import os
import random
import tempfile
import warnings
from functools import partial

import pytest

import leafgrad as lg
from tests._torch import require_torch
from tests._tutorial_harness import attempt, first_difference, transcript

torch = require_torch()


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data)

def intro_tensors(torch):
    # pytorch/tutorials beginner/introyt/tensors_deeper_tutorial.py
    x = torch.empty(3, 4)
    print(type(x))
    zeros = torch.zeros(2, 3); print(zeros)
    ones = torch.ones(2, 3); print(ones)
    torch.manual_seed(1729)
    random = torch.rand(2, 3); print(random)
    r1 = torch.rand(2, 3); print(r1)
    torch.manual_seed(1729); r3 = torch.rand(2, 3); print(r3)
    x = torch.empty(2, 2, 3); print(x.shape)
    empty_like_x = torch.empty_like(x); print(empty_like_x.shape)
    zeros_like_x = torch.zeros_like(x); print(zeros_like_x)
    ones_like_x = torch.ones_like(x); print(ones_like_x)
    rand_like_x = torch.rand_like(x); print(rand_like_x)
    some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]]); print(some_constants)
    some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19)); print(some_integers)
    more_integers = torch.tensor(((2, 4, 6), [3, 6, 9])); print(more_integers)
    a = torch.ones((2, 3), dtype=torch.int16); print(a)
    b = torch.rand((2, 3), dtype=torch.float64) * 20.; print(b)
    c = b.to(torch.int32); print(c)
    ones = torch.zeros(2, 2) + 1; twos = torch.ones(2, 2) * 2; threes = (torch.ones(2, 2) * 7 - 1) / 2
    fours = twos ** 2; sqrt2s = twos ** 0.5
    print(ones, twos, threes, fours, sqrt2s)
    powers2 = twos ** torch.tensor([[1, 2], [3, 4]]); print(powers2)
    fives = ones + fours; print(fives)
    dozens = threes * fours; print(dozens)
    a = torch.rand(2, 3); b = torch.rand(3, 2)
    print(attempt(lambda: a * b))
    rand = torch.rand(2, 4)
    doubled = rand * (torch.ones(1, 4) * 2); print(rand); print(doubled)
    a = torch.ones(4, 3, 2)
    b = a * torch.rand(3, 2); print(b)
    c = a * torch.rand(3, 1); print(c)
    d = a * torch.rand(1, 2); print(d)
    a = torch.ones(4, 3, 2)
    attempt(lambda: a * torch.rand(4, 3))
    attempt(lambda: a * torch.rand(2, 3))
    attempt(lambda: a * torch.rand((0, )))
    a = torch.rand(2, 4) * 2 - 1
    print('Common functions:'); print(torch.abs(a)); print(torch.ceil(a)); print(torch.floor(a)); print(torch.clamp(a, -0.5, 0.5))
    angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    sines = torch.sin(angles); inverses = torch.asin(sines)
    print(angles, sines, inverses)
    b = torch.tensor([1, 5, 11]); c = torch.tensor([2, 7, 10])
    print(torch.bitwise_xor(b, c))
    d = torch.tensor([[1., 2.], [3., 4.]]); e = torch.ones(1, 2)
    print(torch.eq(d, e))
    print(torch.max(d)); print(torch.max(d).item()); print(torch.mean(d)); print(torch.std(d)); print(torch.prod(d))
    print(torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))
    v1 = torch.tensor([1., 0., 0.]); v2 = torch.tensor([0., 1., 0.])
    m1 = torch.rand(2, 2); m2 = torch.tensor([[3., 0.], [0., 3.]])
    print(torch.linalg.cross(v2, v1)); print(m1); m3 = torch.linalg.matmul(m1, m2); print(m3)
    print(torch.linalg.svd(m3))
    a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    print(torch.sin(a)); print(a)
    b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    print(torch.sin_(b)); print(b)
    a = torch.ones(2, 2); b = torch.rand(2, 2)
    print(a.add_(b)); print(b.mul_(b))
    a = torch.rand(2, 2); b = torch.rand(2, 2); c = torch.zeros(2, 2); old_id = id(c)
    d = torch.matmul(a, b, out=c); print(c); assert c is d; assert id(c) == old_id
    torch.rand(2, 2, out=c); print(c)
    a = torch.rand(2, 2, requires_grad=True); b = a.clone(); print(b); c = a.detach().clone(); print(c); print(a)
    a = torch.rand(3, 226, 226); b = a.unsqueeze(0); print(a.shape, b.shape)
    c = torch.rand(1, 1, 1, 1, 1); print(c)
    a = torch.rand(1, 20); print(a.shape); print(a)
    b = a.squeeze(0); print(b.shape); print(b)
    c = torch.rand(2, 2); d = c.squeeze(0); print(c.shape, d.shape)
    a = torch.ones(4, 3, 2); c = a * torch.rand(3, 1); print(c)
    a = torch.ones(4, 3, 2); b = torch.rand(3); c = b.unsqueeze(1); print(c.shape); print(a * c)
    batch_me = torch.rand(3, 226, 226); batch_me.unsqueeze_(0); print(batch_me.shape)
    output3d = torch.rand(6, 20, 20); input1d = output3d.reshape(6 * 20 * 20); print(input1d.shape)
    print(torch.reshape(output3d, (6 * 20 * 20,)).shape)
    import numpy as np
    numpy_array = np.ones((2, 3)); pytorch_tensor = torch.from_numpy(numpy_array); print(pytorch_tensor)
    pytorch_rand = torch.rand(2, 3); numpy_rand = pytorch_rand.numpy(); print(numpy_rand)
    numpy_array[1, 1] = 23; print(pytorch_tensor)
    pytorch_rand[1, 1] = 17; print(numpy_rand)
    print(torch.tensor([1.0, 2.0]).dtype, torch.zeros(2, dtype=torch.bool), torch.arange(5, dtype=torch.uint8))
    print(torch.tensor([[1e10, 1e-10]]), torch.tensor([1, 2], dtype=torch.complex64), torch.tensor([0.1], dtype=torch.half))
    print(torch.tensor([]), torch.zeros(0, 3), torch.tensor(3.5), torch.tensor(True))
    x = torch.arange(24.).reshape(2, 3, 4)
    print(x.stride(), x.t().is_contiguous() if x.dim() == 2 else x.transpose(0, 2).is_contiguous(), x.storage_offset())
    print(x.numel(), x.element_size(), x.nbytes, x.itemsize, x.ndim, x.size(1), x.dim())

def fundamentals_autograd(torch):
    # pytorch/tutorials beginner/introyt/autogradyt_tutorial.py
    a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True); print(a)
    b = torch.sin(a); print(b)
    c = 2 * b; print(c)
    d = c + 1; print(d)
    out = d.sum(); print(out)
    print('d:'); print(d.grad_fn); print(d.grad_fn.next_functions); print(d.grad_fn.next_functions[0][0].next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
    print('\nc:'); print(c.grad_fn); print('\nb:'); print(b.grad_fn); print('\na:'); print(a.grad_fn)
    out.backward(); print(a.grad)
    BATCH_SIZE = 4; DIM_IN = 10; HIDDEN_SIZE = 6; DIM_OUT = 3
    class TinyModel(torch.nn.Module):
        def __init__(self):
            super(TinyModel, self).__init__()
            self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
            self.relu = torch.nn.ReLU()
            self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)
        def forward(self, x):
            x = self.layer1(x); x = self.relu(x); x = self.layer2(x); return x
    torch.manual_seed(0)
    some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
    ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)
    model = TinyModel()
    print(model.layer2.weight[0][0:10]); print(model.layer2.weight.grad)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum(); print(loss)
    loss.backward(); print(model.layer2.weight[0][0:10]); print(model.layer2.weight.grad[0][0:10])
    optimizer.step(); print(model.layer2.weight[0][0:10]); print(model.layer2.weight.grad[0][0:10])
    for i in range(0, 5):
        prediction = model(some_input); loss = (ideal_output - prediction).pow(2).sum(); loss.backward()
    print(model.layer2.weight.grad[0][0:10])
    optimizer.zero_grad(set_to_none=False)
    print(model.layer2.weight.grad[0][0:10])
    a = torch.ones(2, 3, requires_grad=True); print(a)
    b1 = 2 * a; print(b1)
    a.requires_grad = False
    b2 = 2 * a; print(b2)
    a = torch.ones(2, 3, requires_grad=True) * 2; b = torch.ones(2, 3, requires_grad=True) * 3
    c1 = a + b; print(c1)
    with torch.no_grad():
        c2 = a + b
    print(c2)
    c3 = a * b; print(c3)
    def add_tensors1(x, y): return x + y
    @torch.no_grad()
    def add_tensors2(x, y): return x + y
    a = torch.ones(2, 3, requires_grad=True) * 2; b = torch.ones(2, 3, requires_grad=True) * 3
    print(add_tensors1(a, b)); print(add_tensors2(a, b))
    x = torch.rand(5, requires_grad=True); y = x.detach(); print(x); print(y)
    a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
    attempt(lambda: torch.sin_(a))
    x = torch.randn(2, 3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # (the tutorial's
        y = x * x  # profiler block is left out: torch's profiler takes a second to start)
    print(y.grad_fn)
    x = torch.ones(4, requires_grad=True) * 2
    y = x
    i = 0
    while y.norm() < 50:
        y = y * 2; i += 1
    print(y, i)
    v = torch.tensor([0.1, 1.0, 0.0001, 1.0], dtype=torch.float)
    y.backward(v); print(x.grad)
    def exp_adder(x, y): return 2 * x.exp() + 3 * y
    inputs = (torch.rand(2), torch.rand(2)); print(inputs)
    print(torch.autograd.functional.jacobian(exp_adder, inputs))
    inputs = (torch.rand(3), torch.rand(3)); print(inputs)
    print(torch.autograd.functional.jacobian(exp_adder, inputs))
    def do_some_doubling(x):
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        return y
    inputs = torch.randn(3); my_gradients = torch.tensor([0.1, 1.0, 0.0001])
    print(torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients))
    print(torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1., 2.])))
    print(torch.autograd.functional.jvp(exp_adder, inputs := (torch.rand(2), torch.rand(2)), v=(torch.ones(2), torch.ones(2))))
    print(torch.autograd.functional.hvp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]), torch.ones(2)))
    print(torch.autograd.functional.vhp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]), torch.ones(2)))

def saliency(torch):
    # saliency maps: gradients of the top class score w.r.t. the input image
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 5)).double()
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    img = torch.rand(1, 3, 8, 8, dtype=torch.double)
    img.requires_grad_()
    scores = model(img)
    score_max_index = scores.argmax()
    score_max = scores[0, score_max_index]
    print(score_max, score_max.grad_fn)
    score_max.backward()
    saliency, _ = torch.max(img.grad.data.abs(), dim=1)
    print(saliency.shape, saliency)
    # smoothgrad and integrated gradients
    baseline = torch.zeros_like(img)
    steps = 5
    alphas = torch.linspace(0, 1, steps, dtype=torch.double).view(-1, 1, 1, 1)
    path = baseline + alphas * (img.detach() - baseline)
    path.requires_grad_(True)
    out = model(path)[:, score_max_index]
    grads, = torch.autograd.grad(out.sum(), path)
    ig = (img.detach() - baseline) * grads.mean(0, keepdim=True)
    print(ig.sum(), out)
    noisy = img.detach().repeat(3, 1, 1, 1) + 0.1 * torch.randn(3, 3, 8, 8, dtype=torch.double)
    noisy.requires_grad_()
    g = torch.autograd.grad(model(noisy)[:, 0].sum(), noisy)[0]
    print(g.abs().amax(dim=1).mean(0))
    # guided-backprop style hook on ReLU
    def relu_hook(module, grad_in, grad_out):
        return (torch.clamp(grad_in[0], min=0.0),)
    h = model[1].register_full_backward_hook(relu_hook)
    x = img.detach().clone().requires_grad_()
    model(x)[0, 1].backward()
    print(x.grad.sum(), x.grad[0, 0, :2])
    h.remove()
    # gradient x input on a float32 model
    m = nn.Linear(6, 2); inp = torch.randn(4, 6, requires_grad=True)
    m(inp)[:, 1].sum().backward(); print(inp.grad * inp)


def dlwpt_ch4(torch):
    # Deep Learning with PyTorch ch4: images, tabular wine data, bike sharing, text one-hot
    import numpy as np
    torch.manual_seed(0)
    img_arr = (torch.rand(6, 5, 3) * 255).to(torch.uint8).numpy()
    img = torch.from_numpy(img_arr)
    out = img.permute(2, 0, 1); print(out.shape, out.stride(), out.is_contiguous())
    batch_size = 3
    batch = torch.zeros(batch_size, 3, 6, 5, dtype=torch.uint8)
    for i in range(batch_size):
        batch[i] = torch.from_numpy(img_arr).permute(2, 0, 1)[:3]
    batch = batch.float(); batch /= 255.0
    n_channels = batch.shape[1]
    for c in range(n_channels):
        mean = torch.mean(batch[:, c]); std = torch.std(batch[:, c])
        batch[:, c] = (batch[:, c] - mean) / std
    print(batch[0, 0, :2])
    wineq_numpy = np.round(np.random.RandomState(0).rand(10, 12) * 10, 1).astype(np.float32)
    wineq = torch.from_numpy(wineq_numpy); print(wineq.shape, wineq.dtype)
    data = wineq[:, :-1]; print(data, data.shape)
    target = wineq[:, -1]; print(target, target.shape)
    target = wineq[:, -1].long(); print(target)
    target_onehot = torch.zeros(target.shape[0], 11)
    print(target_onehot.scatter_(1, target.unsqueeze(1), 1.0))
    target_unsqueezed = target.unsqueeze(1); print(target_unsqueezed)
    data_mean = torch.mean(data, dim=0); print(data_mean)
    data_var = torch.var(data, dim=0); print(data_var)
    data_normalized = (data - data_mean) / torch.sqrt(data_var); print(data_normalized)
    bad_indexes = target <= 3; print(bad_indexes.shape, bad_indexes.dtype, bad_indexes.sum())
    bad_data = data[bad_indexes]; print(bad_data.shape)
    bad_data = data[target <= 3]
    mid_data = data[(target > 3) & (target < 7)]
    good_data = data[target >= 7]
    bad_mean = torch.mean(bad_data, dim=0); mid_mean = torch.mean(mid_data, dim=0); good_mean = torch.mean(good_data, dim=0)
    for i, args in enumerate(zip(range(11), bad_mean, mid_mean, good_mean)):
        print('{:2} {:20} {:6.2f} {:6.2f} {:6.2f}'.format(*args))
    total_sulfur_threshold = 5.0
    total_sulfur_data = data[:, 6]
    predicted_indexes = torch.lt(total_sulfur_data, total_sulfur_threshold)
    print(predicted_indexes.shape, predicted_indexes.dtype, predicted_indexes.sum())
    actual_indexes = target > 5
    n_matches = torch.sum(actual_indexes & predicted_indexes).item()
    n_predicted = torch.sum(predicted_indexes).item(); n_actual = torch.sum(actual_indexes).item()
    print(n_matches, n_matches / max(n_predicted, 1), n_matches / max(n_actual, 1))
    # bike sharing
    bikes_numpy = np.random.RandomState(1).randint(0, 4, size=(48, 17)).astype(np.float32)
    bikes_numpy[:, 1] = np.arange(48)
    bikes = torch.from_numpy(bikes_numpy); print(bikes.shape, bikes.stride())
    daily_bikes = bikes.view(-1, 24, bikes.shape[1]); print(daily_bikes.shape, daily_bikes.stride())
    daily_bikes = daily_bikes.transpose(1, 2); print(daily_bikes.shape, daily_bikes.stride())
    first_day = bikes[:24].long()
    weather_onehot = torch.zeros(first_day.shape[0], 4)
    print(first_day[:, 9])
    weather_onehot.scatter_(dim=1, index=first_day[:, 9].unsqueeze(1).long() - 0, value=1.0)
    print(torch.cat((bikes[:24], weather_onehot), 1)[:1])
    daily_weather_onehot = torch.zeros(daily_bikes.shape[0], 4, daily_bikes.shape[2])
    daily_weather_onehot.scatter_(1, daily_bikes[:, 9, :].long().unsqueeze(1), 1.0)
    print(daily_weather_onehot.shape)
    daily_bikes = torch.cat((daily_bikes, daily_weather_onehot), dim=1)
    daily_bikes[:, 9, :] = (daily_bikes[:, 9, :] - 1.0) / 3.0
    temp = daily_bikes[:, 10, :]
    temp_min = torch.min(temp); temp_max = torch.max(temp)
    daily_bikes[:, 10, :] = ((daily_bikes[:, 10, :] - temp_min) / (temp_max - temp_min))
    daily_bikes[:, 10, :] = ((daily_bikes[:, 10, :] - torch.mean(temp)) / torch.std(temp))
    print(daily_bikes[0, 9:12, :3])
    # text
    text = "Impossible, Mr. Bennet, impossible, when I am not acquainted with him"
    letter_t = torch.zeros(len(text), 128)
    for i, letter in enumerate(text.lower().strip()):
        letter_index = ord(letter) if ord(letter) < 128 else 0
        letter_t[i][letter_index] = 1
    print(letter_t.shape, letter_t.sum(), letter_t.nonzero()[:5])
    words = sorted(set(text.lower().replace(',', ' ').split()))
    word2index = {w: i for i, w in enumerate(words)}
    word_t = torch.zeros(len(words), len(word2index))
    for i, word in enumerate(words):
        word_t[i][word2index[word]] = 1
    print(word_t.argmax(1))
    # ch3 named tensors / storage
    points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
    print(points.storage() if False else points.untyped_storage().nbytes())
    second_point = points[1]; print(second_point.storage_offset(), second_point.size(), second_point.stride())
    points_t = points.t(); print(points_t, id(points.untyped_storage()) is not None, points_t.stride(), points_t.is_contiguous())
    points_t_cont = points_t.contiguous(); print(points_t_cont.stride())
    some_t = torch.ones(3, 4, 5); transpose_t = some_t.transpose(0, 2); print(some_t.shape, transpose_t.shape, some_t.stride(), transpose_t.stride())
    img_t = torch.randn(3, 5, 5); weights = torch.tensor([0.2126, 0.7152, 0.0722]); batch_t = torch.randn(2, 3, 5, 5)
    img_gray_naive = img_t.mean(-3); batch_gray_naive = batch_t.mean(-3); print(img_gray_naive.shape, batch_gray_naive.shape)
    unsqueezed_weights = weights.unsqueeze(-1).unsqueeze_(-1)
    img_weights = (img_t * unsqueezed_weights); batch_weights = (batch_t * unsqueezed_weights)
    img_gray_weighted = img_weights.sum(-3); batch_gray_weighted = batch_weights.sum(-3)
    print(batch_weights.shape, batch_t.shape, unsqueezed_weights.shape)
    img_gray_weighted_fancy = torch.einsum('...chw,c->...hw', img_t, weights)
    batch_gray_weighted_fancy = torch.einsum('...chw,c->...hw', batch_t, weights)
    print(batch_gray_weighted_fancy.shape, (batch_gray_weighted_fancy - batch_gray_weighted).abs().max())
    weights_named = torch.tensor([0.2126, 0.7152, 0.0722], names=['channels']) if hasattr(torch.Tensor, 'names') else None
    print(weights_named)
    double_points = torch.ones(10, 2, dtype=torch.double); short_points = torch.tensor([[1, 2], [3, 4]], dtype=torch.short)
    print(short_points.dtype, double_points.dtype, torch.zeros(10, 2).to(dtype=torch.short).dtype)
    points_64 = torch.rand(5, dtype=torch.double); points_short = points_64.to(torch.short); print(points_64 * points_short, (points_64 * points_short).dtype)
    print(points[None].shape, points[1:, 0], points[:, None, :].shape)
    buf = io.BytesIO(); torch.save(points, buf); buf.seek(0); print(torch.load(buf))

def dlwpt_ch5(torch):
    # Deep Learning with PyTorch ch5: the mechanics of learning (thermometer)
    t_c = [0.5, 14.0, 15.0, 28.0, 11.0, 8.0, 3.0, -4.0, 6.0, 13.0, 21.0]
    t_u = [35.7, 55.9, 58.2, 81.9, 56.3, 48.9, 33.9, 21.8, 48.4, 60.4, 68.4]
    t_c = torch.tensor(t_c); t_u = torch.tensor(t_u)
    def model(t_u, w, b): return w * t_u + b
    def loss_fn(t_p, t_c):
        squared_diffs = (t_p - t_c)**2
        return squared_diffs.mean()
    w = torch.ones(()); b = torch.zeros(())
    t_p = model(t_u, w, b); print(t_p)
    loss = loss_fn(t_p, t_c); print(loss)
    delta = 0.1
    loss_rate_of_change_w = (loss_fn(model(t_u, w + delta, b), t_c) - loss_fn(model(t_u, w - delta, b), t_c)) / (2.0 * delta)
    learning_rate = 1e-2
    w = w - learning_rate * loss_rate_of_change_w; print(w)
    def dloss_fn(t_p, t_c):
        dsq_diffs = 2 * (t_p - t_c) / t_p.size(0)
        return dsq_diffs
    def dmodel_dw(t_u, w, b): return t_u
    def dmodel_db(t_u, w, b): return 1.0
    def grad_fn(t_u, t_c, t_p, w, b):
        dloss_dtp = dloss_fn(t_p, t_c)
        dloss_dw = dloss_dtp * dmodel_dw(t_u, w, b)
        dloss_db = dloss_dtp * dmodel_db(t_u, w, b)
        return torch.stack([dloss_dw.sum(), dloss_db.sum()])
    def training_loop(n_epochs, learning_rate, params, t_u, t_c, print_params=True):
        for epoch in range(1, n_epochs + 1):
            w, b = params
            t_p = model(t_u, w, b)
            loss = loss_fn(t_p, t_c)
            grad = grad_fn(t_u, t_c, t_p, w, b)
            params = params - learning_rate * grad
            if epoch in {1, 2, 3, 10, 11, 99, 100, 4000, 5000}:
                print('Epoch %d, Loss %f' % (epoch, float(loss)))
                if print_params:
                    print('    Params:', params); print('    Grad:  ', grad)
            if not torch.isfinite(loss).all():
                break
        return params
    print(training_loop(n_epochs=100, learning_rate=1e-2, params=torch.tensor([1.0, 0.0]), t_u=t_u, t_c=t_c))
    print(training_loop(n_epochs=100, learning_rate=1e-4, params=torch.tensor([1.0, 0.0]), t_u=t_u, t_c=t_c))
    t_un = 0.1 * t_u
    params = training_loop(n_epochs=300, learning_rate=1e-2, params=torch.tensor([1.0, 0.0]), t_u=t_un, t_c=t_c, print_params=False)
    print(params)
    params = torch.tensor([1.0, 0.0], requires_grad=True)
    print(params.grad is None)
    loss = loss_fn(model(t_u, *params), t_c); loss.backward(); print(params.grad)
    if params.grad is not None:
        params.grad.zero_()
    def training_loop2(n_epochs, learning_rate, params, t_u, t_c):
        for epoch in range(1, n_epochs + 1):
            if params.grad is not None:
                params.grad.zero_()
            t_p = model(t_u, *params)
            loss = loss_fn(t_p, t_c)
            loss.backward()
            with torch.no_grad():
                params -= learning_rate * params.grad
            if epoch % 100 == 0:
                print('Epoch %d, Loss %f' % (epoch, float(loss)))
        return params
    print(training_loop2(n_epochs=300, learning_rate=1e-2, params=torch.tensor([1.0, 0.0], requires_grad=True), t_u=t_un, t_c=t_c))
    optim = torch.optim
    print([n for n in ['SGD', 'Adam', 'ASGD', 'Adadelta', 'Adagrad', 'AdamW', 'Adamax', 'LBFGS', 'NAdam', 'RAdam', 'RMSprop', 'Rprop', 'SparseAdam'] if hasattr(optim, n)])
    params = torch.tensor([1.0, 0.0], requires_grad=True)
    optimizer = optim.SGD([params], lr=1e-5)
    t_p = model(t_u, *params); loss = loss_fn(t_p, t_c); loss.backward(); optimizer.step(); print(params)
    def training_loop3(n_epochs, optimizer, params, train_t_u, val_t_u, train_t_c, val_t_c):
        for epoch in range(1, n_epochs + 1):
            train_t_p = model(train_t_u, *params); train_loss = loss_fn(train_t_p, train_t_c)
            with torch.no_grad():
                val_t_p = model(val_t_u, *params); val_loss = loss_fn(val_t_p, val_t_c)
                assert val_loss.requires_grad == False
            optimizer.zero_grad(); train_loss.backward(); optimizer.step()
            if epoch <= 3 or epoch % 200 == 0:
                print(f"Epoch {epoch}, Training loss {train_loss.item():.4f}, Validation loss {val_loss.item():.4f}")
        return params
    torch.manual_seed(0)
    n_samples = t_u.shape[0]; n_val = int(0.2 * n_samples)
    shuffled_indices = torch.randperm(n_samples); print(shuffled_indices)
    train_indices = shuffled_indices[:-n_val]; val_indices = shuffled_indices[-n_val:]
    train_t_u = t_u[train_indices]; train_t_c = t_c[train_indices]
    val_t_u = t_u[val_indices]; val_t_c = t_c[val_indices]
    params = torch.tensor([1.0, 0.0], requires_grad=True)
    optimizer = optim.Adam([params], lr=1e-1)
    print(training_loop3(600, optimizer, params, 0.1 * train_t_u, 0.1 * val_t_u, train_t_c, val_t_c))

def dlwpt_ch6(torch):
    # Deep Learning with PyTorch ch6: nn.Linear, Sequential, OrderedDict, custom subclass
    from collections import OrderedDict
    nn = torch.nn; optim = torch.optim
    torch.manual_seed(0)
    t_c = torch.tensor([0.5, 14.0, 15.0, 28.0, 11.0, 8.0, 3.0, -4.0, 6.0, 13.0, 21.0]).unsqueeze(1)
    t_u = torch.tensor([35.7, 55.9, 58.2, 81.9, 56.3, 48.9, 33.9, 21.8, 48.4, 60.4, 68.4]).unsqueeze(1)
    idx = torch.randperm(11); tr, va = idx[:-2], idx[-2:]
    t_un_train = 0.1 * t_u[tr]; t_un_val = 0.1 * t_u[va]; t_c_train = t_c[tr]; t_c_val = t_c[va]
    linear_model = nn.Linear(1, 1); print(linear_model(t_un_val))
    print(linear_model.weight, linear_model.bias)
    x = torch.ones(1); print(linear_model(x))
    x = torch.ones(10, 1); print(linear_model(x))
    optimizer = optim.SGD(linear_model.parameters(), lr=1e-2)
    print(list(linear_model.parameters()))
    def training_loop(n_epochs, optimizer, model, loss_fn, t_u_train, t_u_val, t_c_train, t_c_val):
        for epoch in range(1, n_epochs + 1):
            t_p_train = model(t_u_train); loss_train = loss_fn(t_p_train, t_c_train)
            t_p_val = model(t_u_val); loss_val = loss_fn(t_p_val, t_c_val)
            optimizer.zero_grad(); loss_train.backward(); optimizer.step()
            if epoch == 1 or epoch % 100 == 0:
                print(f"Epoch {epoch}, Training loss {loss_train.item():.4f}, Validation loss {loss_val.item():.4f}")
    training_loop(300, optimizer, linear_model, nn.MSELoss(), t_un_train, t_un_val, t_c_train, t_c_val)
    print(linear_model.weight, linear_model.bias)
    seq_model = nn.Sequential(nn.Linear(1, 13), nn.Tanh(), nn.Linear(13, 1)); print(seq_model)
    print([param.shape for param in seq_model.parameters()])
    for name, param in seq_model.named_parameters():
        print(name, param.shape)
    seq_model = nn.Sequential(OrderedDict([('hidden_linear', nn.Linear(1, 8)), ('hidden_activation', nn.Tanh()), ('output_linear', nn.Linear(8, 1))]))
    print(seq_model)
    for name, param in seq_model.named_parameters():
        print(name, param.shape)
    print(seq_model.output_linear.bias)
    optimizer = optim.SGD(seq_model.parameters(), lr=1e-3)
    training_loop(300, optimizer, seq_model, nn.MSELoss(), t_un_train, t_un_val, t_c_train, t_c_val)
    print('output', seq_model(t_un_val)); print('answer', t_c_val); print('hidden', seq_model.hidden_linear.weight.grad)
    t_range = torch.arange(20., 90.).unsqueeze(1)
    print(seq_model(0.1 * t_range).detach()[:3])
    class SubclassModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden_linear = nn.Linear(1, 13); self.hidden_activation = nn.Tanh(); self.output_linear = nn.Linear(13, 1)
        def forward(self, input):
            hidden_t = self.hidden_linear(input); activated_t = self.hidden_activation(hidden_t); output_t = self.output_linear(activated_t)
            return output_t
    subclass_model = SubclassModel(); print(subclass_model)
    for type_str, model in [('seq', seq_model), ('sub', subclass_model)]:
        print(type_str)
        for name_str, param in model.named_parameters():
            print("{:21} {} {}".format(name_str, tuple(param.shape), param.numel()))
    class SubclassFunctionalModel(nn.Module):
        def __init__(self):
            super().__init__(); self.hidden_linear = nn.Linear(1, 14); self.output_linear = nn.Linear(14, 1)
        def forward(self, input):
            hidden_t = self.hidden_linear(input); activated_t = torch.tanh(hidden_t); return self.output_linear(activated_t)
    func_model = SubclassFunctionalModel(); print(func_model)
    print(func_model(t_un_val))
    print(nn.functional.mse_loss(func_model(t_un_val), t_c_val), torch.nn.L1Loss()(func_model(t_un_val), t_c_val))

def dlwpt_ch7_8(torch):
    # Deep Learning with PyTorch ch7/8: birds vs airplanes on CIFAR-shaped random data
    nn = torch.nn; F = torch.nn.functional; optim = torch.optim
    torch.manual_seed(123)
    imgs = torch.rand(16, 3, 32, 32)
    labels = torch.randint(0, 2, (16,))
    print(imgs.view(3, -1).mean(dim=1) if False else imgs.view(16, 3, -1).mean(dim=2).mean(0), imgs.transpose(0, 1).reshape(3, -1).std(dim=1))
    img, label = imgs[0], labels[0]
    print(img.permute(1, 2, 0).shape, label)
    model = nn.Sequential(nn.Linear(3072, 64), nn.Tanh(), nn.Linear(64, 2), nn.Softmax(dim=1))
    def softmax(x): return torch.exp(x) / torch.exp(x).sum()
    x = torch.tensor([1.0, 2.0, 3.0]); print(softmax(x), softmax(x).sum())
    softmax2 = nn.Softmax(dim=1); x = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]); print(softmax2(x))
    img_batch = img.view(-1).unsqueeze(0); out = model(img_batch); print(out)
    _, index = torch.max(out, dim=1); print(index)
    model = nn.Sequential(nn.Linear(3072, 16), nn.Tanh(), nn.Linear(16, 2), nn.LogSoftmax(dim=1))
    loss = nn.NLLLoss(); out = model(img.view(-1).unsqueeze(0)); print(loss(out, label.unsqueeze(0)))
    train_loader = torch.utils.data.DataLoader(list(zip(imgs, labels)), batch_size=4, shuffle=True)
    optimizer = optim.SGD(model.parameters(), lr=1e-2)
    for epoch in range(2):
        for imgs_b, labels_b in train_loader:
            batch_size = imgs_b.shape[0]
            outputs = model(imgs_b.view(batch_size, -1))
            l = loss(outputs, labels_b)
            optimizer.zero_grad(); l.backward(); optimizer.step()
        print("Epoch: %d, Loss: %f" % (epoch, float(l)))
    correct = 0; total = 0
    with torch.no_grad():
        for imgs_b, labels_b in train_loader:
            outputs = model(imgs_b.view(imgs_b.shape[0], -1)); _, predicted = torch.max(outputs, dim=1)
            total += labels_b.shape[0]; correct += int((predicted == labels_b).sum())
    print("Accuracy: %f" % (correct / total))
    numel_list = [p.numel() for p in model.parameters() if p.requires_grad == True]; print(sum(numel_list), numel_list)
    # ch8 convolutions
    conv = nn.Conv2d(3, 16, kernel_size=3); print(conv); print(conv.weight.shape, conv.bias.shape)
    output = conv(img.unsqueeze(0).double().float()); print(img.unsqueeze(0).shape, output.shape)
    conv = nn.Conv2d(3, 1, kernel_size=3, padding=1); output = conv(img.unsqueeze(0)); print(output.shape)
    with torch.no_grad():
        conv.bias.zero_()
    with torch.no_grad():
        conv.weight.fill_(1.0 / 9.0)
    print(conv(img.unsqueeze(0))[0, 0, :2, :4])
    conv = nn.Conv2d(3, 1, kernel_size=3, padding=1)
    with torch.no_grad():
        conv.weight[:] = torch.tensor([[-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]])
        conv.bias.zero_()
    print(conv(img.unsqueeze(0))[0, 0, :2, :4])
    pool = nn.MaxPool2d(2); output = pool(img.unsqueeze(0)); print(img.unsqueeze(0).shape, output.shape)
    model = nn.Sequential(nn.Conv2d(3, 16, kernel_size=3, padding=1), nn.Tanh(), nn.MaxPool2d(2), nn.Conv2d(16, 8, kernel_size=3, padding=1), nn.Tanh(), nn.MaxPool2d(2))
    numel_list = [p.numel() for p in model.parameters()]; print(sum(numel_list), numel_list)
    model2 = nn.Sequential(*model, nn.Linear(8 * 8 * 8, 32), nn.Tanh(), nn.Linear(32, 2))
    attempt(lambda: model2(img.unsqueeze(0)))
    class Net(nn.Module):
        def __init__(self, n_chans1=8):
            super().__init__()
            self.n_chans1 = n_chans1
            self.conv1 = nn.Conv2d(3, n_chans1, kernel_size=3, padding=1)
            self.conv1_dropout = nn.Dropout2d(p=0.4)
            self.conv2 = nn.Conv2d(n_chans1, n_chans1 // 2, kernel_size=3, padding=1)
            self.conv2_batchnorm = nn.BatchNorm2d(num_features=n_chans1 // 2)
            self.fc1 = nn.Linear(8 * 8 * n_chans1 // 2, 32); self.fc2 = nn.Linear(32, 2)
        def forward(self, x):
            out = F.max_pool2d(torch.tanh(self.conv1(x)), 2)
            out = self.conv1_dropout(out)
            out = F.max_pool2d(torch.tanh(self.conv2_batchnorm(self.conv2(out))), 2)
            out = out.view(-1, 8 * 8 * self.n_chans1 // 2)
            out = torch.tanh(self.fc1(out)); out = self.fc2(out); return out
    model = Net().double()
    imgs64 = imgs.double()
    out = model(imgs64[:4]); print(out)
    loss_fn = nn.CrossEntropyLoss(); optimizer = optim.SGD(model.parameters(), lr=1e-2)
    for epoch in range(1, 3):
        loss_train = 0.0
        for i in range(0, 16, 8):
            outputs = model(imgs64[i:i + 8]); loss = loss_fn(outputs, labels[i:i + 8])
            l2_lambda = 0.001; l2_norm = sum(p.pow(2.0).sum() for p in model.parameters())
            loss = loss + l2_lambda * l2_norm
            optimizer.zero_grad(); loss.backward(); optimizer.step(); loss_train += loss.item()
        print('Epoch {}, Training loss {}'.format(epoch, loss_train / 2))
    print(model.conv2_batchnorm.running_mean, model.conv2_batchnorm.num_batches_tracked)
    buf = io.BytesIO(); torch.save(model.state_dict(), buf); buf.seek(0)
    loaded_model = Net().double(); print(loaded_model.load_state_dict(torch.load(buf)))
    model.eval(); loaded_model.eval(); print(torch.equal(model(imgs64[:2]), loaded_model(imgs64[:2])))
    class ResBlock(nn.Module):
        def __init__(self, n_chans):
            super(ResBlock, self).__init__()
            self.conv = nn.Conv2d(n_chans, n_chans, kernel_size=3, padding=1, bias=False)
            self.batch_norm = nn.BatchNorm2d(num_features=n_chans)
            torch.nn.init.kaiming_normal_(self.conv.weight, nonlinearity='relu')
            torch.nn.init.constant_(self.batch_norm.weight, 0.5)
            torch.nn.init.zeros_(self.batch_norm.bias)
        def forward(self, x):
            out = self.conv(x); out = self.batch_norm(out); out = torch.relu(out); return out + x
    rb = ResBlock(4).double(); y = rb(torch.randn(2, 4, 5, 5, dtype=torch.double)); print(y.grad_fn, y.sum())


def fastai_matmul(torch):
    # fastai course22p2 01_matmul / 03_backprop: matmul from scratch, broadcasting, einsum, forward/backward by hand
    torch.manual_seed(42)
    x_train = torch.rand(20, 12); y_train = torch.randint(0, 10, (20,)).float()
    weights = torch.randn(12, 10); bias = torch.zeros(10)
    m1 = x_train[:5]; m2 = weights
    ar, ac = m1.shape; br, bc = m2.shape; print((ar, ac), (br, bc))
    t1 = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            for k in range(ac): t1[i, j] += m1[i, k] * m2[k, j]
    print(t1, t1.shape)
    torch.set_printoptions(precision=2, linewidth=140, sci_mode=False); print(t1)
    def matmul2(a, b):
        (ar, ac), (br, bc) = a.shape, b.shape; c = torch.zeros(ar, bc)
        for i in range(ar):
            for j in range(bc): c[i, j] = (a[i, :] * b[:, j]).sum()
        return c
    print(torch.isclose(t1, matmul2(m1, m2)).all(), torch.allclose(t1, matmul2(m1, m2), rtol=1e-3, atol=1e-5))
    a = torch.tensor([10., 6, -4]); b = torch.tensor([2., 8, 7]); print(a + b, (a < b).float().mean())
    m = torch.tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]]); print(m * m, (m * m).sum().sqrt(), m[2, :], m[:, 2], m[2])
    c = torch.tensor([10., 20, 30]); print(a > 0, a + 1, m * 2, m + c, c + m)
    t = c.expand_as(m); print(t, t.untyped_storage().nbytes(), t.stride(), t.shape)
    print(c.unsqueeze(0), c[None, :], c.shape, c.unsqueeze(0).shape, c.unsqueeze(1).shape, c[:, None], c[None].shape, c[..., None].shape)
    print(c[:, None].expand_as(m), m + c[:, None], c[None, :] * c[:, None], c[None] > c[:, None])
    def matmul3(a, b):
        (ar, ac), (br, bc) = a.shape, b.shape; c = torch.zeros(ar, bc)
        for i in range(ar): c[i] = (a[i, :, None] * b).sum(dim=0)
        return c
    print(torch.allclose(t1, matmul3(m1, m2), atol=1e-5))
    mr = torch.einsum('ik,kj->ikj', m1, m2); print(mr.shape, torch.allclose(mr.sum(1), t1, atol=1e-5))
    print(torch.einsum('ik,kj->ij', m1, m2).shape, (m1 @ m2).shape)
    torch.set_printoptions(profile='default')
    # forward and backward pass by hand
    n, m_ = x_train.shape; nh = 5
    w1 = torch.randn(m_, nh); b1 = torch.zeros(nh); w2 = torch.randn(nh, 1); b2 = torch.zeros(1)
    def lin(x, w, b): return x @ w + b
    def relu(x): return x.clamp_min(0.)
    def mse(output, targ): return (output[:, 0] - targ).pow(2).mean()
    def lin_grad(inp, out, w, b):
        inp.g = out.g @ w.t()
        w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
        b.g = out.g.sum(0)
    def forward_and_backward(inp, targ):
        l1 = lin(inp, w1, b1); l2 = relu(l1); out = lin(l2, w2, b2)
        diff = out[:, 0] - targ; loss = diff.pow(2).mean()
        out.g = 2. * diff[:, None] / inp.shape[0]
        lin_grad(l2, out, w2, b2)
        l1.g = (l1 > 0).float() * l2.g
        lin_grad(inp, l1, w1, b1)
        return loss
    inp = x_train.clone()
    print(forward_and_backward(inp, y_train))
    grads = w1.g, b1.g, w2.g, b2.g, inp.g
    ptgrads = [p.clone().requires_grad_(True) for p in (w1, b1, w2, b2, inp)]
    def forward(inp, targ):
        l1 = lin(inp, ptgrads[0], ptgrads[1]); l2 = relu(l1); out = lin(l2, ptgrads[2], ptgrads[3]); return mse(out, targ)
    loss = forward(ptgrads[4], y_train); loss.backward()
    for a_, b_ in zip(grads, ptgrads): print(torch.allclose(a_, b_.grad, rtol=1e-3, atol=1e-4), (a_ - b_.grad).abs().max() < 1e-3)
    class Relu():
        def __call__(self, inp):
            self.inp = inp; self.out = inp.clamp_min(0.); return self.out
        def backward(self): self.inp.g = (self.inp > 0).float() * self.out.g
    class Lin():
        def __init__(self, w, b): self.w, self.b = w, b
        def __call__(self, inp):
            self.inp = inp; self.out = lin(inp, self.w, self.b); return self.out
        def backward(self):
            self.inp.g = self.out.g @ self.w.t(); self.w.g = self.inp.t() @ self.out.g; self.b.g = self.out.g.sum(0)
    class Mse():
        def __call__(self, inp, targ):
            self.inp, self.targ = inp, targ; self.out = mse(inp, targ); return self.out
        def backward(self): self.inp.g = 2. * (self.inp.squeeze() - self.targ).unsqueeze(-1) / self.targ.shape[0]
    class Model():
        def __init__(self, w1, b1, w2, b2):
            self.layers = [Lin(w1, b1), Relu(), Lin(w2, b2)]; self.loss = Mse()
        def __call__(self, x, targ):
            for l in self.layers: x = l(x)
            return self.loss(x, targ)
        def backward(self):
            self.loss.backward()
            for l in reversed(self.layers): l.backward()
    model = Model(w1, b1, w2, b2); loss = model(x_train, y_train); model.backward(); print(loss, w2.g.t(), b1.g)
    class LinFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b): ctx.save_for_backward(x, w); return x @ w + b
        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors; return g @ w.t(), x.t() @ g, g.sum(0)
    x = x_train.clone().requires_grad_(); w = w1.clone().requires_grad_(); b = b1.clone().requires_grad_()
    out = LinFn.apply(x, w, b); print(out.grad_fn.__class__.__name__, out.grad_fn)
    out.relu().sum().backward(); print(torch.allclose(w.grad, ((x_train @ w1 + b1) > 0).float().T.__rmatmul__(x_train.T) if False else w.grad), b.grad)

def fastai_hooks(torch):
    # fastai course22p2 10_activations / 11_initializing: hooks recording activation stats, GeneralRelu, LSUV, init
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(1)
    def conv(ni, nf, ks=3, act=True):
        res = nn.Conv2d(ni, nf, stride=2, kernel_size=ks, padding=ks // 2)
        if act: res = nn.Sequential(res, nn.ReLU())
        return res
    def cnn_layers():
        return [conv(1, 4, ks=5), conv(4, 8), conv(8, 8), nn.Conv2d(8, 10, 3, stride=2, padding=1), nn.Flatten()]
    model = nn.Sequential(*cnn_layers()).double()
    x = torch.randn(8, 1, 16, 16, dtype=torch.double); y = torch.randint(0, 10, (8,))
    act_means = [[] for _ in model]; act_stds = [[] for _ in model]
    def append_stats(i, mod, inp, outp):
        act_means[i].append(outp.data.mean().item()); act_stds[i].append(outp.data.std().item())
    hs = [m.register_forward_hook(partial(append_stats, i)) for i, m in enumerate(model)]
    opt = torch.optim.SGD(model.parameters(), lr=0.6)
    for it in range(3):
        loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    print([['%.6f' % v for v in l] for l in act_means]); print([['%.6f' % v for v in l] for l in act_stds])
    for h in hs: h.remove()
    class Hook():
        def __init__(self, m, f): self.hook = m.register_forward_hook(partial(f, self))
        def remove(self): self.hook.remove()
        def __del__(self): self.remove()
    def append_stats2(hook, mod, inp, outp):
        if not hasattr(hook, 'stats'): hook.stats = ([], [], [])
        acts = outp.data.double()
        hook.stats[0].append(acts.mean()); hook.stats[1].append(acts.std())
        hook.stats[2].append(acts.abs().histc(40, 0, 10))
    hooks = [Hook(l, append_stats2) for l in model[:3]]
    model(x); model(x * 2)
    for h in hooks:
        print(torch.stack(h.stats[0]), torch.stack(h.stats[2]).t().float().log1p().shape, h.stats[2][0])
        h.remove()
    def get_min(h):
        h1 = torch.stack(h.stats[2]).t().float(); return h1[0] / h1.sum(0)
    print(get_min(hooks[0]))
    class GeneralRelu(nn.Module):
        def __init__(self, leak=None, sub=None, maxv=None):
            super().__init__(); self.leak, self.sub, self.maxv = leak, sub, maxv
        def forward(self, x):
            x = F.leaky_relu(x, self.leak) if self.leak is not None else F.relu(x)
            if self.sub is not None: x -= self.sub
            if self.maxv is not None: x.clamp_max_(self.maxv)
            return x
    t = torch.linspace(-4, 4, 9, requires_grad=True); gr = GeneralRelu(leak=0.1, sub=0.4, maxv=2.)
    out = gr(t); print(out, out.grad_fn); out.sum().backward(); print(t.grad)
    def init_weights(m, leaky=0.):
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear)): nn.init.kaiming_normal_(m.weight, a=leaky)
    torch.manual_seed(2)
    model = nn.Sequential(*cnn_layers()); model.apply(partial(init_weights, leaky=0.1)); model.double()  # (float32 conv: oneDNN bits)
    print(model[0][0].weight.std(), model[3].weight[0, 0])
    print(nn.init.calculate_gain('leaky_relu', 0.1), nn.init.calculate_gain('relu'), nn.init.calculate_gain('tanh'))
    xx = torch.randn(200, 100); yy = torch.randn(200)
    for i in range(5):
        a = torch.randn(100, 100) * math.sqrt(2 / 100); xx = (xx @ a).relu()
    print(xx.mean(), xx.std(), xx[0:3, 0:3])
    # LSUV
    def _lsuv_stats(hook, mod, inp, outp):
        acts = outp.data; hook.mean = acts.mean(); hook.std = acts.std()
    def lsuv_init(m, m_in, xb):
        h = Hook(m, _lsuv_stats)
        with torch.no_grad():
            for _ in range(10):
                model(xb)
                if abs(h.std - 1) < 1e-3 and abs(h.mean) < 1e-3: break
                m_in.bias -= h.mean; m_in.weight.data /= h.std
        h.remove()
    xb = torch.randn(8, 1, 16, 16, dtype=torch.double)
    relus = [o for o in model.modules() if isinstance(o, nn.ReLU)]; convs = [o for o in model.modules() if isinstance(o, nn.Conv2d)]
    for ms in zip(relus, convs): lsuv_init(*ms, xb)
    print([c.weight.std().item() for c in convs])
    # batchnorm from scratch
    class BatchNorm(nn.Module):
        def __init__(self, nf, mom=0.1, eps=1e-5):
            super().__init__()
            self.mom, self.eps = mom, eps
            self.mults = nn.Parameter(torch.ones(nf, 1, 1)); self.adds = nn.Parameter(torch.zeros(nf, 1, 1))
            self.register_buffer('vars', torch.ones(1, nf, 1, 1)); self.register_buffer('means', torch.zeros(1, nf, 1, 1))
        def update_stats(self, x):
            m = x.mean((0, 2, 3), keepdim=True); v = x.var((0, 2, 3), keepdim=True)
            self.means.lerp_(m, self.mom); self.vars.lerp_(v, self.mom); return m, v
        def forward(self, x):
            if self.training:
                with torch.no_grad(): m, v = self.update_stats(x)
            else: m, v = self.means, self.vars
            x = (x - m) / (v + self.eps).sqrt(); return x * self.mults + self.adds
    class LayerNorm(nn.Module):
        def __init__(self, dummy, eps=1e-5):
            super().__init__(); self.eps = eps; self.mult = nn.Parameter(torch.tensor(1.)); self.add = nn.Parameter(torch.tensor(0.))
        def forward(self, x):
            m = x.mean((1, 2, 3), keepdim=True); v = x.var((1, 2, 3), keepdim=True)
            x = (x - m) / ((v + self.eps).sqrt()); return x * self.mult + self.add
    bn = BatchNorm(4).double(); ln = LayerNorm(4).double(); xi = torch.randn(3, 4, 5, 5, dtype=torch.double, requires_grad=True)
    o = bn(xi) + ln(xi); o.square().sum().backward()
    print(bn.means.flatten(), bn.vars.flatten(), xi.grad.sum(), bn.mults.grad.flatten(), ln.mult.grad, o.grad_fn)
    print(bn, dict(bn.named_buffers()).keys(), bn.state_dict().keys())

def fastai_training(torch):
    # fastai course22p2: mixup, label smoothing, LR finder, learner callbacks, schedulers
    nn = torch.nn; F = torch.nn.functional; optim = torch.optim
    Beta = torch.distributions.beta.Beta
    torch.manual_seed(3)
    xb = torch.randn(8, 6); yb = torch.randint(0, 3, (8,))
    model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
    distrib = Beta(torch.tensor([0.4]), torch.tensor([0.4]))
    lam = distrib.sample((xb.size(0),)).squeeze().to(xb.device); print(lam)
    lam = torch.stack([lam, 1 - lam], 1); lam = lam.max(1)[0]; print(lam)
    shuffle = torch.randperm(xb.size(0)).to(xb.device)
    xb1, yb1 = xb[shuffle], yb[shuffle]
    def lin_comb(v1, v2, beta): return beta * v1 + (1 - beta) * v2
    xbm = lin_comb(xb, xb1, lam[:, None]); print(xbm[:2])
    def reduce_loss(loss, reduction='mean'):
        return loss.mean() if reduction == 'mean' else loss.sum() if reduction == 'sum' else loss
    pred = model(xbm)
    loss = lin_comb(F.cross_entropy(pred, yb, reduction='none'), F.cross_entropy(pred, yb1, reduction='none'), lam)
    print(reduce_loss(loss), loss.grad_fn)
    class LabelSmoothingCrossEntropy(nn.Module):
        def __init__(self, ε: float = 0.1, reduction='mean'):
            super().__init__(); self.ε, self.reduction = ε, reduction
        def forward(self, output, target):
            c = output.size()[-1]; log_preds = F.log_softmax(output, dim=-1)
            loss = reduce_loss(-log_preds.sum(dim=-1), self.reduction)
            nll = F.nll_loss(log_preds, target, reduction=self.reduction)
            return lin_comb(loss / c, nll, self.ε)
    print(LabelSmoothingCrossEntropy()(pred, yb), F.cross_entropy(pred, yb, label_smoothing=0.1))
    print(nn.CrossEntropyLoss(label_smoothing=0.2, reduction='sum')(pred, yb), F.cross_entropy(pred, F.one_hot(yb, 3).float(), label_smoothing=0.1))
    # LR finder with torch.optim and a multiplicative schedule
    opt = optim.SGD(model.parameters(), lr=1e-4)
    sched = optim.lr_scheduler.ExponentialLR(opt, gamma=1.5)
    lrs, losses = [], []; min_loss = math.inf
    for i in range(30):
        loss = F.cross_entropy(model(xb), yb); loss.backward(); opt.step(); opt.zero_grad()
        lrs.append(sched.get_last_lr()[0]); losses.append(loss.item()); sched.step()
        if loss.item() < min_loss: min_loss = loss.item()
        if math.isnan(loss.item()) or loss.item() > min_loss * 3: break
    print(i, ['%.6g' % v for v in lrs[-3:]], ['%.6g' % v for v in losses[-3:]])
    # one cycle and cosine annealing as in the 'accel' notebook
    model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
    opt = optim.AdamW(model.parameters(), lr=1e-2, eps=1e-5)
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=6e-2, total_steps=12)
    rec = []
    for i in range(12):
        loss = F.cross_entropy(model(xb), yb); loss.backward(); opt.step(); opt.zero_grad(); sched.step()
        rec.append((opt.param_groups[0]['lr'], opt.param_groups[0]['betas'][0]))
    print(rec[:3], rec[-1], loss)
    opt = optim.SGD(model.parameters(), lr=0.1)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
    lrs = []
    for i in range(7): lrs.append(opt.param_groups[0]['lr']); opt.step(); sched.step()
    print(lrs, sched.state_dict()['last_epoch'], sched.get_last_lr())
    print(optim.lr_scheduler.CosineAnnealingLR.__name__, opt)
    # callbacks/learner style with metrics
    class CancelFitException(Exception): pass
    class Learner:
        def __init__(self, model, lr, cbs): self.model, self.lr, self.cbs = model, lr, cbs
        def callback(self, name):
            for cb in self.cbs: getattr(cb, name, lambda l: None)(self)
        def fit(self, n):
            self.opt = optim.SGD(self.model.parameters(), self.lr)
            try:
                self.callback('before_fit')
                for self.epoch in range(n):
                    self.preds = self.model(xb); self.loss = F.cross_entropy(self.preds, yb)
                    self.loss.backward(); self.opt.step(); self.opt.zero_grad(); self.callback('after_batch')
            except CancelFitException: print('cancelled at', self.epoch)
    class Metric:
        def before_fit(self, learn): self.n = 0; self.acc = 0.
        def after_batch(self, learn):
            self.acc += (learn.preds.argmax(1) == yb).float().mean().item(); self.n += 1
            print(f'{learn.epoch} {learn.loss.item():.4f} {self.acc / self.n:.4f}')
            if learn.epoch == 2: raise CancelFitException()
    Learner(model, 0.2, [Metric()]).fit(5)
    print(torch.get_rng_state()[:8], torch.initial_seed())

def d2l_builders(torch):
    # d2l-en chapter_builders-guide: model-construction, parameters, init-param, lazy-init, custom-layer, read-write, use-gpu
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(4)
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    print(net[0].weight, net)
    X = torch.rand(size=(2, 4)); print(net(X).shape, net[0].weight.shape, net)
    print(net[2].state_dict()); print(type(net[2].bias), net[2].bias, net[2].bias.data)
    print(net[2].weight.grad == None)
    print([(name, param.shape) for name, param in net.named_parameters()])
    shared = nn.LazyLinear(8)
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1))
    net(X); print(net[2].weight.data[0] == net[4].weight.data[0])
    net[2].weight.data[0, 0] = 100; print(net[2].weight.data[0] == net[4].weight.data[0])
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1)); net(X)
    def init_normal(module):
        if type(module) == nn.Linear:
            nn.init.normal_(module.weight, mean=0, std=0.01); nn.init.zeros_(module.bias)
    net.apply(init_normal); print(net[0].weight.data[0], net[0].bias.data[0])
    def init_constant(module):
        if type(module) == nn.Linear:
            nn.init.constant_(module.weight, 1); nn.init.zeros_(module.bias)
    net.apply(init_constant); print(net[0].weight.data[0], net[0].bias.data[0])
    def init_xavier(module):
        if type(module) == nn.Linear: nn.init.xavier_uniform_(module.weight)
    def init_42(module):
        if type(module) == nn.Linear: nn.init.constant_(module.weight, 42)
    net[0].apply(init_xavier); net[2].apply(init_42); print(net[0].weight.data[0]); print(net[2].weight.data)
    def my_init(module):
        if type(module) == nn.Linear:
            print("Init", *[(name, param.shape) for name, param in module.named_parameters()][0])
            nn.init.uniform_(module.weight, -10, 10); module.weight.data *= module.weight.data.abs() >= 5
    net.apply(my_init); print(net[0].weight[:2])
    net[0].weight.data[:] += 1; net[0].weight.data[0, 0] = 42; print(net[0].weight.data[0])
    class CenteredLayer(nn.Module):
        def __init__(self): super().__init__()
        def forward(self, X): return X - X.mean()
    layer = CenteredLayer(); print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
    net = nn.Sequential(nn.LazyLinear(128), CenteredLayer()); Y = net(torch.rand(4, 8)); print(Y.mean())
    class MyLinear(nn.Module):
        def __init__(self, in_units, units):
            super().__init__(); self.weight = nn.Parameter(torch.randn(in_units, units)); self.bias = nn.Parameter(torch.randn(units,))
        def forward(self, X):
            linear = torch.matmul(X, self.weight.data) + self.bias.data; return F.relu(linear)
    linear = MyLinear(5, 3); print(linear.weight); print(linear(torch.rand(2, 5)))
    net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1)); print(net(torch.rand(2, 64)))
    class FixedHiddenMLP(nn.Module):
        def __init__(self):
            super().__init__(); self.rand_weight = torch.rand((20, 20)); self.linear = nn.LazyLinear(20)
        def forward(self, X):
            X = self.linear(X); X = F.relu(X @ self.rand_weight + 1); X = self.linear(X)
            while X.abs().sum() > 1: X /= 2
            return X.sum()
    net = FixedHiddenMLP(); print(net(torch.rand(2, 20)))
    class MySequential(nn.Module):
        def __init__(self, *args):
            super().__init__()
            for idx, module in enumerate(args): self.add_module(str(idx), module)
        def forward(self, X):
            for module in self.children(): X = module(X)
            return X
    net = MySequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10)); print(net(torch.rand(2, 20)).shape, net)
    # read-write
    d = tempfile.mkdtemp()
    x = torch.arange(4); torch.save(x, os.path.join(d, 'x-file')); x2 = torch.load(os.path.join(d, 'x-file')); print(x2)
    y = torch.zeros(4); torch.save([x, y], os.path.join(d, 'x-files')); x2, y2 = torch.load(os.path.join(d, 'x-files')); print((x2, y2))
    mydict = {'x': x, 'y': y}; torch.save(mydict, os.path.join(d, 'mydict')); print(torch.load(os.path.join(d, 'mydict')))
    class MLP(nn.Module):
        def __init__(self):
            super().__init__(); self.hidden = nn.LazyLinear(256); self.output = nn.LazyLinear(10)
        def forward(self, x): return self.output(F.relu(self.hidden(x)))
    net = MLP(); X = torch.randn(size=(2, 20)); Y = net(X)
    torch.save(net.state_dict(), os.path.join(d, 'mlp.params'))
    clone = MLP(); print(clone.load_state_dict(torch.load(os.path.join(d, 'mlp.params'))), clone.eval())
    Y_clone = clone(X); print(Y_clone == Y)
    # use-gpu chapter on a CPU-only machine
    print(torch.device('cpu'), torch.device('cuda'), torch.device('cuda:1'))
    print(torch.cuda.device_count(), torch.cuda.is_available())
    def try_gpu(i=0):
        if torch.cuda.device_count() >= i + 1: return torch.device(f'cuda:{i}')
        return torch.device('cpu')
    print(try_gpu(), try_gpu(10), [torch.device(f'cuda:{i}') for i in range(torch.cuda.device_count())])
    x = torch.tensor([1, 2, 3]); print(x.device)
    X = torch.ones(2, 3, device=try_gpu()); print(X)
    attempt(lambda: torch.ones(2, 3, device='cuda'))
    attempt(lambda: x.cuda())
    attempt(lambda: x.to('cuda:0'))
    print(x.cpu() is x, x.to('cpu') is x, x.to(try_gpu()) is x)
    net = nn.Sequential(nn.LazyLinear(1)); net = net.to(device=try_gpu()); print(net(X), net[0].weight.data.device)


def build_gpt(torch):
    # karpathy ng-video-lecture gpt-dev.ipynb: bigram model and the self-attention mathematical trick
    nn = torch.nn; F = torch.nn.functional
    text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n" * 3
    chars = sorted(list(set(text))); vocab_size = len(chars); print(''.join(chars), vocab_size)
    stoi = {ch: i for i, ch in enumerate(chars)}; itos = {i: ch for i, ch in enumerate(chars)}
    encode = lambda s: [stoi[c] for c in s]; decode = lambda l: ''.join([itos[i] for i in l])
    print(encode("hear me"), decode(encode("hear me")))
    data = torch.tensor(encode(text), dtype=torch.long); print(data.shape, data.dtype); print(data[:30])
    n = int(0.9 * len(data)); train_data = data[:n]; val_data = data[n:]
    block_size = 8; print(train_data[:block_size + 1])
    x = train_data[:block_size]; y = train_data[1:block_size + 1]
    for t in range(3):
        context = x[:t + 1]; target = y[t]; print(f"when input is {context} the target: {target}")
    torch.manual_seed(1337); batch_size = 4
    def get_batch(split):
        data = train_data if split == 'train' else val_data
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([data[i:i + block_size] for i in ix]); y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
        return x, y
    xb, yb = get_batch('train'); print('inputs:'); print(xb.shape); print(xb); print('targets:'); print(yb.shape); print(yb)
    class BigramLanguageModel(nn.Module):
        def __init__(self, vocab_size):
            super().__init__(); self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)
        def forward(self, idx, targets=None):
            logits = self.token_embedding_table(idx)
            if targets is None: loss = None
            else:
                B, T, C = logits.shape; logits = logits.view(B * T, C); targets = targets.view(B * T)
                loss = F.cross_entropy(logits, targets)
            return logits, loss
        def generate(self, idx, max_new_tokens):
            for _ in range(max_new_tokens):
                logits, loss = self(idx); logits = logits[:, -1, :]
                probs = F.softmax(logits, dim=-1); idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx
    m = BigramLanguageModel(vocab_size); logits, loss = m(xb, yb); print(logits.shape); print(loss)
    print(decode(m.generate(idx=torch.zeros((1, 1), dtype=torch.long), max_new_tokens=30)[0].tolist()))
    optimizer = torch.optim.AdamW(m.parameters(), lr=1e-3)
    for steps in range(20):
        xb, yb = get_batch('train'); logits, loss = m(xb, yb)
        optimizer.zero_grad(set_to_none=True); loss.backward(); optimizer.step()
    print(loss.item())
    @torch.no_grad()
    def estimate_loss():
        out = {}; m.eval()
        for split in ['train', 'val']:
            losses = torch.zeros(3)
            for k in range(3):
                X, Y = get_batch(split); logits, loss = m(X, Y); losses[k] = loss.item()
            out[split] = losses.mean()
        m.train(); return out
    print(estimate_loss())
    torch.manual_seed(42)
    a = torch.tril(torch.ones(3, 3)); a = a / torch.sum(a, 1, keepdim=True)
    b = torch.randint(0, 10, (3, 2)).float(); c = a @ b
    print('a='); print(a); print('--'); print('b='); print(b); print('--'); print('c='); print(c)
    torch.manual_seed(1337); B, T, C = 4, 8, 2; x = torch.randn(B, T, C); print(x.shape)
    xbow = torch.zeros((B, T, C))
    for b in range(B):
        for t in range(T):
            xprev = x[b, :t + 1]; xbow[b, t] = torch.mean(xprev, 0)
    wei = torch.tril(torch.ones(T, T)); wei = wei / wei.sum(1, keepdim=True)
    xbow2 = wei @ x; print(torch.allclose(xbow, xbow2), xbow[0], xbow2[0])
    tril = torch.tril(torch.ones(T, T)); wei = torch.zeros((T, T)); wei = wei.masked_fill(tril == 0, float('-inf'))
    wei = F.softmax(wei, dim=-1); xbow3 = wei @ x; print(torch.allclose(xbow, xbow3), wei)
    torch.manual_seed(1337); B, T, C = 4, 8, 32; x = torch.randn(B, T, C)
    head_size = 16
    key = nn.Linear(C, head_size, bias=False); query = nn.Linear(C, head_size, bias=False); value = nn.Linear(C, head_size, bias=False)
    k = key(x); q = query(x); wei = q @ k.transpose(-2, -1)
    tril = torch.tril(torch.ones(T, T)); wei = wei.masked_fill(tril == 0, float('-inf')); wei = F.softmax(wei, dim=-1)
    v = value(x); out = wei @ v; print(out.shape, wei[0])
    k = torch.randn(B, T, head_size); q = torch.randn(B, T, head_size)
    wei = q @ k.transpose(-2, -1) * head_size**-0.5
    print(k.var(), q.var(), wei.var())
    print(torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]), dim=-1), torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]) * 8, dim=-1))
    class LayerNorm1d:
        def __init__(self, dim, eps=1e-5, momentum=0.1):
            self.eps = eps; self.gamma = torch.ones(dim); self.beta = torch.zeros(dim)
        def __call__(self, x):
            xmean = x.mean(1, keepdim=True); xvar = x.var(1, keepdim=True)
            xhat = (x - xmean) / torch.sqrt(xvar + self.eps); self.out = self.gamma * xhat + self.beta; return self.out
        def parameters(self): return [self.gamma, self.beta]
    torch.manual_seed(1337); module = LayerNorm1d(100); x = torch.randn(32, 100); x = module(x); print(x.shape)
    print(x[:, 0].mean(), x[:, 0].std(), x[0, :].mean(), x[0, :].std())

def neural_net_really_works(torch):
    # Jeremy Howard's "How does a neural net really work?": fit a quadratic with gradient descent, ReLU sums
    from functools import partial
    def f(x): return 3 * x**2 + 2 * x + 1
    def quad(a, b, c, x): return a * x**2 + b * x + c
    def mk_quad(a, b, c): return partial(quad, a, b, c)
    f2 = mk_quad(3, 2, 1); print(f2(1.5))
    torch.manual_seed(42)
    def noise(x, scale): return torch.normal(mean=0.0, std=scale, size=x.shape) * 0 + torch.randn(x.shape) * scale
    def add_noise(x, mult, add): return x * (1 + noise(x, mult)) + noise(x, add)
    x = torch.linspace(-2, 2, steps=20)[:, None]; y = add_noise(f(x), 0.15, 1.5)
    print(x[:5], y[:5])
    def mae(preds, acts): return (torch.abs(preds - acts)).mean()
    print(mae(f2(x), y), mae(mk_quad(1.1, 1.1, 1.1)(x), y))
    def quad_mae(params):
        f = mk_quad(*params); return mae(f(x), y)
    print(quad_mae([1.1, 1.1, 1.1]))
    abc = torch.tensor([1.1, 1.1, 1.1]); abc.requires_grad_(); print(abc)
    loss = quad_mae(abc); print(loss)
    loss.backward(); print(abc.grad)
    with torch.no_grad():
        abc -= abc.grad * 0.01; loss = quad_mae(abc)
    print(f'loss={loss:.2f}')
    for i in range(10):
        loss = quad_mae(abc); loss.backward()
        with torch.no_grad(): abc -= abc.grad * 0.01
        print(f'step={i}; loss={loss:.2f}')
    print(abc, abc.grad)
    def rectified_linear(m, b, x):
        y = m * x + b; return torch.clip(y, 0.)
    print(rectified_linear(1, 1, x)[:4].T, partial(rectified_linear, 2, -1)(x)[:4].T)
    def double_relu(m1, b1, m2, b2, x): return rectified_linear(m1, b1, x) + rectified_linear(m2, b2, x)
    print(double_relu(1, 1, -1, 1, x).T)
    # the titanic linear model from "Linear model and neural net from scratch"
    torch.manual_seed(442)
    t_indep = torch.rand(20, 5); t_dep = (torch.rand(20) > 0.5).float()
    n_coeff = t_indep.shape[1]
    coeffs = torch.rand(n_coeff) - 0.5; print(coeffs, t_indep * coeffs)
    vals, indices = t_indep.max(dim=0); t_indep = t_indep / vals; print(vals, indices)
    preds = (t_indep * coeffs).sum(axis=1); print(preds[:10])
    loss = torch.abs(preds - t_dep).mean(); print(loss)
    def calc_preds(coeffs, indeps): return torch.sigmoid((indeps * coeffs).sum(axis=1))
    def calc_loss(coeffs, indeps, deps): return torch.abs(calc_preds(coeffs, indeps) - deps).mean()
    coeffs.requires_grad_(); loss = calc_loss(coeffs, t_indep, t_dep); print(loss); loss.backward(); print(coeffs.grad)
    with torch.no_grad():
        coeffs.sub_(coeffs.grad * 0.1); coeffs.grad.zero_(); print(calc_loss(coeffs, t_indep, t_dep))
    def init_coeffs(n_hidden=4):
        layer1 = (torch.rand(n_coeff, n_hidden) - 0.5) / n_hidden; layer2 = torch.rand(n_hidden, 1) - 0.3; const = torch.rand(1)[0]
        return layer1.requires_grad_(), layer2.requires_grad_(), const.requires_grad_()
    def calc_preds2(coeffs, indeps):
        l1, l2, const = coeffs; res = torch.nn.functional.relu(indeps @ l1); res = res @ l2 + const; return torch.sigmoid(res)
    coeffs = init_coeffs()
    for epoch in range(5):
        loss = torch.abs(calc_preds2(coeffs, t_indep)[:, 0] - t_dep).mean(); loss.backward()
        with torch.no_grad():
            for layer in coeffs: layer.sub_(layer.grad * 1.4); layer.grad.zero_()
        print(f"{loss:.3f}", end="; ")
    print()
    print(coeffs[2], coeffs[2].grad, ((calc_preds2(coeffs, t_indep)[:, 0] > 0.5) == t_dep.bool()).float().mean())

def optimizing_and_saving(torch):
    # pytorch/tutorials beginner_source/basics/optimization_tutorial.py and saveloadrun_tutorial.py
    nn = torch.nn
    torch.manual_seed(0)
    X_all = torch.rand(40, 1, 6, 6); y_all = torch.randint(0, 10, (40,))
    ds = torch.utils.data.TensorDataset(X_all, y_all)
    train_dataloader = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=True)
    test_dataloader = torch.utils.data.DataLoader(ds, batch_size=16)
    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__(); self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(nn.Linear(36, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 10))
        def forward(self, x):
            x = self.flatten(x); logits = self.linear_relu_stack(x); return logits
    model = NeuralNetwork()
    learning_rate = 1e-3; batch_size = 8; epochs = 2
    loss_fn = nn.CrossEntropyLoss(); optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    def train_loop(dataloader, model, loss_fn, optimizer):
        size = len(dataloader.dataset); model.train()
        for batch, (X, y) in enumerate(dataloader):
            pred = model(X); loss = loss_fn(pred, y)
            loss.backward(); optimizer.step(); optimizer.zero_grad()
            if batch % 2 == 0:
                loss, current = loss.item(), batch * batch_size + len(X)
                print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
    def test_loop(dataloader, model, loss_fn):
        model.eval(); size = len(dataloader.dataset); num_batches = len(dataloader); test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                pred = model(X); test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        test_loss /= num_batches; correct /= size
        print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    for t in range(epochs):
        print(f"Epoch {t+1}\n-------------------------------")
        train_loop(train_dataloader, model, loss_fn, optimizer); test_loop(test_dataloader, model, loss_fn)
    print("Done!")
    print(optimizer.state_dict()['param_groups'], optimizer)
    d = tempfile.mkdtemp()
    torch.save(model.state_dict(), os.path.join(d, 'model_weights.pth'))
    model2 = NeuralNetwork()
    print(model2.load_state_dict(torch.load(os.path.join(d, 'model_weights.pth'), weights_only=True)))
    print(model2.eval())
    attempt(lambda: torch.save(model, os.path.join(d, 'model.pth')))  # (a local class)
    # the "Saving and loading a general checkpoint" recipe
    opt = torch.optim.Adam(model.parameters(), lr=1e-3); model.train()
    loss = loss_fn(model(X_all[:8]), y_all[:8]); loss.backward(); opt.step()
    torch.save({'epoch': 5, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': loss}, os.path.join(d, 'ckpt.pt'))
    model4 = NeuralNetwork(); opt4 = torch.optim.Adam(model4.parameters(), lr=1e-1)
    checkpoint = torch.load(os.path.join(d, 'ckpt.pt'), weights_only=True)
    model4.load_state_dict(checkpoint['model_state_dict']); opt4.load_state_dict(checkpoint['optimizer_state_dict'])
    print(checkpoint['epoch'], checkpoint['loss'], opt4.state_dict()['param_groups'][0]['lr'], opt4.state_dict()['state'][0]['exp_avg'][:2, :3])
    print(sorted(checkpoint['optimizer_state_dict']['state'][1].keys()), checkpoint['optimizer_state_dict']['state'][1]['step'])
    attempt(lambda: model4.load_state_dict({'flatten.weight': torch.zeros(1)}))
    print(model4.load_state_dict(checkpoint['model_state_dict'], strict=False))
    sd = dict(checkpoint['model_state_dict']); sd.pop('linear_relu_stack.0.bias'); sd['extra'] = torch.zeros(1)
    attempt(lambda: model4.load_state_dict(sd))
    print(model4.load_state_dict(sd, strict=False))
    sd = dict(checkpoint['model_state_dict']); sd['linear_relu_stack.0.bias'] = torch.zeros(3)
    attempt(lambda: model4.load_state_dict(sd))
    # saving multiple models / warmstarting with a different model
    torch.save({'modelA_state_dict': model.state_dict(), 'modelB_state_dict': model4.state_dict()}, os.path.join(d, 'ab.pt'))
    ab = torch.load(os.path.join(d, 'ab.pt')); print(list(ab.keys()), list(ab['modelA_state_dict'].keys())[:3])
    class NetB(nn.Module):
        def __init__(self):
            super().__init__(); self.flatten = nn.Flatten(); self.linear_relu_stack = nn.Sequential(nn.Linear(36, 16), nn.ReLU(), nn.Linear(16, 16))
    print(NetB().load_state_dict(ab['modelA_state_dict'], strict=False))
    # state_dict keeps views/sharing, save of a view saves the storage
    big = torch.arange(10.); small = big[:2]; buf = io.BytesIO(); torch.save(small, buf); print(len(buf.getvalue()) > 0)
    buf.seek(0); s2 = torch.load(buf); print(s2, s2.untyped_storage().nbytes(), s2.storage_offset())
    buf = io.BytesIO(); torch.save([big, small], buf); buf.seek(0); b2, s3 = torch.load(buf); b2[0] = 7; print(s3)


def fast_neural_style(torch):
    # pytorch/examples fast_neural_style: TransformerNet (reflection pad, instance norm, upsample), gram matrix, normalize_batch
    nn = torch.nn
    class ConvLayer(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride):
            super().__init__(); reflection_padding = kernel_size // 2
            self.reflection_pad = nn.ReflectionPad2d(reflection_padding); self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)
        def forward(self, x): return self.conv2d(self.reflection_pad(x))
    class ResidualBlock(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1); self.in1 = nn.InstanceNorm2d(channels, affine=True)
            self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1); self.in2 = nn.InstanceNorm2d(channels, affine=True); self.relu = nn.ReLU()
        def forward(self, x):
            residual = x; out = self.relu(self.in1(self.conv1(x))); out = self.in2(self.conv2(out)); return out + residual
    class UpsampleConvLayer(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
            super().__init__(); self.upsample = upsample
            self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2); self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)
        def forward(self, x):
            x_in = x
            if self.upsample: x_in = nn.functional.interpolate(x_in, mode='nearest', scale_factor=self.upsample)
            return self.conv2d(self.reflection_pad(x_in))
    class TransformerNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = ConvLayer(3, 4, kernel_size=9, stride=1); self.in1 = nn.InstanceNorm2d(4, affine=True)
            self.conv2 = ConvLayer(4, 8, kernel_size=3, stride=2); self.in2 = nn.InstanceNorm2d(8, affine=True)
            self.res1 = ResidualBlock(8)
            self.deconv1 = UpsampleConvLayer(8, 4, kernel_size=3, stride=1, upsample=2); self.in4 = nn.InstanceNorm2d(4, affine=True)
            self.deconv3 = ConvLayer(4, 3, kernel_size=9, stride=1); self.relu = nn.ReLU()
        def forward(self, X):
            y = self.relu(self.in1(self.conv1(X))); y = self.relu(self.in2(self.conv2(y))); y = self.res1(y)
            y = self.relu(self.in4(self.deconv1(y))); y = self.deconv3(y); return y
    def gram_matrix(y):
        (b, ch, h, w) = y.size(); features = y.view(b, ch, w * h); features_t = features.transpose(1, 2)
        gram = features.bmm(features_t) / (ch * h * w); return gram
    def normalize_batch(batch):
        mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1); std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
        batch = batch.div_(255.0); return (batch - mean) / std
    torch.manual_seed(42)
    transformer = TransformerNet().double(); optimizer = torch.optim.Adam(transformer.parameters(), 1e-3); mse_loss = nn.MSELoss()
    style = torch.rand(1, 3, 12, 12, dtype=torch.double) * 255
    features_style = [normalize_batch(style.clone())]; gram_style = [gram_matrix(y) for y in features_style]
    print(gram_style[0])
    x = torch.rand(2, 3, 12, 12, dtype=torch.double) * 255
    for it in range(2):
        n_batch = len(x); optimizer.zero_grad()
        y = transformer(x); y = normalize_batch(y); xc = normalize_batch(x.clone())
        content_loss = 1e5 * mse_loss(y, xc)
        style_loss = 0.
        for gm_y, gm_s in zip([gram_matrix(y)], gram_style):
            style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
        style_loss *= 1e10
        total_loss = content_loss + style_loss; total_loss.backward(); optimizer.step()
        print(content_loss.item(), style_loss.item(), total_loss.grad_fn)
    print(y.grad_fn, transformer.in1.weight.grad[:2], transformer)
    sd = transformer.state_dict()
    print([k for k in sd if 'running' in k], len(sd))
    with torch.no_grad():
        out = transformer(x[:1]).clamp(0, 255); img = out[0].clone().clamp(0, 255).numpy(); img = img.transpose(1, 2, 0).astype("uint8")
    print(img.shape, img[0, 0])
    # eval mode instance norm with track_running_stats and its warning-free defaults
    inn = nn.InstanceNorm2d(3, track_running_stats=True).double(); inn(x); print(inn.running_mean, inn.running_var, inn.num_batches_tracked)
    inn.eval(); print(inn(x[:1])[0, 0, 0, :3])
    attempt(lambda: nn.InstanceNorm1d(3)(torch.randn(3, 1)))
    print(nn.InstanceNorm1d(4, affine=True)(torch.randn(2, 4, 5)).grad_fn)

def imagenet_loop(torch):
    # pytorch/examples imagenet/main.py: AverageMeter, ProgressMeter, accuracy(topk), train/validate, save_checkpoint
    from enum import Enum
    nn = torch.nn
    class Summary(Enum):
        NONE = 0; AVERAGE = 1; SUM = 2; COUNT = 3
    class AverageMeter(object):
        def __init__(self, name, fmt=':f', summary_type=Summary.AVERAGE):
            self.name = name; self.fmt = fmt; self.summary_type = summary_type; self.reset()
        def reset(self): self.val = 0; self.avg = 0; self.sum = 0; self.count = 0
        def update(self, val, n=1):
            self.val = val; self.sum += val * n; self.count += n; self.avg = self.sum / self.count
        def all_reduce(self):
            total = torch.tensor([self.sum, self.count], dtype=torch.float32, device='cpu'); self.sum, self.count = total.tolist(); self.avg = self.sum / self.count
        def __str__(self):
            fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'; return fmtstr.format(**self.__dict__)
        def summary(self):
            return {Summary.AVERAGE: '{name} {avg:.3f}', Summary.SUM: '{name} {sum:.3f}', Summary.COUNT: '{name} {count:.3f}'}[self.summary_type].format(**self.__dict__)
    def accuracy(output, target, topk=(1,)):
        with torch.no_grad():
            maxk = max(topk); batch_size = target.size(0)
            _, pred = output.topk(maxk, 1, True, True); pred = pred.t()
            correct = pred.eq(target.view(1, -1).expand_as(pred))
            res = []
            for k in topk:
                correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True); res.append(correct_k.mul_(100.0 / batch_size))
            return res
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(4, 10)).double()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.1)
    data = [(torch.rand(4, 3, 8, 8, dtype=torch.double), torch.randint(0, 10, (4,))) for _ in range(3)]
    for epoch in range(2):
        losses = AverageMeter('Loss', ':.4e'); top1 = AverageMeter('Acc@1', ':6.2f'); top5 = AverageMeter('Acc@5', ':6.2f')
        model.train()
        for i, (images, target) in enumerate(data):
            output = model(images); loss = criterion(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            losses.update(loss.item(), images.size(0)); top1.update(acc1[0], images.size(0)); top5.update(acc5[0], images.size(0))
            optimizer.zero_grad(); loss.backward(); optimizer.step()
            print(' | '.join(str(m) for m in (losses, top1, top5)))
        model.eval()
        with torch.no_grad():
            output = model(data[0][0]); print(accuracy(output, data[0][1], topk=(1, 5)), top1.summary(), losses.summary())
        top1.all_reduce(); print(top1.avg)
        scheduler.step(); print(scheduler.get_last_lr(), optimizer.param_groups[0]['lr'])
    state = {'epoch': 2, 'arch': 'tiny', 'state_dict': model.state_dict(), 'best_acc1': top1.avg, 'optimizer': optimizer.state_dict(), 'scheduler': scheduler.state_dict()}
    buf = io.BytesIO(); torch.save(state, buf); buf.seek(0); ck = torch.load(buf, map_location='cpu')
    print(ck['best_acc1'], ck['scheduler'], list(ck['optimizer']['state'][0].keys()))
    print(torch.backends.cudnn.benchmark, torch.cuda.is_available(), torch.backends.mps.is_available())

def word_language_model_transformer(torch):
    # pytorch/examples word_language_model/model.py TransformerModel + PositionalEncoding, batchify, get_batch, repackage_hidden
    nn = torch.nn; F = torch.nn.functional
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=50):
            super(PositionalEncoding, self).__init__(); self.dropout = nn.Dropout(p=dropout)
            pe = torch.zeros(max_len, d_model); position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term); pe[:, 1::2] = torch.cos(position * div_term)
            pe = pe.unsqueeze(0).transpose(0, 1); self.register_buffer('pe', pe)
        def forward(self, x):
            x = x + self.pe[:x.size(0), :]; return self.dropout(x)
    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
            super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers)
            self.model_type = 'Transformer'; self.src_mask = None
            self.pos_encoder = PositionalEncoding(ninp, dropout)
            self.input_emb = nn.Embedding(ntoken, ninp); self.ninp = ninp; self.decoder = nn.Linear(ninp, ntoken)
            self.init_weights()
        def _generate_square_subsequent_mask(self, sz):
            return torch.log(torch.tril(torch.ones(sz, sz)))
        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.input_emb.weight, -initrange, initrange); nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)
        def forward(self, src, has_mask=True):
            if has_mask:
                device = src.device
                if self.src_mask is None or self.src_mask.size(0) != len(src):
                    mask = self._generate_square_subsequent_mask(len(src)).to(device); self.src_mask = mask
            else: self.src_mask = None
            src = self.input_emb(src) * math.sqrt(self.ninp); src = self.pos_encoder(src)
            output = self.encoder(src, mask=self.src_mask); output = self.decoder(output)
            return F.log_softmax(output, dim=-1)
    torch.manual_seed(1111)
    def batchify(data, bsz):
        nbatch = data.size(0) // bsz; data = data.narrow(0, 0, nbatch * bsz); data = data.view(bsz, -1).t().contiguous(); return data
    corpus = torch.randint(0, 20, (83,))
    train_data = batchify(corpus, 4); print(train_data.shape, train_data[:2])
    bptt = 5
    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i); data = source[i:i + seq_len]; target = source[i + 1:i + 1 + seq_len].view(-1); return data, target
    model = TransformerModel(20, 8, 2, 16, 1, 0.0).double()
    print(model._generate_square_subsequent_mask(4), nn.Transformer.generate_square_subsequent_mask(4))
    criterion = nn.NLLLoss(); lr = 5.0
    model.train()
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad(); output = model(data); output = output.view(-1, 20)
        loss = criterion(output, targets); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)
        if batch % 2 == 0: print('| batch {:3d} | loss {:5.4f} | ppl {:8.4f}'.format(batch, loss.item(), math.exp(loss.item())))
    model.eval(); total_loss = 0.
    with torch.no_grad():
        for i in range(0, train_data.size(0) - 1, bptt):
            data, targets = get_batch(train_data, i); output = model(data); output = output.view(-1, 20)
            total_loss += len(data) * criterion(output, targets).item()
    print(total_loss / (len(train_data) - 1))
    input = torch.randint(20, (1, 1), dtype=torch.long)
    with torch.no_grad():
        for i in range(5):
            output = model(input, False); word_weights = output[-1].squeeze().div(1.0).exp().cpu()
            word_idx = torch.multinomial(word_weights, 1)[0]; word_tensor = torch.Tensor([[word_idx]]).long(); input = torch.cat([input, word_tensor], 0)
    print(input.view(-1))
    def repackage_hidden(h):
        if isinstance(h, torch.Tensor): return h.detach()
        else: return tuple(repackage_hidden(v) for v in h)
    h = (torch.zeros(1, 2, 3, requires_grad=True) * 2, torch.ones(1, 2, 3, requires_grad=True) * 1)
    print(repackage_hidden(h)[0].requires_grad, repackage_hidden(h)[1].grad_fn)

def pytorch_in_one_hour(torch):
    # rasbt "PyTorch in One Hour": tensors, autograd with grad(), NeuralNetwork, ToyDataset/DataLoader, training loop, accuracy, save
    F = torch.nn.functional
    grad = torch.autograd.grad
    y = torch.tensor([1.0]); x1 = torch.tensor([1.1]); w1 = torch.tensor([2.2], requires_grad=True); b = torch.tensor([0.0], requires_grad=True)
    z = x1 * w1 + b; a = torch.sigmoid(z); loss = F.binary_cross_entropy(a, y)
    grad_L_w1 = grad(loss, w1, retain_graph=True); grad_L_b = grad(loss, b, retain_graph=True); print(grad_L_w1); print(grad_L_b)
    loss.backward(); print(w1.grad); print(b.grad)
    tensor0d = torch.tensor(1); tensor1d = torch.tensor([1, 2, 3]); tensor2d = torch.tensor([[1, 2], [3, 4]]); tensor3d = torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    print(tensor1d.dtype); floatvec = torch.tensor([1.0, 2.0, 3.0]); print(floatvec.dtype); floatvec = tensor1d.to(torch.float32); print(floatvec.dtype)
    tensor2d = torch.tensor([[1, 2, 3], [4, 5, 6]]); print(tensor2d.shape, tensor2d.reshape(3, 2), tensor2d.view(3, 2), tensor2d.T, tensor2d.matmul(tensor2d.T), tensor2d @ tensor2d.T)
    class NeuralNetwork(torch.nn.Module):
        def __init__(self, num_inputs, num_outputs):
            super().__init__()
            self.layers = torch.nn.Sequential(torch.nn.Linear(num_inputs, 30), torch.nn.ReLU(), torch.nn.Linear(30, 20), torch.nn.ReLU(), torch.nn.Linear(20, num_outputs))
        def forward(self, x): return self.layers(x)
    torch.manual_seed(123)
    model = NeuralNetwork(50, 3); print(model)
    num_params = sum(p.numel() for p in model.parameters() if p.requires_grad); print("Total number of trainable model parameters:", num_params)
    print(model.layers[0].weight); print(model.layers[0].weight.shape)
    X = torch.rand((1, 50)); out = model(X); print(out)
    with torch.no_grad(): out = model(X)
    print(out)
    with torch.no_grad(): out = torch.softmax(model(X), dim=1)
    print(out)
    X_train = torch.tensor([[-1.2, 3.1], [-0.9, 2.9], [-0.5, 2.6], [2.3, -1.1], [2.7, -1.5]]); y_train = torch.tensor([0, 0, 0, 1, 1])
    X_test = torch.tensor([[-0.8, 2.8], [2.6, -1.6]]); y_test = torch.tensor([0, 1])
    class ToyDataset(torch.utils.data.Dataset):
        def __init__(self, X, y): self.features = X; self.labels = y
        def __getitem__(self, index): return self.features[index], self.labels[index]
        def __len__(self): return self.labels.shape[0]
    train_ds = ToyDataset(X_train, y_train); test_ds = ToyDataset(X_test, y_test); print(len(train_ds))
    torch.manual_seed(123)
    train_loader = torch.utils.data.DataLoader(dataset=train_ds, batch_size=2, shuffle=True, num_workers=0, drop_last=True)
    test_loader = torch.utils.data.DataLoader(dataset=test_ds, batch_size=2, shuffle=False, num_workers=0)
    for idx, (x, y) in enumerate(train_loader): print(f"Batch {idx+1}:", x, y)
    torch.manual_seed(123)
    model = NeuralNetwork(num_inputs=2, num_outputs=2); optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    num_epochs = 3
    for epoch in range(num_epochs):
        model.train()
        for batch_idx, (features, labels) in enumerate(train_loader):
            logits = model(features); loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad(); loss.backward(); optimizer.step()
            print(f"Epoch: {epoch+1:03d}/{num_epochs:03d}" f" | Batch {batch_idx:03d}/{len(train_loader):03d}" f" | Train/Val Loss: {loss:.2f}")
        model.eval()
    model.eval()
    with torch.no_grad(): outputs = model(X_train)
    print(outputs)
    torch.set_printoptions(sci_mode=False); probas = torch.softmax(outputs, dim=1); print(probas)
    predictions = torch.argmax(probas, dim=1); print(predictions, torch.argmax(outputs, dim=1), predictions == y_train, torch.sum(predictions == y_train))
    torch.set_printoptions(profile='default')
    def compute_accuracy(model, dataloader):
        model = model.eval(); correct = 0.0; total_examples = 0
        for idx, (features, labels) in enumerate(dataloader):
            with torch.no_grad(): logits = model(features)
            predictions = torch.argmax(logits, dim=1); compare = labels == predictions
            correct += torch.sum(compare); total_examples += len(compare)
        return (correct / total_examples).item()
    print(compute_accuracy(model, train_loader), compute_accuracy(model, test_loader))
    print(torch.cuda.is_available(), torch.backends.mps.is_available(), torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    tensor_1 = torch.tensor([1., 2., 3.]); tensor_2 = torch.tensor([4., 5., 6.]); print(tensor_1 + tensor_2)
    attempt(lambda: tensor_1.to("cuda"))


def fastai_miniai(torch):
    # fastai course22p2 miniai: set_seed, collate_dict/default_collate, to_device, Hooks, RandErase, mixed precision, ResBlock
    import numpy as np
    nn = torch.nn; F = torch.nn.functional
    from operator import itemgetter
    def set_seed(seed, deterministic=False):
        torch.use_deterministic_algorithms(deterministic); torch.manual_seed(seed); random.seed(seed); np.random.seed(seed)
    set_seed(42)
    print(torch.are_deterministic_algorithms_enabled())
    set_seed(1, deterministic=True); print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(False)
    default_collate = torch.utils.data.default_collate
    ds = [{'image': torch.rand(1, 4, 4), 'label': i % 3} for i in range(6)]
    def collate_dict(ds):
        get = itemgetter('image', 'label')
        def _f(b): return get(default_collate(b))
        return _f
    dl = torch.utils.data.DataLoader(ds, batch_size=4, collate_fn=collate_dict(ds))
    xb, yb = next(iter(dl)); print(xb.shape, yb, yb.dtype)
    print(default_collate([(torch.ones(2), 1.5, 'a', {'k': np.array([1, 2])}), (torch.zeros(2), 2.5, 'b', {'k': np.array([3, 4])})]))
    def to_device(x, device='cpu'):
        if isinstance(x, torch.Tensor): return x.to(device)
        if isinstance(x, dict): return {k: v.to(device) for k, v in x.items()}
        return type(x)(to_device(o, device) for o in x)
    print(to_device((xb[:1], yb[:1])), to_device({'a': yb}))
    class Hook():
        def __init__(self, m, f): self.hook = m.register_forward_hook(partial(f, self))
        def remove(self): self.hook.remove()
        def __del__(self): self.remove()
    class Hooks(list):
        def __init__(self, ms, f): super().__init__([Hook(m, f) for m in ms])
        def __enter__(self, *args): return self
        def __exit__(self, *args): self.remove()
        def __del__(self): self.remove()
        def __delitem__(self, i): self[i].remove(); super().__delitem__(i)
        def remove(self):
            for h in self: h.remove()
    def append_stats(hook, mod, inp, outp):
        if not hasattr(hook, 'stats'): hook.stats = ([], [])
        acts = outp.double(); hook.stats[0].append(acts.mean().item()); hook.stats[1].append(acts.std().item())
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))
    with Hooks(model, append_stats) as hooks:
        for _ in range(2): model(xb.view(4, -1))
        print([['%.5f' % v for v in h.stats[0]] for h in hooks])
    print(model._forward_hooks, model[0]._forward_hooks)
    def _rand_erase1(x, pct, xm, xs, mn, mx):
        szx = int(pct * x.shape[-2]); szy = int(pct * x.shape[-1])
        stx = int(random.random() * (1 - pct) * x.shape[-2]); sty = int(random.random() * (1 - pct) * x.shape[-1])
        nn.init.normal_(x[:, :, stx:stx + szx, sty:sty + szy], mean=xm, std=xs); x.clamp_(mn, mx)
    def rand_erase(x, pct=0.2, max_num=4):
        xm, xs, mn, mx = x.mean(), x.std(), x.min(), x.max()
        num = random.randint(0, max_num)
        for i in range(num): _rand_erase1(x, pct, xm, xs, mn, mx)
        return x
    random.seed(3); torch.manual_seed(3)
    xe = rand_erase(torch.rand(2, 1, 10, 10)); print(xe.mean(), xe.std(), xe.min(), xe.max())
    def _rand_copy1(x, pct):
        szx = int(pct * x.shape[-2]); szy = int(pct * x.shape[-1])
        stx1 = int(random.random() * (1 - pct) * x.shape[-2]); sty1 = int(random.random() * (1 - pct) * x.shape[-1])
        stx2 = int(random.random() * (1 - pct) * x.shape[-2]); sty2 = int(random.random() * (1 - pct) * x.shape[-1])
        x[:, :, stx1:stx1 + szx, sty1:sty1 + szy] = x[:, :, stx2:stx2 + szx, sty2:sty2 + szy]
    xc = torch.arange(200.).view(2, 1, 10, 10); _rand_copy1(xc, 0.3); print(xc[0, 0, :4])
    # mixed precision on the CPU with bfloat16 autocast (MixedPrecision callback, device cpu)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler('cpu')
    for it in range(2):
        with torch.autocast('cpu', dtype=torch.bfloat16):
            preds = model(xb.view(4, -1)); loss = F.cross_entropy(preds, yb)
        print(preds.dtype, loss.dtype, loss)
        scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); opt.zero_grad()
    print(scaler.get_scale(), scaler.state_dict(), model[0].weight.dtype)
    # the ResBlock of 13_resnet
    def conv(ni, nf, ks=3, stride=2, act=nn.ReLU, norm=None, bias=None):
        if bias is None: bias = not isinstance(norm, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d))
        layers = [nn.Conv2d(ni, nf, stride=stride, kernel_size=ks, padding=ks // 2, bias=bias)]
        if norm: layers.append(norm(nf))
        if act: layers.append(act())
        return nn.Sequential(*layers)
    def _conv_block(ni, nf, stride, act=nn.ReLU, norm=None, ks=3):
        return nn.Sequential(conv(ni, nf, stride=1, act=act, norm=norm, ks=ks), conv(nf, nf, stride=stride, act=None, norm=norm, ks=ks))
    class ResBlock(nn.Module):
        def __init__(self, ni, nf, stride=1, ks=3, act=nn.ReLU, norm=None):
            super().__init__()
            self.convs = _conv_block(ni, nf, stride, act=act, ks=ks, norm=norm)
            self.idconv = nn.Identity() if ni == nf else conv(ni, nf, ks=1, stride=1, act=None)
            self.pool = nn.Identity() if stride == 1 else nn.AvgPool2d(2, ceil_mode=True)
            self.act = act()
        def forward(self, x): return self.act(self.convs(x) + self.idconv(self.pool(x)))
    torch.manual_seed(5)
    rb = nn.Sequential(ResBlock(1, 4, stride=2, norm=nn.BatchNorm2d), ResBlock(4, 4, norm=nn.BatchNorm2d), nn.AdaptiveAvgPool2d(1), nn.Flatten()).double()
    x5 = torch.randn(3, 1, 5, 5, dtype=torch.double, requires_grad=True); out = rb(x5); out.sum().backward()
    print(out, x5.grad.sum(), rb[0].pool(torch.arange(25.).view(1, 1, 5, 5)))
    print(sum(p.numel() for p in rb.parameters()), [type(m).__name__ for m in rb.modules()][:6])
    def get_hist(h): return torch.stack(h.stats[2]).t().float().log1p()
    class H: pass
    h = H(); h.stats = ([], [], [torch.randn(100).abs().histc(10, 0, 3) for _ in range(3)]); print(get_hist(h))
    print(torch.randn(50, dtype=torch.double).histc(bins=5), torch.tensor([1, 2, 1.]).histc(bins=4, min=0, max=3), torch.histogram(torch.tensor([1., 2, 1]), bins=4, range=(0., 3.)))

def lets_build_gpt_full(torch):
    # karpathy ng-video-lecture gpt.py: Head, MultiHeadAttention, FeedFoward, Block, GPTLanguageModel (tiny), generate
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(1337)
    batch_size = 4; block_size = 8; n_embd = 16; n_head = 2; n_layer = 2; dropout = 0.0; vocab_size = 11
    data = torch.randint(0, vocab_size, (200,))
    class Head(nn.Module):
        def __init__(self, head_size):
            super().__init__()
            self.key = nn.Linear(n_embd, head_size, bias=False); self.query = nn.Linear(n_embd, head_size, bias=False); self.value = nn.Linear(n_embd, head_size, bias=False)
            self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size))); self.dropout = nn.Dropout(dropout)
        def forward(self, x):
            B, T, C = x.shape; k = self.key(x); q = self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf')); wei = F.softmax(wei, dim=-1); wei = self.dropout(wei)
            v = self.value(x); out = wei @ v; return out
    class MultiHeadAttention(nn.Module):
        def __init__(self, num_heads, head_size):
            super().__init__(); self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
            self.proj = nn.Linear(head_size * num_heads, n_embd); self.dropout = nn.Dropout(dropout)
        def forward(self, x):
            out = torch.cat([h(x) for h in self.heads], dim=-1); out = self.dropout(self.proj(out)); return out
    class FeedFoward(nn.Module):
        def __init__(self, n_embd):
            super().__init__(); self.net = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))
        def forward(self, x): return self.net(x)
    class Block(nn.Module):
        def __init__(self, n_embd, n_head):
            super().__init__(); head_size = n_embd // n_head
            self.sa = MultiHeadAttention(n_head, head_size); self.ffwd = FeedFoward(n_embd); self.ln1 = nn.LayerNorm(n_embd); self.ln2 = nn.LayerNorm(n_embd)
        def forward(self, x):
            x = x + self.sa(self.ln1(x)); x = x + self.ffwd(self.ln2(x)); return x
    class GPTLanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding_table = nn.Embedding(vocab_size, n_embd); self.position_embedding_table = nn.Embedding(block_size, n_embd)
            self.blocks = nn.Sequential(*[Block(n_embd, n_head=n_head) for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd); self.lm_head = nn.Linear(n_embd, vocab_size); self.apply(self._init_weights)
        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None: torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding): torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        def forward(self, idx, targets=None):
            B, T = idx.shape
            tok_emb = self.token_embedding_table(idx); pos_emb = self.position_embedding_table(torch.arange(T, device='cpu'))
            x = tok_emb + pos_emb; x = self.blocks(x); x = self.ln_f(x); logits = self.lm_head(x)
            if targets is None: loss = None
            else:
                B, T, C = logits.shape; logits = logits.view(B * T, C); targets = targets.view(B * T); loss = F.cross_entropy(logits, targets)
            return logits, loss
        def generate(self, idx, max_new_tokens):
            for _ in range(max_new_tokens):
                idx_cond = idx[:, -block_size:]; logits, loss = self(idx_cond); logits = logits[:, -1, :]
                probs = F.softmax(logits, dim=-1); idx_next = torch.multinomial(probs, num_samples=1); idx = torch.cat((idx, idx_next), dim=1)
            return idx
    model = GPTLanguageModel().double()
    print(sum(p.numel() for p in model.parameters()) / 1e6, 'M parameters')
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for it in range(4):
        ix = torch.randint(len(data) - block_size, (batch_size,))
        xb = torch.stack([data[i:i + block_size] for i in ix]); yb = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
        logits, loss = model(xb, yb); optimizer.zero_grad(set_to_none=True); loss.backward(); optimizer.step()
        print(f"step {it}: loss {loss.item():.6f}")
    print(model.generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=10)[0].tolist())
    print(model.blocks[0].sa.heads[0].tril.dtype, logits.grad_fn, loss.grad_fn)


def dlwpt_named_tensors(torch):
    # Deep Learning with PyTorch 3.2.4: named tensors (gone from torch 2.13: every step fails)
    torch.manual_seed(0)
    img_t = torch.randn(3, 5, 5)
    weights_named = attempt(lambda: torch.tensor([0.2126, 0.7152, 0.0722], names=['channels']))
    print(weights_named)
    img_named = attempt(lambda: img_t.refine_names(..., 'channels', 'rows', 'columns'))
    attempt(lambda: print("img named:", img_named.shape, img_named.names))
    weights_aligned = attempt(lambda: weights_named.align_as(img_named))
    gray_named = attempt(lambda: (img_named * weights_aligned).sum('channels'))
    attempt(lambda: print(gray_named.rename(None).shape))
    attempt(lambda: print(img_t.names))


def _summary_writer(torch):
    import importlib

    return importlib.import_module(torch.__name__ + ".utils.tensorboard").SummaryWriter


def tensorboard(torch):
    # pytorch/tutorials recipes/tensorboard_with_pytorch.py and intermediate/tensorboard_tutorial.py
    # ("Visualizing Models, Data, and Training with TensorBoard"; add_figure left out: it needs
    # matplotlib; add_graph's GraphDef is compared with torch's in
    # tests/utils/test_tensorboard_graph.py)
    SummaryWriter = _summary_writer(torch)
    directory = tempfile.mkdtemp()
    writer = SummaryWriter(directory)
    torch.manual_seed(0)
    x = torch.arange(-5, 5, 1.).view(-1, 1); y = -5 * x + 0.1 * torch.randn(x.size())
    model = torch.nn.Linear(1, 1); criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(5):
        y1 = model(x); loss = criterion(y1, y)
        writer.add_scalar("Loss/train", loss, epoch)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    writer.flush(); print(model.weight, sorted(os.listdir(directory))[0][:19])
    writer.add_histogram('w', model.weight, 0)
    images = torch.rand(4, 1, 8, 8)
    def matplotlib_imshow(img, one_channel=False):  # (the tutorial's helper, without the plot)
        if one_channel:
            img = img.mean(dim=0)
        img = img / 2 + 0.5
        return img.numpy()
    img_grid = torch.cat([im for im in images], dim=2)
    print(matplotlib_imshow(img_grid, one_channel=True).shape)
    writer.add_image('four_fashion_mnist_images', img_grid)
    writer.add_images('batch', images, 1)
    writer.add_graph(model, x)
    writer.add_scalars('run_14h', {'xsinx': 1.0, 'xcosx': 2.0}, 0)
    features = torch.rand(6, 4)
    class_labels = [str(i) for i in range(6)]
    writer.add_embedding(features, metadata=class_labels, label_img=torch.rand(6, 1, 4, 4))
    test_probs = torch.softmax(torch.randn(10, 3), 1); test_label = torch.randint(0, 3, (10,))
    for class_index in range(3):
        tensorboard_truth = test_label == class_index
        tensorboard_probs = test_probs[:, class_index]
        writer.add_pr_curve(str(class_index), tensorboard_truth, tensorboard_probs, global_step=0)
    writer.add_text('t', 'hello', 0)
    writer.close()
    print(sorted(f.split('.')[0] for f in os.listdir(directory)), writer.get_logdir() == directory)


SNIPPETS = [intro_tensors, fundamentals_autograd, saliency, dlwpt_ch4, dlwpt_ch5, dlwpt_ch6,
            dlwpt_ch7_8, fastai_matmul, fastai_hooks, fastai_training, d2l_builders, build_gpt,
            neural_net_really_works, optimizing_and_saving, tensorboard, fast_neural_style,
            imagenet_loop, word_language_model_transformer, pytorch_in_one_hour,
            fastai_miniai, lets_build_gpt_full, dlwpt_named_tensors]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet):
    assert first_difference(snippet, lg, torch) is None


# -- one test per defect found, sweeping its class --------------------------------------------


def _lazy_conversions(torch):
    # d2l's use-gpu chapter moves a LazyLinear net with net.to(device) before its first forward;
    # torch lets an uninitialized tensor answer its properties and dtype queries, and its
    # conversions give the same object back when nothing changes
    for cls in (torch.nn.UninitializedParameter, torch.nn.UninitializedBuffer):
        for dtype in (None, torch.float64, torch.float16):
            p = cls() if dtype is None else cls(dtype=dtype)
            for name in ["is_meta", "device", "dtype", "requires_grad", "is_leaf", "grad",
                         "grad_fn", "layout", "is_cuda", "ndim", "is_cpu", "itemsize", "nbytes"]:
                attempt(lambda: print(name, getattr(p, name)))
            for name in ["is_floating_point", "is_complex", "get_device", "float", "double",
                         "half", "cpu"]:  # (the refused ones name torch's C methods)
                attempt(lambda: print(name, getattr(p, name)()))
            for args in [("cpu",), (torch.device("cpu"),), (torch.float32,), (torch.float64,),
                         ("cpu", torch.float64), ("cpu", torch.float16), ("cuda",)]:
                attempt(lambda: print(args, p.to(*args) is p, p.to(*args).dtype))
            attempt(lambda: print(p.to(device="cpu") is p, p.to(dtype=torch.float16).dtype))
    for module_args in [(), ("cpu",), (torch.device("cpu"),), (torch.float64,),
                        ("cpu", torch.float64), ("cuda",)]:
        for call in ("to", "cpu", "float", "double"):
            net = torch.nn.Sequential(torch.nn.LazyLinear(2), torch.nn.LazyBatchNorm1d(),
                                      torch.nn.LazyConv1d(3, 1))
            method = getattr(net, call)
            attempt(lambda: print(method(*module_args) is net if call == "to" else method()
                                  is net, net[0].weight, net[0].weight.dtype, net[1].running_mean,
                                  net[1].running_mean.dtype, net[2].bias.dtype))
            attempt(lambda: print(net(torch.ones(2, 3, 1, dtype=net[0].weight.dtype)).shape,
                                  net[0].weight.dtype, type(net[1].running_var).__name__))


def test_lazy_modules_convert_before_their_first_forward_as_torch():
    assert first_difference(_lazy_conversions, lg, torch) is None


def _local_objects_saved(torch):
    # "Save and Load the Model": torch.save(model) of a class defined in a function; torch's C
    # pickler refuses local classes and functions with AttributeError, others with PicklingError
    class Local(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(2, 2)

    def local_function():
        pass

    with_hook = torch.nn.Linear(1, 1)
    with_hook.register_forward_hook(lambda *args: None)
    with_attribute = torch.nn.Linear(1, 1)
    with_attribute.function = lambda x: x
    dynamic = type("Dynamic", (), {})()
    for obj in [Local(), {"model": Local()}, [torch.zeros(2), lambda x: x], local_function,
                Local, with_hook, with_attribute, dynamic, (lambda: (yield))(),
                torch.nn.Linear(1, 1), math.sqrt]:
        for protocol in (2, 4):
            attempt(lambda: print(torch.save(obj, io.BytesIO(), pickle_protocol=protocol)))


def test_save_refuses_local_objects_as_torch():
    assert first_difference(_local_objects_saved, lg, torch) is None


def _events_and_files(directory):
    """Every event (less its wall time) of every event file under directory, and the bytes of
    every other file, keyed by path."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    events, files = [], {}
    for root, _, names in sorted(os.walk(directory)):
        for name in sorted(names):
            path = os.path.join(root, name)
            relative = os.path.relpath(path, directory)
            if "tfevents" in name:
                for event in EventFileLoader(path).Load():
                    if not event.HasField("file_version"):
                        event.wall_time = 0
                        events.append((os.path.dirname(relative), event.SerializeToString()))
            else:
                with open(path, "rb") as handle:
                    files[relative] = handle.read()
    return events, files


def _tensorboard_images_curves_embeddings(torch, directory):
    import numpy as np

    writer = _summary_writer(torch)(directory)
    torch.manual_seed(0)
    for shape, formats in [((3, 5, 4), "CHW"), ((1, 5, 4), "CHW"), ((5, 4), "HW"),
                           ((5, 4, 3), "HWC"), ((5, 4, 1), "HWC"), ((5, 4, 4), "HWC"),
                           ((4, 5), "WH"), ((3, 4, 5), "CWH")]:
        for dtype in (torch.float32, torch.float64, torch.uint8):
            img = torch.rand(shape) * 1.2 - 0.1  # (values outside [0, 1] are clipped)
            img = (img * 255).clamp(0, 255).to(dtype) if dtype == torch.uint8 else img.to(dtype)
            name = str(dtype).split(".")[1]
            attempt(lambda: writer.add_image(f"img_{formats}_{name}", img, 3, dataformats=formats))
            attempt(lambda: writer.add_image(f"np_{formats}_{name}", img.numpy(),
                                             dataformats=formats))
    for shape, formats in [((10, 1, 4, 3), "NCHW"), ((3, 3, 4, 3), "NCHW"),
                           ((9, 4, 3, 1), "NHWC"), ((8, 3, 2, 2), "NCHW"), ((0, 3, 2, 2), "NCHW")]:
        imgs = torch.rand(shape)
        attempt(lambda: writer.add_images("imgs", imgs, 1, dataformats=formats))
    attempt(lambda: writer.add_image("transposed", torch.rand(3, 4, 5).transpose(1, 2)))
    attempt(lambda: writer.add_image("requires_grad", torch.rand(3, 2, 2, requires_grad=True)))
    attempt(lambda: writer.add_image("bad", torch.rand(3, 4)))
    attempt(lambda: writer.add_image("bad", torch.rand(3, 4, 4), dataformats="CCH"))
    attempt(lambda: writer.add_images("bad", torch.rand(2, 2, 4, 4)))
    for count in (10, 1, 0):
        labels = torch.randint(0, 2, (count,)); predictions = torch.rand(count)
        for thresholds in (127, 10, 200):
            attempt(lambda: writer.add_pr_curve(f"pr{count}", labels, predictions, thresholds,
                                                num_thresholds=thresholds))
        attempt(lambda: writer.add_pr_curve(f"weighted{count}", labels.bool(),
                                            predictions.double(), weights=np.full(count, 0.5)))
    attempt(lambda: writer.add_pr_curve_raw("raw", *[np.arange(5.)] * 4, np.ones(5), np.ones(5),
                                            2, num_thresholds=5))
    features = torch.randn(6, 4)
    attempt(lambda: writer.add_embedding(features, metadata=list("abcdef"),
                                         label_img=torch.rand(6, 1, 4, 4)))
    attempt(lambda: writer.add_embedding(features, metadata=[[i, "abcdef"[i]] for i in range(6)],
                                         metadata_header=["n", "l"], global_step=3,
                                         tag="my/tag%\\x"))
    attempt(lambda: writer.add_embedding(features.double(), label_img=torch.rand(6, 3, 2, 3),
                                         global_step=4))
    attempt(lambda: writer.add_embedding(features.t().contiguous().t(), global_step=8))
    attempt(lambda: writer.add_embedding(features, global_step=4))  # (the directory exists)
    attempt(lambda: writer.add_embedding(features, metadata=list("abc"), global_step=5))
    attempt(lambda: writer.add_embedding(torch.randn(2, 2, 2), global_step=6))
    attempt(lambda: writer.add_embedding(features, metadata=[[1, 2]] * 6, metadata_header=["a"],
                                         global_step=7))
    writer.close()


def test_tensorboard_images_pr_curves_and_embeddings_as_torch():
    # the TensorBoard tutorial's add_image/add_images/add_pr_curve/add_embedding were missing:
    # every event and file written must be torch's, byte for byte, and every error its error
    written = {}
    for module in (torch, lg):
        directory = tempfile.mkdtemp()
        printed = transcript(partial(_tensorboard_images_curves_embeddings, directory=directory),
                             module)
        written[module.__name__] = printed, _events_and_files(directory)
    assert written["leafgrad"] == written["torch"]


def _variables(torch):
    # old tutorials (pre-0.4): Variable(x, volatile=True) for inference
    Variable = torch.autograd.Variable
    data = torch.ones(2)
    for args, kwargs in [((data, True, True), {}), ((data,), {"volatile": True}),
                         ((data, 1, 0), {}), ((data,), {"requires_grad": None}),
                         ((data,), {"volatile": "x"}), ((data,), {"volatile": 2.0}),
                         (("x",), {"volatile": True}), (("x",), {"volatile": None}),
                         ((None,), {"volatile": True}), ((), {"requires_grad": True}),
                         ((data.t(),), {"volatile": False, "requires_grad": True})]:
        attempt(lambda: print(Variable(*args, **kwargs)))


def test_variable_volatile_warns_as_torch():
    assert first_difference(_variables, lg, torch) is None


# What torch 2.13 warns, once per process, for the first deprecated scalar-first call (each
# read from a fresh process with `a.add(2, b)`, `torch.add(a, 2, b)`, ...)
_DEPRECATION_WARNINGS = {
    "add": "add(Number alpha, Tensor other)\nConsider using one of the following signatures "
           "instead:\n\tadd(Tensor other, *, Number alpha = 1)",
    "torch.add": "add(Tensor input, Number alpha, Tensor other, *, Tensor out = None)\nConsider"
                 " using one of the following signatures instead:\n\tadd(Tensor input, Tensor "
                 "other, *, Number alpha = 1, Tensor out = None)",
    "addcmul_": "addcmul_(Number value, Tensor tensor1, Tensor tensor2)\nConsider using one of "
                "the following signatures instead:\n\taddcmul_(Tensor tensor1, Tensor tensor2, "
                "*, Number value = 1)",
    "torch.addcdiv": "addcdiv(Tensor input, Number value, Tensor tensor1, Tensor tensor2, *, "
                     "Tensor out = None)\nConsider using one of the following signatures "
                     "instead:\n\taddcdiv(Tensor input, Tensor tensor1, Tensor tensor2, *, "
                     "Number value = 1, Tensor out = None)",
}


def _scalar_first_calls(torch):
    # old optimizers and training loops: p.data.add_(-lr, p.grad.data),
    # exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad), p.addcdiv_(-step, exp_avg, denom)
    dtypes = (torch.float32, torch.float64, torch.int64)
    for dtype, scalar in itertools.product(dtypes, (2, -0.5, True)):
        base = torch.arange(1, 7).to(dtype).reshape(2, 3)
        for a, b in [(base, base.t().contiguous().t() + 1), (base[:, :1], base + 2),
                     (base[:0], base[:0]), (base.t(), base.t() * 3)]:
            for name in ("add", "sub"):
                attempt(lambda: print(getattr(a, name)(scalar, b)))
                attempt(lambda: print(getattr(torch, name)(a, scalar, b)))
                attempt(lambda: print(getattr(torch, name)(a, scalar, b,
                                                           out=torch.empty(0, dtype=dtype))))
                attempt(lambda: print(getattr(a.clone(), name + "_")(scalar, b)))
            for name in ("addcmul", "addcdiv"):
                attempt(lambda: print(getattr(a, name)(scalar, b, b + 1)))
                attempt(lambda: print(getattr(torch, name)(a, scalar, b, b + 1)))
                attempt(lambda: print(getattr(a.clone(), name + "_")(scalar, b, b + 1)))
    torch.manual_seed(0)
    for requires in itertools.product((False, True), repeat=3):
        a, b, c = (torch.randn(2, 2, dtype=torch.double, requires_grad=r) for r in requires)
        for result in (a.add(0.5, b), torch.sub(a, 2, b), a.addcmul(3, b, c),
                       torch.addcdiv(a, -1, b, c)):
            print(result.grad_fn, result.requires_grad)
            if result.requires_grad:
                inputs = [t for t in (a, b, c) if t.requires_grad]
                print(torch.autograd.grad(result.sum(), inputs, allow_unused=True))
        leaf = torch.zeros(2, requires_grad=any(requires))
        attempt(lambda: print(leaf.add_(2, torch.ones(2))))
    a = torch.ones(2)
    for call in (lambda: a.add(2, a, alpha=3), lambda: a.add(a, 2), lambda: a.add(2, a, a),
                 lambda: a.addcmul(2, a), lambda: a.sub("x", a), lambda: torch.add(a, 2, a, alpha=2),
                 lambda: a.addcmul(2, a, a, value=2), lambda: a.add(a, a), lambda: a.add(1, 2, 3),
                 lambda: a.addcmul_(a, a, a, a), lambda: torch.sub(a, a, a),
                 lambda: torch.addcdiv(a, 2, a, 3)):
        attempt(call)


def test_deprecated_scalar_first_overloads_as_torch():
    # values, grad_fns and errors as torch's (the once-per-process warning left out: torch may
    # have given it already in this process)
    def without_deprecation(module):
        return [line for line in transcript(_scalar_first_calls, module) if "This overload" not in line]

    assert without_deprecation(lg) == without_deprecation(torch)


def test_deprecated_scalar_first_overloads_warn_once_as_torch():
    from leafgrad import _argparse

    a = lg.tensor([1., 2.]); b = lg.tensor([3., 4.])
    for name, call in [("add", lambda: a.add(2, b)), ("torch.add", lambda: lg.add(a, 2, b)),
                       ("addcmul_", lambda: a.clone().addcmul_(2, a, b)),
                       ("torch.addcdiv", lambda: lg.addcdiv(a, 2, a, b))]:
        _argparse._deprecation_warned = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
            call()
        function = name.split(".")[-1]
        assert [str(w.message) for w in caught] == [
            f"This overload of {function} is deprecated:\n\t" + _DEPRECATION_WARNINGS[name]]


def _lazy_saved(torch):
    # d2l's lazy initialisation with its file I/O: a lazy module's state dict (and the module)
    # saved before the first forward; torch writes its uninitialized tensors by class and flag
    # and refuses them under weights_only
    import pickle

    nn = torch.nn
    for make in (lambda: nn.LazyLinear(2), lambda: nn.LazyBatchNorm1d(),
                 lambda: nn.LazyConv2d(3, 1, bias=False),
                 lambda: nn.Sequential(nn.LazyLinear(2), nn.ReLU(), nn.LazyLinear(1))):
        module = make()
        for obj in (module.state_dict(), module, list(module.parameters()),
                    {"w": next(module.parameters()), "x": torch.ones(2)}):
            buffer = io.BytesIO()
            attempt(lambda: torch.save(obj, buffer))
            buffer.seek(0)
            attempt(lambda: print(torch.load(buffer)))
            buffer.seek(0)
            attempt(lambda: print(torch.load(buffer, weights_only=False)))
    parameter = nn.UninitializedParameter(requires_grad=False)
    buffer_tensor = nn.UninitializedBuffer(dtype=torch.float64)
    buffer = io.BytesIO()
    torch.save([parameter, buffer_tensor], buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    print(loaded, loaded[0].requires_grad, loaded[1].dtype, type(loaded[1]).__name__)
    model = nn.Sequential(nn.LazyLinear(2), nn.LazyBatchNorm1d())
    handle = model[0].register_forward_hook(print)
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    copy = torch.load(buffer, weights_only=False)
    torch.manual_seed(0)
    print(copy(torch.ones(3, 4)), copy, copy[0].weight.shape, type(copy[0]).__name__)
    copied_handle = pickle.loads(pickle.dumps(handle))
    copied_handle.remove()
    print(len(model[0]._forward_hooks), copied_handle.id > handle.id - 1)


def test_lazy_modules_save_and_load_as_torch():
    assert first_difference(_lazy_saved, lg, torch) is None
    # the files are torch's: each library loads the other's lazy state dict
    for writer, reader in ((lg, torch), (torch, lg)):
        buffer = io.BytesIO()
        writer.save(writer.nn.LazyLinear(3).state_dict(), buffer)
        buffer.seek(0)
        loaded = reader.load(buffer, weights_only=False)
        assert [(key, type(value).__name__, value.requires_grad)
                for key, value in loaded.items()] == [
            ("weight", "UninitializedParameter", True), ("bias", "UninitializedParameter", True)]
