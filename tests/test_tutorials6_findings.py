"""Code from other people's tutorials and courses not covered before (the "Extending PyTorch"
note's custom autograd Functions with mark_dirty, mark_non_differentiable,
set_materialize_grads and once_differentiable; the autograd mechanics note; pytorch/tutorials'
pruning, per-sample gradients and Jacobians/Hessians tutorials; rasbt's LLMs-from-scratch
chapters 2, 6 and 7 and its LoRA appendix; labml.ai's RMSNorm, rotary embeddings, ALiBi,
capsule networks and LoRA; lucidrains-style einsum attention; karpathy's "becoming a backprop
ninja" (makemore part 4); GNN message passing with index_add_/scatter_reduce; normalizing
flows (NICE, MADE/MAF, Glow's ActNorm and 1x1 convolution); a DDPM training step; SimCLR's
NT-Xent and knowledge distillation; bfloat16 autocast, gradient accumulation and clipping; the
reproducibility note; printing options), shrunk to
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
from tests._tutorial_harness import attempt, first_difference

torch = require_torch()
with warnings.catch_warnings():  # torch's first jacfwd imports a module that warns once per
    warnings.simplefilter("ignore")  # process (torch.jit.script's deprecation): not a snippet's
    torch.func.jacfwd(torch.sin)(torch.zeros(1))


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data)


def extending(torch):
    # pytorch docs notes/extending.rst: LinearFunction, MulConstant, MyCube, mark_dirty etc
    Function = torch.autograd.Function
    class LinearFunction(Function):
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output
        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)
        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias
    linear = LinearFunction.apply
    torch.manual_seed(0)
    input = (torch.randn(4, 3, dtype=torch.double, requires_grad=True),
             torch.randn(5, 3, dtype=torch.double, requires_grad=True))
    gradcheck = torch.autograd.gradcheck
    test = gradcheck(linear, input + (None,), eps=1e-6, atol=1e-4)
    print(test)
    x = torch.randn(3, 4, requires_grad=True); w = torch.randn(5, 4, requires_grad=True)
    b = torch.randn(5, requires_grad=True)
    y = linear(x, w, b)
    print(y.grad_fn, type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
    y.sum().backward()
    print(x.grad, w.grad, b.grad)
    class MulConstant(Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant
        @staticmethod
        def setup_context(ctx, inputs, output):
            _, constant = inputs
            ctx.constant = constant
        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None
    a = torch.randn(3, requires_grad=True)
    z = MulConstant.apply(a, 5.5)
    print(z, z.grad_fn.next_functions)
    z.backward(torch.ones(3))
    print(a.grad)
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
        result, dx = MyCube.apply(x)
        return result
    x = torch.tensor([1.0, 2.0, -1.5], requires_grad=True)
    y = my_cube(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    print(g, g.grad_fn)
    gg, = torch.autograd.grad(g.sum(), x)
    print(gg)
    print(torch.func.grad(lambda x: my_cube(x).sum())(x.detach()))
    # mark_dirty
    class Square_(Function):
        @staticmethod
        def forward(ctx, x):
            x.pow_(2)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x.sqrt() * g
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    c = Square_.apply(b)
    print(c is b, c.grad_fn, b._version, c)
    c.sum().backward()
    print(a.grad)
    try:
        Square_.apply(a)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    # non-differentiable outputs
    class SortIdx(Function):
        @staticmethod
        def forward(ctx, x):
            vals, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return vals, idx
        @staticmethod
        def backward(ctx, g, _):
            idx, = ctx.saved_tensors
            out = torch.zeros_like(g)
            out.index_add_(0, idx, g)
            return out
    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    v, i = SortIdx.apply(x)
    print(v, i, i.requires_grad, v.grad_fn)
    (v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    print(x.grad)
    # set_materialize_grads
    class SimpleFunc(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.clone(), x.clone()
        @staticmethod
        def backward(ctx, g1, g2):
            print('grads', g1, g2)
            x, = ctx.saved_tensors
            grad_input = torch.zeros_like(x)
            if g1 is not None:
                grad_input += g1
            if g2 is not None:
                grad_input += g2
            return grad_input
    x = torch.tensor(1.0, requires_grad=True)
    SimpleFunc.apply(x)[0].backward()
    print(x.grad)
    once_differentiable = torch.autograd.function.once_differentiable
    class Exp(Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result
        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    y = Exp.apply(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    print(g, g.requires_grad, g.grad_fn)
    try:
        g.sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    # Module wrapper
    class Linear(torch.nn.Module):
        def __init__(self, input_features, output_features, bias=True):
            super().__init__()
            self.input_features = input_features
            self.output_features = output_features
            self.weight = torch.nn.Parameter(torch.empty(output_features, input_features))
            if bias:
                self.bias = torch.nn.Parameter(torch.empty(output_features))
            else:
                self.register_parameter('bias', None)
            self.weight.data.uniform_(-0.1, 0.1)
            if self.bias is not None:
                self.bias.data.uniform_(-0.1, 0.1)
        def forward(self, input):
            return LinearFunction.apply(input, self.weight, self.bias)
        def extra_repr(self):
            return 'input_features={}, output_features={}, bias={}'.format(
                self.input_features, self.output_features, self.bias is not None)
    m = Linear(4, 3)
    print(m, m(torch.randn(2, 4)))
    # old style forward with ctx
    class Old(Function):
        @staticmethod
        def forward(ctx, x, k=2):
            ctx.k = k
            return x * k
        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
    x = torch.ones(2, requires_grad=True)
    y = Old.apply(x, 3)
    y.backward(torch.ones(2)); print(x.grad, y.grad_fn.name() if hasattr(y.grad_fn, 'name') else None)
    # wrong number of grads
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y
        @staticmethod
        def backward(ctx, g):
            return g
    try:
        Bad.apply(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g[:1]
    try:
        BadShape.apply(torch.ones(2, requires_grad=True)).sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])


def mechanics(torch):
    # pytorch docs notes/autograd.rst: in-place correctness, version counter, saved tensors
    a = torch.randn(3, requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    try:
        b.sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    print(y.grad_fn._saved_self is x, y.grad_fn._saved_exponent)
    y = x.exp()
    print(y.grad_fn._saved_result.equal(y), y.grad_fn._saved_result is y)
    x = torch.randn(5, requires_grad=True)
    y = x.exp()
    print(x._version, y._version)
    y.add_(1)
    print(y._version)
    try:
        y.sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    v = torch.zeros(4)
    w = v[1:3]
    w += 1
    print(v._version, w._version, v)
    # leaf in-place
    leaf = torch.ones(3, requires_grad=True)
    try:
        leaf.add_(1)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    with torch.no_grad():
        leaf.add_(1)
    print(leaf, leaf._version, leaf.is_leaf)
    try:
        leaf[0] = 5
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    # view + in-place rebase
    base = torch.randn(4, requires_grad=True).clone()
    view = base[:2]
    view.mul_(3)
    print(base.grad_fn, view.grad_fn, view._base is base)
    # grad mode
    x = torch.ones(2, 2, requires_grad=True)
    with torch.no_grad():
        y = x * 2
    print(y.requires_grad)
    with torch.inference_mode():
        z = x * 2
    print(z.requires_grad, z.is_inference())
    try:
        (z * x).sum().backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    try:
        z.add_(1)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    @torch.enable_grad()
    def doubler(x):
        return x * 2
    with torch.no_grad():
        print(doubler(x).requires_grad)
    torch.set_grad_enabled(False)
    print((x * 2).requires_grad)
    torch.set_grad_enabled(True)
    # hooks on saved tensors
    def pack_hook(x):
        print("Packing", x.shape)
        return x
    def unpack_hook(x):
        print("Unpacking", x.shape)
        return x
    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
    y.sum().backward()
    # multithreaded-free: retain_graph errors
    x = torch.randn(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    try:
        y.backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    # complex autograd
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    l = (z * z.conj()).real.sum()
    l.backward()
    print(z.grad)
    # register_hook on tensor, Node hooks
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    h = y.register_hook(lambda g: g * 2)
    y.retain_grad()
    y.sum().backward()
    print(x.grad, y.grad)
    h.remove()
    a = torch.tensor([1.0], requires_grad=True)
    b = a * 2
    b.grad_fn.register_hook(lambda gi, go: print('node hook', gi, go))
    b.grad_fn.register_prehook(lambda go: print('prehook', go))
    b.backward()
    a.register_post_accumulate_grad_hook(lambda p: print('post acc', p.grad))
    (a * 4).backward()
    print(a.grad)


def pruning(torch):
    # pytorch/tutorials intermediate_source/pruning_tutorial.py
    nn = torch.nn; F = nn.functional
    import importlib
    prune = importlib.import_module(torch.__name__ + '.nn.utils.prune')
    torch.manual_seed(0)
    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)
        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)
    model = LeNet()
    module = model.conv1
    print(list(module.named_parameters())[1])
    print(list(module.named_buffers()))
    prune.random_unstructured(module, name="weight", amount=0.3)
    print([n for n, _ in module.named_parameters()])
    print(list(module.named_buffers())[0][1][0])
    print(module.weight[0])
    print(list(module._forward_pre_hooks.values()))  # (the keys: process-wide hook ids)
    prune.l1_unstructured(module, name="bias", amount=3)
    print([n for n, _ in module.named_parameters()])
    print([(n, b) for n, b in module.named_buffers()][1])
    print(module.bias)
    print(list(module._forward_pre_hooks.values()))  # (the keys: process-wide hook ids)
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    print(module.weight[:, 0])
    for hook in module._forward_pre_hooks.values():
        if hook._tensor_name == "weight":
            break
    print(list(hook))
    print(model.state_dict().keys())
    prune.remove(module, 'weight')
    print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
    new_model = LeNet()
    for name, module in new_model.named_modules():
        if isinstance(module, torch.nn.Conv2d):
            prune.l1_unstructured(module, name='weight', amount=0.2)
        elif isinstance(module, torch.nn.Linear):
            prune.l1_unstructured(module, name='weight', amount=0.4)
    print(dict(new_model.named_buffers()).keys())
    model = LeNet()
    parameters_to_prune = (
        (model.conv1, 'weight'), (model.conv2, 'weight'), (model.fc1, 'weight'),
        (model.fc2, 'weight'), (model.fc3, 'weight'))
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
    for m, n in parameters_to_prune:
        print("Sparsity: {:.2f}%".format(100. * float(torch.sum(getattr(m, n) == 0)) / float(getattr(m, n).nelement())))
    print("Global sparsity: {:.2f}%".format(100. * float(
        sum(torch.sum(getattr(m, n) == 0) for m, n in parameters_to_prune))
        / float(sum(getattr(m, n).nelement() for m, n in parameters_to_prune))))
    class FooBarPruningMethod(prune.BasePruningMethod):
        PRUNING_TYPE = 'unstructured'
        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask
    def foobar_unstructured(module, name):
        FooBarPruningMethod.apply(module, name)
        return module
    model = LeNet()
    foobar_unstructured(model.fc3, name='bias')
    print(model.fc3.bias_mask)
    x = torch.randn(2, 1, 16, 16)
    out = model(x)
    out.sum().backward()
    print(out, model.fc3.bias_orig.grad)
    print(prune.is_pruned(model), prune.is_pruned(LeNet()))
    m = nn.Linear(4, 3)
    prune.identity(m, 'weight')
    print(m.weight_mask)
    prune.random_structured(m, 'weight', amount=1, dim=1)
    print(m.weight_mask)
    prune.ln_structured(m, 'weight', amount=0.34, n=float('inf'), dim=0)
    print(m.weight_mask, m.weight)
    pr = prune.custom_from_mask(nn.Linear(2, 2), 'bias', torch.tensor([0., 1.]))
    print(pr.bias, pr.bias_mask)
    try:
        prune.l1_unstructured(nn.Linear(2, 2), 'weight', amount=5)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    try:
        prune.l1_unstructured(nn.Linear(2, 2), 'weight', amount=1.5)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])


def per_sample_grads(torch):
    # pytorch/tutorials intermediate_source/per_sample_grads.py
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    class SimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, 1)
            self.conv2 = nn.Conv2d(4, 8, 3, 1)
            self.fc1 = nn.Linear(8 * 2 * 2, 16)
            self.fc2 = nn.Linear(16, 10)
        def forward(self, x):
            x = self.conv1(x); x = F.relu(x)
            x = self.conv2(x); x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = torch.flatten(x, 1)
            x = self.fc1(x); x = F.relu(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output
    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)
    model = SimpleCNN().to(dtype=torch.float64)
    batch_size = 4
    data = torch.randn(batch_size, 1, 8, 8, dtype=torch.float64)
    targets = torch.randint(10, (4,))
    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)
        target = target.unsqueeze(0)
        prediction = model(sample)
        loss = loss_fn(prediction, target)
        return torch.autograd.grad(loss, list(model.parameters()))
    def compute_sample_grads(data, targets):
        sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
        sample_grads = zip(*sample_grads)
        sample_grads = [torch.stack(shards) for shards in sample_grads]
        return sample_grads
    per_sample_grads = compute_sample_grads(data, targets)
    print(per_sample_grads[1].shape, per_sample_grads[0][0, 0])
    from_func = torch.func
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = from_func.functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss
    ft_compute_grad = from_func.grad(compute_loss)
    ft_compute_sample_grad = from_func.vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
    for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
        print(per_sample_grad.shape == ft_per_sample_grad.shape,
              torch.allclose(per_sample_grad, ft_per_sample_grad, atol=1.2e-1, rtol=1e-5))
        # (vmap's batched convolution grads differ from the loop's in the last bits in
        # torch, not in leafgrad: the difference itself is not compared)
        print(per_sample_grad.flatten()[:3])
    print(list(ft_per_sample_grads.keys()))
    print(ft_per_sample_grads['fc2.bias'])


def jacobians_hessians(torch):
    # pytorch/tutorials intermediate_source/jacobians_hessians.py
    F = torch.nn.functional
    jacrev, jacfwd, vmap, vjp, jvp, hessian = (torch.func.jacrev, torch.func.jacfwd, torch.func.vmap,
                                              torch.func.vjp, torch.func.jvp, torch.func.hessian)
    torch.manual_seed(0)
    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()
    D = 8
    weight = torch.randn(D, D)
    bias = torch.randn(D)
    x = torch.randn(D)
    def compute_jac(xp):
        jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                         for vec in unit_vectors]
        return torch.stack(jacobian_rows)
    xp = x.clone().requires_grad_()
    unit_vectors = torch.eye(D)
    jacobian = compute_jac(xp)
    print(jacobian.shape)
    print(jacobian[0])
    _, vjp_fn = vjp(partial_predict := (lambda x: predict(weight, bias, x)), x)
    ft_jacobian, = vmap(vjp_fn)(unit_vectors)
    print(torch.allclose(ft_jacobian, jacobian), (ft_jacobian - jacobian).abs().max())
    ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
    print(torch.allclose(ft_jacobian, jacobian))
    ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
    no_vmap_jac_weight, no_vmap_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
    print(ft_jac_weight.shape, ft_jac_bias[:2])
    Din = 4; Dout = 6
    weight = torch.randn(Dout, Din)
    bias = torch.randn(Dout)
    x = torch.randn(Din)
    using_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
    using_bwd = jacrev(predict, argnums=2)(weight, bias, x)
    print(f'jacfwd output shape: {using_fwd.shape}', f'jacrev output shape: {using_bwd.shape}')
    print(torch.allclose(using_fwd, using_bwd), using_fwd[0])
    hess_api = hessian(predict, argnums=2)(weight, bias, x)
    hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
    hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
    print(torch.allclose(hess_api, hess_fwdfwd), hess_api.shape, hess_api[0, 0])
    print((hess_api - hess_revrev).abs().max())
    batch_size = 3
    weight = torch.randn(Dout, Din)
    bias = torch.randn(Dout)
    x = torch.randn(batch_size, Din)
    compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
    batch_jacobian0 = compute_batch_jacobian(weight, bias, x)
    def predict_with_output_summed(weight, bias, x):
        return predict(weight, bias, x).sum(0)
    batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
    print(batch_jacobian0.shape, torch.allclose(batch_jacobian0, batch_jacobian1))
    compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
    batch_hess = compute_batch_hessian(weight, bias, x)
    print(batch_hess.shape, batch_hess[1, 2, 0])
    def hvp(f, primals, tangents):
        return jvp(torch.func.grad(f), primals, tangents)[1]
    def f(x):
        return x.sin().sum()
    x = torch.randn(2048 // 64)
    tangent = torch.randn(2048 // 64)
    result = hvp(f, (x,), (tangent,))
    print(result[:4])
    AF = torch.autograd.functional
    print(attempt(lambda: AF.jacobian(lambda x: predict(weight, bias, x), x[0])))
    x = torch.randn(batch_size, Din)
    print(AF.jacobian(lambda x: predict(weight, bias, x), x[0]))
    print(AF.hessian(lambda x: x.pow(3).sum(), x[0]))
    print(AF.vhp(lambda x: x.pow(3).sum(), x[0], torch.ones(Din)))
    print(AF.hvp(lambda x: x.pow(3).sum(), x[0], torch.ones(Din)))
    print(AF.jvp(lambda x: x.exp(), x[0], torch.ones(Din)))
    print(AF.vjp(lambda x: x.exp(), x[0], torch.ones(Din)))
    print(AF.jacobian(lambda x: x.exp(), x[0], vectorize=True, strategy='forward-mode'))


def llm_ch2_dataloader(torch):
    # rasbt/LLMs-from-scratch ch02/01_main-chapter-code/ch02.ipynb (token ids from torch's RNG
    # in place of tiktoken)
    Dataset = torch.utils.data.Dataset; DataLoader = torch.utils.data.DataLoader
    torch.manual_seed(123)
    token_ids = torch.randint(0, 50, (60,)).tolist()
    class GPTDatasetV1(Dataset):
        def __init__(self, token_ids, max_length, stride):
            self.input_ids = []
            self.target_ids = []
            for i in range(0, len(token_ids) - max_length, stride):
                input_chunk = token_ids[i:i + max_length]
                target_chunk = token_ids[i + 1: i + max_length + 1]
                self.input_ids.append(torch.tensor(input_chunk))
                self.target_ids.append(torch.tensor(target_chunk))
        def __len__(self):
            return len(self.input_ids)
        def __getitem__(self, idx):
            return self.input_ids[idx], self.target_ids[idx]
    def create_dataloader_v1(token_ids, batch_size=4, max_length=256, stride=128, shuffle=True,
                             drop_last=True, num_workers=0):
        dataset = GPTDatasetV1(token_ids, max_length, stride)
        return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                          num_workers=num_workers)
    dataloader = create_dataloader_v1(token_ids, batch_size=1, max_length=4, stride=1, shuffle=False)
    data_iter = iter(dataloader)
    first_batch = next(data_iter)
    print(first_batch)
    second_batch = next(data_iter)
    print(second_batch)
    dataloader = create_dataloader_v1(token_ids, batch_size=8, max_length=4, stride=4, shuffle=False)
    inputs, targets = next(iter(dataloader))
    print("Inputs:\n", inputs)
    print("\nTargets:\n", targets)
    print(len(dataloader), len(dataloader.dataset))
    dataloader = create_dataloader_v1(token_ids, batch_size=3, max_length=4, stride=2, shuffle=True)
    for x, y in dataloader:
        print(x.shape, x[:, 0])
    input_ids = torch.tensor([2, 3, 5, 1])
    vocab_size = 6
    output_dim = 3
    torch.manual_seed(123)
    embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
    print(embedding_layer.weight)
    print(embedding_layer(torch.tensor([3])))
    print(embedding_layer(input_ids))
    vocab_size = 50
    output_dim = 16
    token_embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
    max_length = 4
    dataloader = create_dataloader_v1(token_ids, batch_size=8, max_length=max_length, stride=max_length, shuffle=False)
    data_iter = iter(dataloader)
    inputs, targets = next(data_iter)
    token_embeddings = token_embedding_layer(inputs)
    print(token_embeddings.shape)
    context_length = max_length
    pos_embedding_layer = torch.nn.Embedding(context_length, output_dim)
    pos_embeddings = pos_embedding_layer(torch.arange(max_length))
    print(pos_embeddings.shape)
    input_embeddings = token_embeddings + pos_embeddings
    print(input_embeddings.shape, input_embeddings[0, 0, :4], input_embeddings.grad_fn)
    onehot = torch.nn.functional.one_hot(torch.tensor([2, 3, 1]))
    linear = torch.nn.Linear(vocab_size, output_dim, bias=False)
    linear.weight = torch.nn.Parameter(embedding_layer.weight.T)
    print(onehot, linear(torch.nn.functional.one_hot(torch.tensor([2, 3, 1]), 6).float()))
    # random sampler / generator
    g = torch.Generator(); g.manual_seed(7)
    dl = DataLoader(list(range(10)), batch_size=4, shuffle=True, generator=g)
    print([b for b in dl])
    print(list(torch.utils.data.RandomSampler(range(5), generator=g)))
    print(list(torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(5)), 2, False)))
    train, val = torch.utils.data.random_split(range(10), [0.8, 0.2], generator=torch.Generator().manual_seed(42))
    print(list(train), list(val))
    ds = torch.utils.data.TensorDataset(torch.arange(6).view(3, 2), torch.tensor([0, 1, 0]))
    print(ds[1], len(ds), next(iter(DataLoader(ds, batch_size=2))))
    sub = torch.utils.data.Subset(ds, [2, 0])
    print(sub[0], len(sub), torch.utils.data.ConcatDataset([ds, sub])[4])


def llm_ch6_classifier(torch):
    # rasbt/LLMs-from-scratch ch06: classification fine-tuning (tiny GPT, last token logits,
    # calc_accuracy_loader, calc_loss_batch, frozen layers)
    nn = torch.nn
    torch.manual_seed(123)
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
    class MultiHeadAttention(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
            super().__init__()
            self.d_out = d_out; self.num_heads = num_heads; self.head_dim = d_out // num_heads
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.out_proj = nn.Linear(d_out, d_out)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x)
            keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            attn_scores = queries @ keys.transpose(2, 3)
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
            attn_scores.masked_fill_(mask_bool, -torch.inf)
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
            attn_weights = self.dropout(attn_weights)
            context_vec = (attn_weights @ values).transpose(1, 2)
            context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
            return self.out_proj(context_vec)
    class TransformerBlock(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.att = MultiHeadAttention(cfg["emb_dim"], cfg["emb_dim"], cfg["context_length"],
                                          cfg["drop_rate"], cfg["n_heads"], cfg["qkv_bias"])
            self.ff = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
            self.norm1 = LayerNorm(cfg["emb_dim"]); self.norm2 = LayerNorm(cfg["emb_dim"])
            self.drop_shortcut = nn.Dropout(cfg["drop_rate"])
        def forward(self, x):
            shortcut = x
            x = self.norm1(x); x = self.att(x); x = self.drop_shortcut(x); x = x + shortcut
            shortcut = x
            x = self.norm2(x); x = self.ff(x); x = self.drop_shortcut(x); x = x + shortcut
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
            return self.out_head(x)
    cfg = {"vocab_size": 50, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2,
           "drop_rate": 0.0, "qkv_bias": True}
    model = GPTModel(cfg)
    for param in model.parameters():
        param.requires_grad = False
    num_classes = 2
    model.out_head = torch.nn.Linear(in_features=cfg["emb_dim"], out_features=num_classes)
    for param in model.trf_blocks[-1].parameters():
        param.requires_grad = True
    for param in model.final_norm.parameters():
        param.requires_grad = True
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))
    inputs = torch.tensor([[5, 7, 9, 2]])
    with torch.no_grad():
        outputs = model(inputs)
    print("Outputs:\n", outputs)
    print("Outputs dimensions:", outputs.shape)
    print("Last output token:", outputs[:, -1, :])
    probas = torch.softmax(outputs[:, -1, :], dim=-1)
    label = torch.argmax(probas)
    print("Class label:", label.item())
    X = torch.randint(0, 50, (12, 6)); Y = torch.randint(0, 2, (12,))
    # pad like SpamDataset
    X[::3, -2:] = 0
    ds = torch.utils.data.TensorDataset(X, Y)
    train_loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)
    def calc_accuracy_loader(data_loader, model, device, num_batches=None):
        model.eval()
        correct_predictions, num_examples = 0, 0
        if num_batches is None:
            num_batches = len(data_loader)
        else:
            num_batches = min(num_batches, len(data_loader))
        for i, (input_batch, target_batch) in enumerate(data_loader):
            if i < num_batches:
                with torch.no_grad():
                    logits = model(input_batch)[:, -1, :]
                predicted_labels = torch.argmax(logits, dim=-1)
                num_examples += predicted_labels.shape[0]
                correct_predictions += (predicted_labels == target_batch).sum().item()
            else:
                break
        return correct_predictions / num_examples
    def calc_loss_batch(input_batch, target_batch, model, device):
        logits = model(input_batch)[:, -1, :]
        return torch.nn.functional.cross_entropy(logits, target_batch)
    torch.manual_seed(123)
    print(f"Training accuracy: {calc_accuracy_loader(train_loader, model, 'cpu', num_batches=2)*100:.2f}%")
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.1)
    model.train()
    for epoch in range(2):
        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()
            loss = calc_loss_batch(input_batch, target_batch, model, 'cpu')
            loss.backward()
            optimizer.step()
            print(f"Ep {epoch+1}: loss {loss.item():.6f}", loss)
    print(model.out_head.weight.grad, model.trf_blocks[0].att.W_query.weight.grad)
    print(model.trf_blocks[-1].norm2.scale)
    def classify_review(ids, model, max_length=None, pad_token_id=0):
        model.eval()
        supported_context_length = model.pos_emb.weight.shape[0]
        input_ids = ids[:min(max_length, supported_context_length)]
        input_ids += [pad_token_id] * (max_length - len(input_ids))
        input_tensor = torch.tensor(input_ids).unsqueeze(0)
        with torch.no_grad():
            logits = model(input_tensor)[:, -1, :]
        predicted_label = torch.argmax(logits, dim=-1).item()
        return "spam" if predicted_label == 1 else "not spam", logits
    print(classify_review([4, 5, 6], model, max_length=6))


def llm_ch7_collate(torch):
    # rasbt/LLMs-from-scratch ch07: instruction fine-tuning custom_collate_fn
    def custom_collate_draft_1(batch, pad_token_id=50256, device="cpu"):
        batch_max_length = max(len(item)+1 for item in batch)
        inputs_lst = []
        for item in batch:
            new_item = item.copy()
            new_item += [pad_token_id]
            padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
            inputs = torch.tensor(padded[:-1])
            inputs_lst.append(inputs)
        inputs_tensor = torch.stack(inputs_lst).to(device)
        return inputs_tensor
    inputs_1 = [0, 1, 2, 3, 4]
    inputs_2 = [5, 6]
    inputs_3 = [7, 8, 9]
    batch = (inputs_1, inputs_2, inputs_3)
    print(custom_collate_draft_1(batch))
    def custom_collate_fn(batch, pad_token_id=50256, ignore_index=-100, allowed_max_length=None,
                          device="cpu"):
        batch_max_length = max(len(item)+1 for item in batch)
        inputs_lst, targets_lst = [], []
        for item in batch:
            new_item = item.copy()
            new_item += [pad_token_id]
            padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
            inputs = torch.tensor(padded[:-1])
            targets = torch.tensor(padded[1:])
            mask = targets == pad_token_id
            indices = torch.nonzero(mask).squeeze()
            if indices.numel() > 1:
                targets[indices[1:]] = ignore_index
            if allowed_max_length is not None:
                inputs = inputs[:allowed_max_length]
                targets = targets[:allowed_max_length]
            inputs_lst.append(inputs)
            targets_lst.append(targets)
        inputs_tensor = torch.stack(inputs_lst).to(device)
        targets_tensor = torch.stack(targets_lst).to(device)
        return inputs_tensor, targets_tensor
    inputs, targets = custom_collate_fn(batch)
    print(inputs)
    print(targets)
    print(custom_collate_fn(batch, allowed_max_length=3))
    logits_1 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5]])
    targets_1 = torch.tensor([0, 1])
    loss_1 = torch.nn.functional.cross_entropy(logits_1, targets_1)
    print(loss_1)
    logits_2 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5], [-0.5, 1.5]])
    targets_2 = torch.tensor([0, 1, 1])
    loss_2 = torch.nn.functional.cross_entropy(logits_2, targets_2)
    print(loss_2)
    targets_3 = torch.tensor([0, 1, -100])
    loss_3 = torch.nn.functional.cross_entropy(logits_2, targets_3)
    print(loss_3)
    print("loss_1 == loss_3:", loss_1 == loss_3)
    all_ignored = torch.nn.functional.cross_entropy(logits_2, torch.tensor([-100, -100, -100]))
    print(all_ignored)
    lg = logits_2.clone().requires_grad_()
    torch.nn.functional.cross_entropy(lg, targets_3, reduction='sum').backward()
    print(lg.grad)
    lg.grad = None
    torch.nn.functional.cross_entropy(lg, torch.tensor([-100, -100, -100])).backward()
    print(lg.grad)
    print(torch.nn.functional.cross_entropy(logits_2.unsqueeze(0).transpose(1, 2), targets_3.unsqueeze(0)))
    from functools import partial
    customized_collate_fn = partial(custom_collate_fn, device="cpu", allowed_max_length=4)
    dl = torch.utils.data.DataLoader([[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], [11]], batch_size=2,
                                     collate_fn=customized_collate_fn, shuffle=False)
    for x, y in dl:
        print(x, y, x.shape)
    print(torch.utils.data.default_collate([(torch.tensor([1, 2]), 3, 'a'), (torch.tensor([4, 5]), 6, 'b')]))
    print(torch.utils.data.default_collate([{'x': 1.5, 'y': torch.zeros(2)}, {'x': 2.5, 'y': torch.ones(2)}]))


def lora(torch):
    # rasbt/LLMs-from-scratch appendix-E LoRA and labml.ai lora/__init__.py
    nn = torch.nn
    torch.manual_seed(123)
    class LoRALayer(torch.nn.Module):
        def __init__(self, in_dim, out_dim, rank, alpha):
            super().__init__()
            self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
            torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
            self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
            self.alpha = alpha
        def forward(self, x):
            x = self.alpha * (x @ self.A @ self.B)
            return x
    class LinearWithLoRA(torch.nn.Module):
        def __init__(self, linear, rank, alpha):
            super().__init__()
            self.linear = linear
            self.lora = LoRALayer(linear.in_features, linear.out_features, rank, alpha)
        def forward(self, x):
            return self.linear(x) + self.lora(x)
    def replace_linear_with_lora(model, rank, alpha):
        for name, module in model.named_children():
            if isinstance(module, torch.nn.Linear):
                setattr(model, name, LinearWithLoRA(module, rank, alpha))
            else:
                replace_linear_with_lora(module, rank, alpha)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 8), nn.Tanh()), nn.Linear(8, 2))
    total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Total trainable parameters before: {total_params:,}")
    for param in model.parameters():
        param.requires_grad = False
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))
    replace_linear_with_lora(model, rank=2, alpha=4)
    print(f"Total trainable LoRA parameters: {sum(p.numel() for p in model.parameters() if p.requires_grad):,}")
    print(model)
    x = torch.randn(5, 6)
    y = torch.randint(0, 2, (5,))
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.1)
    for step in range(3):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        print(step, loss, model[0].lora.B.grad[0], model[0].linear.weight.grad)
    # labml LoRA Linear
    class Linear(nn.Module):
        def __init__(self, in_features, out_features, bias, r, alpha=None):
            super().__init__()
            if alpha is None:
                alpha = r
            self.weight = nn.Parameter(torch.empty((out_features, in_features)))
            self.weight.requires_grad = False
            if bias:
                self.bias = nn.Parameter(torch.empty(out_features))
                self.bias.requires_grad = False
            else:
                self.bias = None
            self.scaling = alpha / r
            self.lora_a = nn.Parameter(torch.empty((r, in_features)))
            self.lora_b = nn.Parameter(torch.empty((out_features, r)))
            with torch.no_grad():
                nn.init.kaiming_uniform_(self.lora_a, a=5 ** 0.5)
                nn.init.zeros_(self.lora_b)
        def forward(self, x):
            result = nn.functional.linear(x, self.weight, bias=self.bias)
            result += (x @ self.lora_a.T @ self.lora_b.T) * self.scaling
            return result
    class Embedding(nn.Module):
        def __init__(self, num_embeddings, embedding_dim, r, alpha=None):
            super().__init__()
            if alpha is None:
                alpha = r
            self.weight = nn.Parameter(torch.empty((num_embeddings, embedding_dim)))
            self.weight.requires_grad = False
            self.scaling = alpha / r
            self.lora_a = nn.Parameter(torch.empty((r, num_embeddings)))
            self.lora_b = nn.Parameter(torch.empty((embedding_dim, r)))
            with torch.no_grad():
                nn.init.normal_(self.lora_a)
                nn.init.zeros_(self.lora_b)
        def forward(self, x):
            result = nn.functional.embedding(x, self.weight)
            result += (nn.functional.embedding(x, self.lora_a.T) @ self.lora_b.T) * self.scaling
            return result
    lin = Linear(4, 3, True, r=2)
    with torch.no_grad():
        lin.weight.normal_(); lin.bias.uniform_()
    emb = Embedding(10, 4, r=2)
    with torch.no_grad():
        emb.weight.normal_()
    idx = torch.tensor([[1, 2, 3], [4, 5, 9]])
    out = lin(emb(idx))
    print(out.grad_fn, out.grad_fn.next_functions)
    out.sum().backward()
    print(lin.lora_a.grad, lin.lora_b.grad, emb.lora_b.grad, emb.lora_a.grad, lin.weight.grad)
    # merge weights
    with torch.no_grad():
        lin.lora_b.normal_()
        merged = lin.weight + lin.lora_b @ lin.lora_a * lin.scaling
    xx = torch.randn(2, 4)
    print(lin(xx), nn.functional.linear(xx, merged, lin.bias))


def labml(torch):
    # labml.ai annotated papers: normalization/rms_norm, transformers/rope, transformers/alibi,
    # capsule_networks
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    class RMSNorm(nn.Module):
        def __init__(self, normalized_shape, *, eps=1e-8, elementwise_affine=True):
            super().__init__()
            self.eps = eps
            self.elementwise_affine = elementwise_affine
            if self.elementwise_affine:
                self.gain = nn.Parameter(torch.ones(normalized_shape))
        def forward(self, x):
            s = torch.mean(x ** 2, dim=-1, keepdim=True)
            x_norm = x / torch.sqrt(s + self.eps)
            if self.elementwise_affine:
                x_norm = self.gain * x_norm
            return x_norm
    x = torch.randn(2, 3, 8, requires_grad=True)
    rn = RMSNorm(8)
    y = rn(x)
    y.pow(2).sum().backward()
    print(y[0, 0], x.grad[0, 0], rn.gain.grad)
    ref = nn.RMSNorm(8, eps=1e-8)
    print(ref, ref(x.detach())[0, 0], (ref(x) - rn(x)).abs().max())
    print(F.rms_norm(x, (8,))[1, 2], F.rms_norm(x.double(), (3, 8), eps=None)[0, 0, :3])
    class RotaryPositionalEmbeddings(nn.Module):
        def __init__(self, d, base=10_000):
            super().__init__()
            self.base = base
            self.d = d
            self.cos_cached = None
            self.sin_cached = None
        def _build_cache(self, x):
            if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
                return
            seq_len = x.shape[0]
            theta = 1. / (self.base ** (torch.arange(0, self.d, 2).float() / self.d)).to(x.device)
            seq_idx = torch.arange(seq_len, device=x.device).float().to(x.device)
            idx_theta = torch.einsum('n,d->nd', seq_idx, theta)
            idx_theta2 = torch.cat([idx_theta, idx_theta], dim=1)
            self.cos_cached = idx_theta2.cos()[:, None, None, :]
            self.sin_cached = idx_theta2.sin()[:, None, None, :]
        def _neg_half(self, x):
            d_2 = self.d // 2
            return torch.cat([-x[:, :, :, d_2:], x[:, :, :, :d_2]], dim=-1)
        def forward(self, x):
            self._build_cache(x)
            x_rope, x_pass = x[..., :self.d], x[..., self.d:]
            neg_half_x = self._neg_half(x_rope)
            x_rope = (x_rope * self.cos_cached[:x.shape[0]]) + (neg_half_x * self.sin_cached[:x.shape[0]])
            return torch.cat((x_rope, x_pass), dim=-1)
    x = torch.tensor([[1, 2, 3, 4], [4, 5, 6, 7], [7, 8, 9, 10]], dtype=torch.float)
    x = x[:, None, None, :]
    print(x.shape)
    rotary_pe = RotaryPositionalEmbeddings(4)
    print(rotary_pe(x))
    print(RotaryPositionalEmbeddings(2)(x))
    # complex-number form (llama)
    def precompute_freqs_cis(dim, end, theta=10000.0):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        t = torch.arange(end, device=freqs.device)
        freqs = torch.outer(t, freqs).float()
        return torch.polar(torch.ones_like(freqs), freqs)
    def apply_rotary_emb(xq, freqs_cis):
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq)
    fc = precompute_freqs_cis(8, 5)
    print(fc[1], fc.dtype)
    xq = torch.randn(2, 5, 2, 8, requires_grad=True)
    out = apply_rotary_emb(xq, fc)
    out.sum().backward()
    print(out[0, 1, 0], out.grad_fn, xq.grad[0, 1, 0])
    def get_slopes(n_heads):
        n = 2 ** math.floor(math.log2(n_heads))
        m_0 = 2.0 ** (-8.0 / n)
        m = torch.pow(m_0, torch.arange(1, 1 + n))
        if n < n_heads:
            m_hat_0 = 2.0 ** (-4.0 / n)
            m_hat = torch.pow(m_hat_0, torch.arange(1, 1 + 2 * (n_heads - n), 2))
            m = torch.cat([m, m_hat])
        return m
    def get_alibi_biases(n_heads, mask):
        m = get_slopes(n_heads).to(mask.device)
        distance = mask.cumsum(dim=-1)
        return distance[:, :, None] * m[None, None, :]
    print(get_slopes(8), get_slopes(6))
    mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))
    print(mask.cumsum(-1), mask.cumsum(-1).dtype)
    print(get_alibi_biases(3, mask)[:, :, 1])
    # capsule networks
    def squash(s, epsilon=1e-8):
        s2 = (s ** 2).sum(dim=-1, keepdims=True)
        return (s2 / (1 + s2)) * (s / torch.sqrt(s2 + epsilon))
    class Router(nn.Module):
        def __init__(self, in_caps, out_caps, in_d, out_d, iterations):
            super().__init__()
            self.in_caps = in_caps; self.out_caps = out_caps; self.iterations = iterations
            self.softmax = nn.Softmax(dim=1)
            self.weight = nn.Parameter(torch.randn(in_caps, out_caps, in_d, out_d), requires_grad=True)
        def forward(self, u):
            u_hat = torch.einsum('ijnm,bin->bijm', self.weight, u)
            b = u.new_zeros(u.shape[0], self.in_caps, self.out_caps)
            v = None
            for i in range(self.iterations):
                c = self.softmax(b)
                s = torch.einsum('bij,bijm->bjm', c, u_hat)
                v = squash(s)
                a = torch.einsum('bjm,bijm->bij', v, u_hat)
                b = b + a
            return v
    class MarginLoss(nn.Module):
        def __init__(self, *, n_labels, lambda_=0.5, m_positive=0.9, m_negative=0.1):
            super().__init__()
            self.m_negative = m_negative; self.m_positive = m_positive
            self.lambda_ = lambda_; self.n_labels = n_labels
        def forward(self, v, labels):
            v_norm = torch.sqrt((v ** 2).sum(dim=-1))
            labels = torch.eye(self.n_labels, device=labels.device)[labels]
            loss = labels * F.relu(self.m_positive - v_norm) + \
                self.lambda_ * (1.0 - labels) * F.relu(v_norm - self.m_negative)
            return loss.sum(dim=-1).mean()
    router = Router(6, 3, 4, 5, 3)
    u = squash(torch.randn(2, 6, 4))
    v = router(u)
    loss = MarginLoss(n_labels=3)(v, torch.tensor([0, 2]))
    loss.backward()
    print(v[0], loss, router.weight.grad[0, 0])


def einsum_attention(torch):
    # lucidrains-style attention (x-transformers / vit-pytorch), einops replaced by reshape/permute
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    class Attention(nn.Module):
        def __init__(self, dim, heads=2, dim_head=4, dropout=0.):
            super().__init__()
            inner_dim = dim_head * heads
            self.heads = heads
            self.scale = dim_head ** -0.5
            self.norm = nn.LayerNorm(dim)
            self.attend = nn.Softmax(dim=-1)
            self.dropout = nn.Dropout(dropout)
            self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
            self.to_out = nn.Sequential(nn.Linear(inner_dim, dim), nn.Dropout(dropout))
        def forward(self, x):
            x = self.norm(x)
            qkv = self.to_qkv(x).chunk(3, dim=-1)
            b, n, _ = x.shape
            q, k, v = map(lambda t: t.reshape(b, n, self.heads, -1).permute(0, 2, 1, 3), qkv)
            dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
            attn = self.attend(dots)
            attn = self.dropout(attn)
            out = torch.matmul(attn, v)
            out = out.permute(0, 2, 1, 3).reshape(b, n, -1)
            return self.to_out(out)
    att = Attention(8)
    x = torch.randn(2, 5, 8, requires_grad=True)
    y = att(x)
    y.sum().backward()
    print(y[0, 0], x.grad[1, 2], att.to_qkv.weight.grad[0, :4])
    q = torch.randn(2, 2, 5, 4, requires_grad=True); k = torch.randn(2, 2, 5, 4, requires_grad=True)
    v = torch.randn(2, 2, 5, 4, requires_grad=True)
    sim = torch.einsum('b h i d, b h j d -> b h i j', q, k) * 0.5
    mask = torch.ones(5, 5, dtype=torch.bool).triu(1)
    mask_value = -torch.finfo(sim.dtype).max
    sim = sim.masked_fill(mask, mask_value)
    sim = sim - sim.amax(dim=-1, keepdim=True).detach()
    attn = sim.softmax(dim=-1)
    out = torch.einsum('b h i j, b h j d -> b h i d', attn, v)
    out.sum().backward()
    print(out[0, 0, 1], q.grad[0, 1, 2], k.grad[1, 0, 0], v.grad[0, 0, 4], out.grad_fn, sim.grad_fn)
    print(torch.einsum('...ij,...jk', q[0], k[0].transpose(-1, -2)).shape)
    print(torch.einsum('bhid->bd', q).grad_fn, torch.einsum('ii', torch.eye(3)), torch.einsum('i,i->', q[0, 0, 0], k[0, 0, 0]))
    print(torch.einsum(q[0, 0], [0, 1], k[0, 0], [2, 1], [0, 2])[0])
    sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    print(sdpa[0, 0, 1], sdpa.grad_fn)
    print(attempt(lambda: torch.einsum('bhid,bhjd->bhij', q, k[0])))
    print(attempt(lambda: torch.einsum('ij->k', q[0, 0])))
    # linear attention (lucidrains linear-attention-transformer)
    def linear_attn(q, k, v):
        q = q.softmax(dim=-1); k = k.softmax(dim=-2)
        context = torch.einsum('bhnd,bhne->bhde', k, v)
        return torch.einsum('bhnd,bhde->bhne', q, context)
    la = linear_attn(q, k, v)
    g = torch.autograd.grad(la.pow(2).sum(), (q, k, v))
    print(la[1, 1, 3], [t[0, 0, 0] for t in g])
    # rotary via einsum + rearranged via unflatten
    freqs = torch.einsum('i,j->ij', torch.arange(5).float(), 1 / (10000 ** (torch.arange(0, 4, 2).float() / 4)))
    freqs = torch.stack((freqs, freqs), dim=-1).flatten(-2)
    def rotate_half(x):
        x = x.unflatten(-1, (-1, 2))
        x1, x2 = x.unbind(dim=-1)
        x = torch.stack((-x2, x1), dim=-1)
        return x.flatten(-2)
    rq = q * freqs.cos() + rotate_half(q) * freqs.sin()
    print(rq[0, 0, 2], rq.grad_fn)


def backprop_ninja(torch):
    # karpathy/nn-zero-to-hero lectures/makemore/makemore_part4_backprop.ipynb (random names
    # replaced by random token ids)
    F = torch.nn.functional
    torch.manual_seed(42)
    vocab_size, n_embd, n_hidden, block_size = 27, 10, 64, 3
    n = 32
    Xb = torch.randint(0, vocab_size, (n, block_size)); Yb = torch.randint(0, vocab_size, (n,))
    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((vocab_size, n_embd), generator=g)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5/3)/((n_embd * block_size)**0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.1
    W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.1
    b2 = torch.randn(vocab_size, generator=g) * 0.1
    bngain = torch.randn((1, n_hidden))*0.1 + 1.0
    bnbias = torch.randn((1, n_hidden))*0.1
    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    print(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True
    def cmp(s, dt, t):
        ex = torch.all(dt == t.grad).item()
        app = torch.allclose(dt, t.grad)
        maxdiff = (dt - t.grad).abs().max().item()
        print(f'{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}')
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    bnmeani = 1/n*hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1/(n-1)*(bndiff2).sum(0, keepdim=True)
    bnvar_inv = (bnvar + 1e-5)**-0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()
    for p in parameters:
        p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes, logits,
              h, hpreact, bnraw, bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani, embcat, emb]:
        t.retain_grad()
    loss.backward()
    print(loss)
    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0/n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-counts_sum**-2) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h**2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dbnraw = bngain * dhpreact
    dbnbias = dhpreact.sum(0, keepdim=True)
    dbndiff = bnvar_inv * dbnraw
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
    dbnvar = (-0.5*(bnvar + 1e-5)**-1.5) * dbnvar_inv
    dbndiff2 = (1.0/(n-1))*torch.ones_like(bndiff2) * dbnvar
    dbndiff += (2*bndiff) * dbndiff2
    dhprebn = dbndiff.clone()
    dbnmeani = (-dbndiff).sum(0)
    dhprebn += 1.0/n * (torch.ones_like(hprebn) * dbnmeani)
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]
    for name, d, t in [('logprobs', dlogprobs, logprobs), ('probs', dprobs, probs),
                       ('counts_sum_inv', dcounts_sum_inv, counts_sum_inv), ('counts_sum', dcounts_sum, counts_sum),
                       ('counts', dcounts, counts), ('norm_logits', dnorm_logits, norm_logits),
                       ('logit_maxes', dlogit_maxes, logit_maxes), ('logits', dlogits, logits),
                       ('h', dh, h), ('W2', dW2, W2), ('b2', db2, b2), ('hpreact', dhpreact, hpreact),
                       ('bngain', dbngain, bngain), ('bnbias', dbnbias, bnbias), ('bnraw', dbnraw, bnraw),
                       ('bnvar_inv', dbnvar_inv, bnvar_inv), ('bnvar', dbnvar, bnvar),
                       ('bndiff2', dbndiff2, bndiff2), ('bndiff', dbndiff, bndiff),
                       ('bnmeani', dbnmeani, bnmeani), ('hprebn', dhprebn, hprebn),
                       ('embcat', dembcat, embcat), ('W1', dW1, W1), ('b1', db1, b1),
                       ('emb', demb, emb), ('C', dC, C)]:
        cmp(name, d, t)
    # exercise 2: loss fast
    loss_fast = F.cross_entropy(logits, Yb)
    print(loss_fast.item(), 'diff:', (loss_fast - loss).item())
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n
    cmp('logits', dlogits, logits)
    print(logits.shape, Yb.shape, F.softmax(logits, 1)[0], dlogits[0] * n, dlogits[0].sum())
    # exercise 3: batchnorm fast
    hpreact_fast = bngain * (hprebn - hprebn.mean(0, keepdim=True)) / torch.sqrt(hprebn.var(0, keepdim=True, unbiased=True) + 1e-5) + bnbias
    print('max diff:', (hpreact_fast - hpreact).abs().max())
    dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))
    cmp('hprebn', dhprebn, hprebn)
    print(dhprebn.shape)
    # training loop with manual grads, step
    with torch.no_grad():
        lr = 0.1
        grads = [dC, dW1, db1, dW2, db2, dbngain, dbnbias]
        for p, grad in zip(parameters, grads):
            p.data += -lr * grad
    print(C[0, :4], W1.sum(), bngain[0, :4])
    # emb scatter via index_add
    dC2 = torch.zeros_like(C)
    dC2.index_add_(0, Xb.view(-1), demb.view(-1, n_embd))
    cmp('C index_add', dC2, C)
    dC3 = torch.zeros_like(C).scatter_add_(0, Xb.view(-1, 1).expand(-1, n_embd), demb.view(-1, n_embd))
    cmp('C scatter_add', dC3, C)
    dC4 = F.one_hot(Xb, vocab_size).float().view(-1, vocab_size).T @ demb.view(-1, n_embd)
    cmp('C one_hot', dC4, C)


def gnn_scatter(torch):
    # message passing without PyG: gnn tutorials (UvA-free), index_add_/scatter_reduce_
    nn = torch.nn
    torch.manual_seed(0)
    num_nodes = 6
    edge_index = torch.tensor([[0, 1, 1, 2, 3, 4, 5, 0, 2], [1, 0, 2, 1, 4, 3, 0, 5, 5]])
    x = torch.randn(num_nodes, 4, requires_grad=True)
    W = nn.Linear(4, 3)
    src, dst = edge_index
    msg = W(x)[src]
    agg = torch.zeros(num_nodes, 3).index_add_(0, dst, msg)
    deg = torch.zeros(num_nodes).index_add_(0, dst, torch.ones(dst.shape[0]))
    print(agg, deg, agg.grad_fn)
    mean = agg / deg.clamp(min=1).unsqueeze(-1)
    for reduce in ['sum', 'mean', 'amax', 'amin', 'prod']:
        for include_self in (True, False):
            out = torch.zeros(num_nodes, 3).scatter_reduce(0, dst.unsqueeze(-1).expand(-1, 3), msg, reduce=reduce, include_self=include_self)
            g = torch.autograd.grad(out.sum(), x, retain_graph=True)[0]
            print(reduce, include_self, out[0], out.grad_fn, g[1])
    out = torch.full((num_nodes, 3), float('-inf')).scatter_reduce_(0, dst.unsqueeze(-1).expand(-1, 3), msg.detach(), reduce='amax')
    print(out)
    # GCN norm: D^-1/2 (A+I) D^-1/2
    A = torch.zeros(num_nodes, num_nodes)
    A[edge_index[0], edge_index[1]] = 1
    A_hat = A + torch.eye(num_nodes)
    D = A_hat.sum(1)
    D_inv_sqrt = D.pow(-0.5)
    D_inv_sqrt[torch.isinf(D_inv_sqrt)] = 0.
    A_norm = D_inv_sqrt[:, None] * A_hat * D_inv_sqrt[None, :]
    h = torch.relu(A_norm @ W(x))
    h.sum().backward()
    print(A_norm[0], h[2], x.grad[3], W.weight.grad)
    # attention-style softmax over neighbours (GAT) with scatter
    a = torch.randn(6, requires_grad=True)
    e = torch.nn.functional.leaky_relu((torch.cat([W(x)[src], W(x)[dst]], dim=1) * a).sum(-1), 0.2)
    e_max = torch.zeros(num_nodes).scatter_reduce(0, dst, e, reduce='amax', include_self=False)
    e_exp = (e - e_max[dst]).exp()
    denom = torch.zeros(num_nodes).index_add(0, dst, e_exp)
    alpha = e_exp / denom[dst]
    out = torch.zeros(num_nodes, 3).index_add(0, dst, alpha.unsqueeze(-1) * W(x)[src])
    out.sum().backward()
    print(alpha, out[5], a.grad)
    print(torch.zeros(3).scatter(0, torch.tensor([0, 2]), torch.tensor([1., 2.])),
          torch.zeros(3).scatter(0, torch.tensor([0, 0]), 5.0, reduce='add'),
          torch.zeros(2, 3).scatter_add(1, torch.tensor([[0, 1], [2, 2]]), torch.ones(2, 2)))
    print(torch.bincount(dst), torch.bincount(dst, weights=torch.arange(9.)), torch.unique(dst, return_counts=True))
    print(attempt(lambda: torch.zeros(3).index_add_(0, torch.tensor([0, 3]), torch.ones(2))))
    print(attempt(lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), reduce='max')))
    # sparse adjacency
    adj = torch.sparse_coo_tensor(edge_index, torch.ones(9), (num_nodes, num_nodes),
                                  check_invariants=False)  # (no once-per-process warning)
    print(torch.sparse.mm(adj, x).sum(0), adj.to_dense()[0])


def flows(torch):
    # NICE (additive coupling), RealNVP-free MAF with MADE masks, Glow's ActNorm and invertible
    # 1x1 conv (slogdet / LU), as in the normalizing-flows tutorials (e.g. karpathy/pytorch-normalizing-flows)
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    class AdditiveCoupling(nn.Module):
        def __init__(self, dim, hidden, parity):
            super().__init__()
            self.parity = parity
            self.net = nn.Sequential(nn.Linear(dim // 2, hidden), nn.ReLU(), nn.Linear(hidden, dim // 2))
        def forward(self, x):
            x0, x1 = x[:, ::2], x[:, 1::2]
            if self.parity:
                x0, x1 = x1, x0
            z1 = x1 + self.net(x0)
            z = torch.cat([x0, z1], dim=1) if not self.parity else torch.cat([z1, x0], dim=1)
            return z, torch.zeros(x.shape[0])
        def backward(self, z):
            z0, z1 = z[:, :z.shape[1] // 2], z[:, z.shape[1] // 2:]
            if self.parity:
                z0, z1 = z1, z0
            x1 = z1 - self.net(z0)
            return torch.stack([z0, x1], dim=-1).flatten(1) if not self.parity else torch.stack([x1, z0], dim=-1).flatten(1)
    class NICEScale(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.s = nn.Parameter(torch.randn(1, dim) * 0.1)
        def forward(self, x):
            return x * torch.exp(self.s), torch.sum(self.s, dim=1).expand(x.shape[0])
    layers = nn.ModuleList([AdditiveCoupling(4, 8, i % 2) for i in range(3)] + [NICEScale(4)])
    prior = torch.distributions.Normal(torch.zeros(4), torch.ones(4))
    x = torch.randn(6, 4)
    opt = torch.optim.Adam(layers.parameters(), lr=1e-2)
    for step in range(3):
        z, log_det = x, torch.zeros(6)
        for layer in layers:
            z, ld = layer(z)
            log_det = log_det + ld
        logp = prior.log_prob(z).sum(1) + log_det
        loss = -logp.mean()
        opt.zero_grad(); loss.backward(); opt.step()
        print(step, loss.item(), layers[-1].s.grad)
    print(z[0], log_det[:2], logp.grad_fn)
    # MADE / MAF
    class MaskedLinear(nn.Linear):
        def __init__(self, in_features, out_features, bias=True):
            super().__init__(in_features, out_features, bias)
            self.register_buffer('mask', torch.ones(out_features, in_features))
        def set_mask(self, mask):
            self.mask.data.copy_(torch.from_numpy(mask.astype('uint8').T))
        def forward(self, input):
            return F.linear(input, self.mask * self.weight, self.bias)
    import numpy as np
    nin, nh = 3, 6
    rng = np.random.RandomState(0)
    m = {-1: np.arange(nin)}
    m[0] = rng.randint(m[-1].min(), nin - 1, size=nh)
    masks = [m[-1][:, None] <= m[0][None, :], m[0][:, None] < m[-1][None, :]]
    l1, l2 = MaskedLinear(nin, nh), MaskedLinear(nh, 2 * nin)
    l1.set_mask(masks[0]); l2.set_mask(np.concatenate([masks[1]] * 2, axis=1))
    print(l1.mask, l1.mask.dtype)
    xx = torch.randn(5, nin, requires_grad=True)
    st = l2(F.relu(l1(xx)))
    s, t = st[:, :nin], st[:, nin:]
    z = (xx - t) * torch.exp(-s)
    log_det = -s.sum(1)
    jac = torch.autograd.functional.jacobian(lambda v: l2(F.relu(l1(v)))[:, :nin], xx[:1].detach())
    print(z[0], log_det, jac[0, :, 0, :])
    (z.pow(2).sum() - log_det.sum()).backward()
    print(xx.grad[0], l1.weight.grad)
    # Glow ActNorm + invertible 1x1 conv
    x = torch.randn(2, 3, 4, 4)
    loc = nn.Parameter(-x.mean(dim=(0, 2, 3), keepdim=True))
    scale = nn.Parameter(1 / (x.std(dim=(0, 2, 3), keepdim=True) + 1e-6))
    y = scale * (x + loc)
    logdet = 16 * torch.sum(torch.log(torch.abs(scale)))
    print(y.mean(dim=(0, 2, 3)), logdet)
    w_init = torch.linalg.qr(torch.randn(3, 3))[0]
    weight = nn.Parameter(w_init.clone())
    out = F.conv2d(y, weight.unsqueeze(2).unsqueeze(3))
    logdet2 = 16 * torch.slogdet(weight.double())[1].float()
    print(out[0, :, 0, 0], logdet2, torch.linalg.slogdet(weight))
    P, L, U = torch.linalg.lu(w_init)
    print(P, L, U)
    s = torch.diag(U)
    (logdet + logdet2 + out.pow(2).sum()).backward()
    print(weight.grad, scale.grad.flatten(), torch.log(torch.abs(s)).sum())
    z = torch.triu(U, 1) + torch.diag(s)
    print(torch.allclose(P @ L @ z, w_init, atol=1e-6), torch.linalg.inv(weight)[0])


def ddpm(torch):
    # DDPM training step (lucidrains/denoising-diffusion-pytorch, dome272/Diffusion-Models-pytorch,
    # HF annotated diffusion): linear/cosine schedules, extract, q_sample, sinusoidal embedding,
    # small UNet-ish block with GroupNorm and SiLU, p_sample step
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    def linear_beta_schedule(timesteps):
        scale = 1000 / timesteps
        return torch.linspace(scale * 0.0001, scale * 0.02, timesteps, dtype=torch.float64)
    def cosine_beta_schedule(timesteps, s=0.008):
        steps = timesteps + 1
        t = torch.linspace(0, timesteps, steps, dtype=torch.float64) / timesteps
        alphas_cumprod = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
        alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
        betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
        return torch.clip(betas, 0, 0.999)
    T = 50
    betas = cosine_beta_schedule(T)
    print(betas[:3], linear_beta_schedule(T)[-3:])
    alphas = 1. - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.)
    sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod).float()
    sqrt_one_minus = torch.sqrt(1. - alphas_cumprod).float()
    posterior_variance = (betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod)).float()
    print(alphas_cumprod_prev[:3], posterior_variance[:3], torch.log(posterior_variance.clamp(min=1e-20))[:3])
    def extract(a, t, x_shape):
        b, *_ = t.shape
        out = a.gather(-1, t)
        return out.reshape(b, *((1,) * (len(x_shape) - 1)))
    class SinusoidalPosEmb(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim
        def forward(self, x):
            half_dim = self.dim // 2
            emb = math.log(10000) / (half_dim - 1)
            emb = torch.exp(torch.arange(half_dim, device=x.device) * -emb)
            emb = x[:, None] * emb[None, :]
            return torch.cat((emb.sin(), emb.cos()), dim=-1)
    class Block(nn.Module):
        def __init__(self, dim, dim_out, groups=2):
            super().__init__()
            self.proj = nn.Conv2d(dim, dim_out, 3, padding=1)
            self.norm = nn.GroupNorm(groups, dim_out)
            self.act = nn.SiLU()
        def forward(self, x, scale_shift=None):
            x = self.proj(x)
            x = self.norm(x)
            if scale_shift is not None:
                scale, shift = scale_shift
                x = x * (scale + 1) + shift
            return self.act(x)
    class ResnetBlock(nn.Module):
        def __init__(self, dim, dim_out, time_emb_dim):
            super().__init__()
            self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2))
            self.block1 = Block(dim, dim_out)
            self.block2 = Block(dim_out, dim_out)
            self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()
        def forward(self, x, time_emb):
            time_emb = self.mlp(time_emb)
            time_emb = time_emb[:, :, None, None]
            scale_shift = time_emb.chunk(2, dim=1)
            h = self.block1(x, scale_shift=scale_shift)
            h = self.block2(h)
            return h + self.res_conv(x)
    class TinyUNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.time_mlp = nn.Sequential(SinusoidalPosEmb(8), nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 16))
            self.init_conv = nn.Conv2d(1, 4, 1)
            self.down = ResnetBlock(4, 8, 16)
            self.pool = nn.Conv2d(8, 8, 4, 2, 1)
            self.mid = ResnetBlock(8, 8, 16)
            self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode='nearest'), nn.Conv2d(8, 8, 3, padding=1))
            self.out = ResnetBlock(16, 4, 16)
            self.final = nn.Conv2d(4, 1, 1)
        def forward(self, x, t):
            t = self.time_mlp(t)
            x = self.init_conv(x)
            h = self.down(x, t)
            x = self.mid(self.pool(h), t)
            x = self.up(x)
            x = self.out(torch.cat((x, h), dim=1), t)
            return self.final(x)
    print(SinusoidalPosEmb(8)(torch.tensor([0., 1., 10.])))
    model = TinyUNet().double()
    x_start = torch.randn(2, 1, 8, 8, dtype=torch.float64)
    def q_sample(x_start, t, noise=None):
        if noise is None:
            noise = torch.randn_like(x_start)
        return extract(sqrt_alphas_cumprod.double(), t, x_start.shape) * x_start + \
            extract(sqrt_one_minus.double(), t, x_start.shape) * noise
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(2):
        t = torch.randint(0, T, (2,)).long()
        noise = torch.randn_like(x_start)
        x_noisy = q_sample(x_start, t, noise)
        predicted_noise = model(x_noisy, t.double())
        loss = F.smooth_l1_loss(noise, predicted_noise)
        opt.zero_grad(); loss.backward()
        # (float64 GroupNorm, SiLU and GELU differ from torch's in the last bits: 4 digits)
        print(step, t, f"{loss.item():.10f}", model.down.mlp[1].bias.grad[:3], model.final.weight.grad.flatten())
        opt.step()
    @torch.no_grad()
    def p_sample(model, x, t, t_index):
        betas_t = extract(betas, t, x.shape)
        sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus.double(), t, x.shape)
        sqrt_recip_alphas_t = extract(torch.sqrt(1.0 / alphas), t, x.shape)
        model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t.double()) / sqrt_one_minus_alphas_cumprod_t)
        if t_index == 0:
            return model_mean
        posterior_variance_t = extract(posterior_variance.double(), t, x.shape)
        noise = torch.randn_like(x)
        return model_mean + torch.sqrt(posterior_variance_t) * noise
    img = torch.randn(1, 1, 8, 8, dtype=torch.float64)
    for i in reversed(range(0, 3)):
        img = p_sample(model, img, torch.full((1,), i, dtype=torch.long), i)
    print(img[0, 0, 0], img.requires_grad)
    # dome272's noise_images/sample_timesteps in float32 with randint
    beta = torch.linspace(1e-4, 0.02, T)
    alpha_hat = torch.cumprod(1. - beta, dim=0)
    t = torch.randint(low=1, high=T, size=(3,))
    sqrt_alpha_hat = torch.sqrt(alpha_hat[t])[:, None, None, None]
    eps = torch.randn(3, 1, 2, 2)
    print(alpha_hat[-1], sqrt_alpha_hat.flatten(), (sqrt_alpha_hat * torch.ones(3, 1, 2, 2) + eps)[1, 0])
    x = (torch.rand(2, 2).clamp(-1, 1) + 1) / 2
    print((x * 255).type(torch.uint8))


def contrastive_distill(torch):
    # SimCLR's NT-Xent (sthalles/SimCLR info_nce_loss, Spijkervet/SimCLR NT_Xent) and Hinton's
    # knowledge distillation (pytorch/tutorials beginner knowledge_distillation_tutorial)
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    batch_size, n_views, temperature = 4, 2, 0.07
    features = F.normalize(torch.randn(batch_size * n_views, 8, requires_grad=True), dim=1)
    def info_nce_loss(features):
        labels = torch.cat([torch.arange(batch_size) for i in range(n_views)], dim=0)
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
        similarity_matrix = torch.matmul(features, features.T)
        mask = torch.eye(labels.shape[0], dtype=torch.bool)
        labels = labels[~mask].view(labels.shape[0], -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
        positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
        logits = torch.cat([positives, negatives], dim=1)
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        logits = logits / temperature
        return logits, labels
    logits, labels = info_nce_loss(features)
    loss = nn.CrossEntropyLoss()(logits, labels)
    loss.backward()
    print(logits[0], labels, loss, logits.grad_fn)
    def accuracy(output, target, topk=(1,)):
        with torch.no_grad():
            maxk = max(topk)
            batch_size = target.size(0)
            _, pred = output.topk(maxk, 1, True, True)
            pred = pred.t()
            correct = pred.eq(target.view(1, -1).expand_as(pred))
            res = []
            for k in topk:
                correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
                res.append(correct_k.mul_(100.0 / batch_size))
            return res
    print(accuracy(logits, labels, topk=(1, 5)))
    class NT_Xent(nn.Module):
        def __init__(self, batch_size, temperature, world_size=1):
            super().__init__()
            self.batch_size = batch_size; self.temperature = temperature; self.world_size = world_size
            self.mask = self.mask_correlated_samples(batch_size, world_size)
            self.criterion = nn.CrossEntropyLoss(reduction="sum")
            self.similarity_f = nn.CosineSimilarity(dim=2)
        def mask_correlated_samples(self, batch_size, world_size):
            N = 2 * batch_size * world_size
            mask = torch.ones((N, N), dtype=bool)
            mask = mask.fill_diagonal_(0)
            for i in range(batch_size * world_size):
                mask[i, batch_size * world_size + i] = 0
                mask[batch_size * world_size + i, i] = 0
            return mask
        def forward(self, z_i, z_j):
            N = 2 * self.batch_size * self.world_size
            z = torch.cat((z_i, z_j), dim=0)
            sim = self.similarity_f(z.unsqueeze(1), z.unsqueeze(0)) / self.temperature
            sim_i_j = torch.diag(sim, self.batch_size * self.world_size)
            sim_j_i = torch.diag(sim, -self.batch_size * self.world_size)
            positive_samples = torch.cat((sim_i_j, sim_j_i), dim=0).reshape(N, 1)
            negative_samples = sim[self.mask].reshape(N, -1)
            labels = torch.zeros(N).to(positive_samples.device).long()
            logits = torch.cat((positive_samples, negative_samples), dim=1)
            loss = self.criterion(logits, labels)
            loss /= N
            return loss
    crit = NT_Xent(batch_size, 0.5)
    print(crit.mask)
    z_i = torch.randn(batch_size, 6, requires_grad=True); z_j = torch.randn(batch_size, 6, requires_grad=True)
    l = crit(z_i, z_j)
    l.backward()
    print(l, z_i.grad[0], z_j.grad[3])
    # knowledge distillation
    teacher = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5))
    student = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 5))
    x = torch.randn(6, 10); y = torch.randint(0, 5, (6,))
    T = 2; soft_target_loss_weight = 0.25; ce_loss_weight = 0.75
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)
    teacher.eval(); student.train()
    for step in range(3):
        with torch.no_grad():
            teacher_logits = teacher(x)
        student_logits = student(x)
        soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
        soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
        soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T**2)
        label_loss = nn.CrossEntropyLoss()(student_logits, y)
        loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
        kl = F.kl_div(soft_prob, soft_targets, reduction='batchmean') * T * T
        kl_log = F.kl_div(soft_prob, soft_targets.log(), reduction='batchmean', log_target=True)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(step, loss.item(), soft_targets_loss.item(), kl.item(), kl_log.item(), student[0].bias.grad[:3])
    print(attempt(lambda: F.kl_div(soft_prob, soft_targets)))
    print(nn.KLDivLoss(reduction="batchmean")(soft_prob, soft_targets), nn.KLDivLoss(reduction='none')(soft_prob, soft_targets)[0])
    # cosine loss minimisation variant
    cos = nn.CosineEmbeddingLoss()(teacher_logits, student_logits, torch.ones(6))
    mse = nn.MSELoss()(student_logits, teacher_logits)
    print(cos, mse, F.cosine_similarity(teacher_logits, student_logits))


def amp_accumulation(torch):
    # mixed precision on CPU (torch.autocast("cpu", dtype=torch.bfloat16)), gradient
    # accumulation and clipping recipes (pytorch/tutorials recipes/recipes/amp_recipe,
    # HF-style accumulation loops)
    nn = torch.nn; F = nn.functional
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = [(torch.randn(4, 8), torch.randint(0, 4, (4,))) for _ in range(4)]
    for x, y in data[:2]:
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            out = model(x)
            print(out.dtype, out[0])
            loss = F.cross_entropy(out, y)
            print(loss.dtype, loss)
        opt.zero_grad()
        loss.backward()
        print(model[0].weight.grad.dtype, model[0].weight.grad[0, :4])
        opt.step()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        a = torch.randn(3, 3); b = torch.randn(3, 3)
        print((a @ b).dtype, torch.mm(a, b).dtype, (a + b).dtype, torch.softmax(a, 0).dtype, F.layer_norm(a, (3,)).dtype)
        with torch.autocast("cpu", enabled=False):
            print((a @ b).dtype)
    print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    print(scaler.is_enabled(), scaler.scale(torch.tensor(2.0)))
    accumulation_steps = 2
    opt.zero_grad()
    for i, (x, y) in enumerate(data):
        loss = F.cross_entropy(model(x), y) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            print(i, total, model[2].bias.grad)
            opt.step()
            opt.zero_grad()
    print(model[2].weight[0])
    g = [p.grad for p in model.parameters()]
    print(g)
    for x, y in data[:1]:
        F.cross_entropy(model(x), y).backward()
    print(torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01), model[0].bias.grad[:4])
    print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type='inf'))
    print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=1.0, foreach=False))
    print(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    print(attempt(lambda: torch.nn.utils.clip_grad_norm_([torch.tensor([float('nan')], requires_grad=True)], 1.0, error_if_nonfinite=True)))
    p = torch.tensor([1.0, 2.0], requires_grad=True); p.grad = torch.tensor([float('inf'), 1.0])
    print(torch.nn.utils.clip_grad_norm_([p], 1.0), p.grad)
    vec = torch.nn.utils.parameters_to_vector(model.parameters())
    print(vec.shape, vec[:3])
    torch.nn.utils.vector_to_parameters(vec * 2, model.parameters())
    print(model[0].bias[:3])
    # bf16 model weights (model.to(torch.bfloat16))
    mb = nn.Linear(4, 2).to(torch.bfloat16)
    xb = torch.randn(3, 4, dtype=torch.bfloat16)
    yb = mb(xb)
    yb.float().sum().backward()
    print(yb, mb.weight.grad)
    print(torch.randn(2, 2).to(torch.bfloat16), torch.tensor([1.1, 2.7], dtype=torch.bfloat16) * 3)


def reproducibility(torch):
    # pytorch docs notes/randomness.rst: seeds, RNG state, deterministic algorithms, DataLoader
    # generator and worker seeding
    torch.manual_seed(0)
    print(torch.initial_seed(), torch.rand(2))
    state = torch.get_rng_state()
    print(state.dtype, state.shape, state[:8])
    a = torch.randn(3)
    torch.set_rng_state(state)
    b = torch.randn(3)
    print(torch.equal(a, b), a)
    g = torch.Generator().manual_seed(42)
    print(g.initial_seed(), torch.randn(2, generator=g), torch.randint(0, 10, (3,), generator=g))
    gs = g.get_state()
    x1 = torch.rand(2, generator=g); g.set_state(gs); x2 = torch.rand(2, generator=g)
    print(torch.equal(x1, x2))
    with torch.random.fork_rng():
        torch.manual_seed(123)
        inner = torch.rand(1)
    outer = torch.rand(1)
    print(inner, outer)
    torch.use_deterministic_algorithms(True)
    print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(False)
    print(torch.are_deterministic_algorithms_enabled())
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    print(torch.backends.cudnn.deterministic)
    torch.backends.cudnn.deterministic = False
    def seed_worker(worker_id):
        worker_seed = torch.initial_seed() % 2**32
        return worker_seed
    g = torch.Generator()
    g.manual_seed(0)
    dl = torch.utils.data.DataLoader(torch.arange(10), batch_size=3, shuffle=True,
                                     worker_init_fn=seed_worker, generator=g)
    print([b.tolist() for b in dl])
    g.manual_seed(0)
    print([b.tolist() for b in dl])
    print(torch.default_generator.initial_seed() == torch.initial_seed())
    torch.manual_seed(7)
    print(torch.randperm(6), torch.multinomial(torch.tensor([0.1, 0.5, 0.4]), 4, replacement=True),
          torch.bernoulli(torch.full((4,), 0.5)), torch.normal(torch.zeros(3), torch.ones(3)),
          torch.empty(3).uniform_(-1, 1), torch.empty(2).exponential_(), torch.poisson(torch.ones(3) * 3))
    print(torch.nn.init.trunc_normal_(torch.empty(4), std=0.02), torch.nn.init.xavier_uniform_(torch.empty(2, 3)))
    print(torch.nn.functional.dropout(torch.ones(8), 0.5), torch.rand(2, dtype=torch.float64), torch.randn(2, dtype=torch.float16))
    print(torch.rand(3, 3).bernoulli_(0.3), torch.randint_like(torch.zeros(3), 5), torch.rand_like(torch.zeros(2)))
    print(attempt(lambda: torch.manual_seed(-1)), attempt(lambda: torch.Generator().manual_seed(2**64)))
    print(attempt(lambda: torch.set_rng_state(torch.zeros(3))))


def printing(torch):
    torch.manual_seed(0)
    x = torch.randn(2000)
    print(x)
    print(torch.randn(30, 30))
    print(torch.arange(2000).reshape(20, 100))
    torch.set_printoptions(precision=2)
    print(torch.randn(3, 3) * 1000, torch.tensor([1e-8, 1.0]))
    torch.set_printoptions(sci_mode=False)
    print(torch.tensor([1e-8, 1.0, 12345.678]))
    torch.set_printoptions(profile='full')
    print(torch.arange(1200.).reshape(2, 600)[:, :5])
    torch.set_printoptions(profile='default')
    torch.set_printoptions(linewidth=40, edgeitems=2, threshold=10)
    print(torch.randn(4, 8), torch.arange(20))
    torch.set_printoptions(profile='default')
    torch.set_printoptions(sci_mode=None)
    print(torch.tensor([float('nan'), float('inf'), -float('inf'), 0.0, -0.0]))
    print(torch.tensor([1e20, 1.0]), torch.tensor([1e-5, 1e5]), torch.tensor([123456789.0]))
    print(torch.tensor([1, 2], dtype=torch.int8), torch.tensor([True, False]), torch.tensor([], dtype=torch.int64))
    print(torch.tensor([[1 + 2j, -0.5j]]), torch.tensor([0.1], dtype=torch.float16), torch.tensor([2.5], dtype=torch.bfloat16))
    print(torch.zeros(2, 0, 3), torch.ones(1, 1, 1, 1), torch.tensor(3.5, requires_grad=True) * 2)
    print(torch.randn(2, 2, dtype=torch.float64) * 1e-10, torch.randn(3).to(torch.float16) * 1000)
    print(repr(torch.nn.Parameter(torch.ones(2))), torch.nn.Parameter(torch.ones(2), requires_grad=False))
    print(torch.tensor([1.5, 2.5]).numpy(), torch.tensor([1.5]).tolist(), str(torch.tensor(2)), f"{torch.tensor(2.5):.3f}")
    print(attempt(lambda: f"{torch.tensor([2.5, 1.0]):.3f}"))
    print(torch.float32, torch.Size([2, 3]), torch.device('cpu'), torch.tensor([1.]).device, torch.finfo(torch.float32), torch.iinfo(torch.int8))
    print(torch.randn(2, 3).T.stride(), torch.randn(2, 3).shape, torch.randn(2, 3).size(1), torch.tensor([1.0]).type(), torch.tensor([1]).type())
    with torch.no_grad():
        print(torch.ones(2, requires_grad=True) * 2)
    print(torch.ones(3, requires_grad=True).sum(), torch.ones(3, requires_grad=True).mean(0, keepdim=True))
    print(torch.tensor([0.1, 0.25]).half().float(), torch.tensor([1e-3, 1e3, 1e6]), torch.tensor([100000.0, 1.0]))
    print(torch.tensor([1.0, 2.0]).__format__(''), '{}'.format(torch.tensor(1.0)), torch.tensor(1e-7), torch.tensor(0.1, dtype=torch.float64))


SNIPPETS = [extending, mechanics, pruning, per_sample_grads, jacobians_hessians,
            llm_ch2_dataloader, llm_ch6_classifier, llm_ch7_collate, lora, labml,
            einsum_attention, backprop_ninja, gnn_scatter, flows, ddpm, contrastive_distill,
            amp_accumulation, reproducibility, printing]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet):
    assert first_difference(snippet, lg, torch) is None


# -- defects found, each swept over its class of inputs -----------------------------------------


def _arrays(value):
    """Arrays (copies) of a tensor or a nested list/tuple of tensors; other values as they are."""
    if isinstance(value, (tuple, list)):
        return [_arrays(v) for v in value]
    if hasattr(value, "detach"):
        if str(value.dtype).endswith("bfloat16"):
            return (value.detach().float().numpy().copy(), "bfloat16", tuple(value.stride()))
        return (value.detach().numpy().copy(), str(value.dtype).split(".")[-1],
                tuple(value.stride()))
    return value


def _same(got, want) -> bool:
    """Same nested structure; arrays with the same dtype, shape, strides and bits; or the same
    error (type and first line)."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            _same(a, b) for a, b in zip(got, want))
    if isinstance(want, tuple) and len(want) == 3 and isinstance(want[0], np.ndarray):
        return (isinstance(got, tuple) and len(got) == 3 and got[1:] == want[1:]
                and got[0].shape == want[0].shape
                and np.array_equal(got[0], want[0], equal_nan=True))
    return got == want


def _outcome(function):
    try:
        return _arrays(function())
    except Exception as error:  # noqa: BLE001 - the type and first line are what is compared
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


def _value_or_error(function):
    """What function returns, or the error it raises (type and first line)."""
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - the type and first line are what is compared
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


def _differences(cases):
    """The cases (a label and a function of the module) whose outcomes differ."""
    return [(label, _outcome(lambda: f(lg)), _outcome(lambda: f(torch)))
            for label, f in cases if not _same(_outcome(lambda: f(lg)), _outcome(lambda: f(torch)))]


def test_linear_refuses_zero_dim_operands_as_torch():
    # the Jacobians tutorial's predict(weight, bias, x) on a 0-d x: at::linear's own message
    # ("linear", not matmul's), before any path's dtype checks, for every call form
    def case(shape_in, shape_w, with_bias, grads, form, dtypes):
        def run(m):
            x = m.ones(shape_in, dtype=getattr(m, dtypes[0])).requires_grad_(grads[0])
            w = m.ones(shape_w, dtype=getattr(m, dtypes[1])).requires_grad_(grads[1])
            b = m.ones(2).requires_grad_(grads[2]) if with_bias else None
            if form == "module":
                m.manual_seed(0)
                layer = m.nn.Linear(3, 2, bias=with_bias)
                layer.weight = m.nn.Parameter(w, requires_grad=grads[1])
                return layer(x)
            return m.nn.functional.linear(x, w, b) if form == "F" else m.nn.functional.linear(
                input=x, weight=w, bias=b)
        return run
    shapes = [((), (2, 3)), ((3,), ()), ((), ()), ((2, 3), ()), ((0, 3), ()), ((4, 2, 3), ()),
              ((3,), (2, 3)), ((0, 3), (2, 3))]
    cases = [(f"{s} {bias} {grads} {form} {dtypes}", case(*s, bias, grads, form, dtypes))
             for s in shapes for bias in (False, True)
             for grads in itertools.product((False, True), repeat=3)
             for form in ("F", "keywords", "module")
             for dtypes in (("float32", "float32"), ("float64", "float32"))]
    assert _differences(cases) == []


def test_new_factories_take_layout_and_pin_memory_as_torch():
    # torch.autograd.gradcheck allocates its Jacobians with new_zeros(..., layout=...); every
    # new_* method takes torch's layout and pin_memory keywords
    def case(method, dtype, keywords, size_form):
        def run(m):
            x = m.ones(2, 3, dtype=getattr(m, dtype))[:, ::2]  # (non-contiguous: no say)
            extra = dict(keywords)
            if "layout" in extra:
                extra["layout"] = m.strided
            if method == "new_full":
                return getattr(x, method)((2, 0) if size_form == "empty" else (2, 2), 1.5, **extra)
            if size_form == "varargs":
                return getattr(x, method)(2, 2, **extra)
            if size_form == "keyword":
                return getattr(x, method)(size=(2, 2), **extra)
            return getattr(x, method)((2, 0) if size_form == "empty" else (2, 2), **extra)
        return run
    keyword_sets = [{}, {"layout": None}, {"pin_memory": False}, {"layout": None, "pin_memory": False},
                    {"layout": None, "requires_grad": True, "dtype": None}]
    cases = [(f"{method} {dtype} {keywords} {size_form}", case(method, dtype, keywords, size_form))
             for method in ("new_zeros", "new_ones", "new_empty", "new_full")
             for dtype in ("float32", "float64", "int64", "bool")
             for keywords in keyword_sets
             for size_form in ("tuple", "varargs", "keyword", "empty")
             if not (method == "new_full" and size_form in ("varargs", "keyword"))
             and not ("requires_grad" in keywords and dtype in ("int64", "bool"))]
    # new_empty's values are not compared (torch's memory is uninitialised)
    cases = [(label, (lambda f, empty: lambda m: (lambda t: [
        list(t.shape), str(t.dtype).split(".")[-1], t.requires_grad, t.stride()] if empty
        else t)(f(m)))(f, "new_empty" in label)) for label, f in cases]
    assert _differences(cases) == []


def test_scatter_reduce_takes_max_and_min_as_torch():
    # a GNN's aggregation written scatter_reduce(..., reduce="max"): torch reads "max"/"min" as
    # amax/amin (same values and kernels' errors), keeps them in _saved_reduce, refuses them in
    # the backward and leaves their forward-mode tangent undefined
    def case(reduce, dtype, include_self, form, layout, grads, index_kind):
        def run(m):
            x = m.tensor([[3, 0, 1, 2], [1, 4, 4, 0]]).to(getattr(m, dtype))
            src = m.tensor([[1, 5, 2, 1], [2, 2, 9, 0]]).to(getattr(m, dtype))
            if layout == "transposed":
                x = x.t().contiguous().t()
                src = src.t().contiguous().t()
            index = m.tensor([[0, 1, 0, 2], [3, 3, 1, 0]])
            if index_kind == "empty":  # (torch's backward needs src shaped as index)
                index, src = index[:, :0], src[:, :0]
            if grads != (False, False):
                x = x.requires_grad_(grads[0])
                src = src.requires_grad_(grads[1])
            if form == "method":
                out = x.scatter_reduce(1, index, src, reduce, include_self=include_self)
            elif form == "function":
                out = m.scatter_reduce(x, 1, index, src, reduce=reduce, include_self=include_self)
            else:
                out = x.detach().clone().scatter_reduce_(1, index, src.detach(), reduce,
                                                         include_self=include_self)
            results = [out]
            if out.requires_grad:
                results.append(out.grad_fn.name())
                results.append(out.grad_fn._saved_reduce)
                results.append(_value_or_error(
                    lambda: m.autograd.grad(out.sum(), [x, src][grads.index(True)])))
            return results
        return run
    cases = [(f"{r} {d} {i} {f} {l} {g} {k}", case(r, d, i, f, l, g, k))
             for r in ("max", "min", "amax", "foo", "add")
             for d in ("float32", "float64", "int64", "bool", "complex64")
             for i in (True, False)
             for f in ("method", "function", "inplace")
             for l in ("contiguous", "transposed")
             for g in ((False, False), (True, False), (False, True), (True, True))
             for k in ("full", "empty")
             if not (g != (False, False) and (d not in ("float32", "float64") or f == "inplace"))]
    assert _differences(cases) == []
    # forward mode: the tangent is undefined for max/min (None through forward_ad; zeros
    # through torch.func.jvp), amax's is defined
    for reduce in ("max", "min", "amax"):
        def tangents(m, reduce=reduce):
            s = m.tensor([1.0, 5.0, 2.0, 1.0])
            index = m.tensor([0, 1, 0, 2])
            with m.autograd.forward_ad.dual_level():
                x = m.autograd.forward_ad.make_dual(m.tensor([3.0, 0, 1, 2]), m.ones(4))
                dual = m.autograd.forward_ad.unpack_dual(x.scatter_reduce(0, index, s, reduce))
            return [dual.tangent, m.func.jvp(lambda t: t.scatter_reduce(0, index, s, reduce),
                                              (m.tensor([3.0, 0, 1, 2]),), (m.ones(4),))]
        assert _same(_outcome(lambda: tangents(lg)), _outcome(lambda: tangents(torch))), reduce


def test_qr_bits_as_torch():
    # Glow's invertible 1x1 convolution starts from torch.linalg.qr(torch.randn(3, 3))[0], and
    # nn.init.orthogonal_ (the RL tutorials' layer_init) takes its Q: float32 Q and float64 R
    # differed in their last bits from NumPy's qr; the MKL calls torch makes give its bits
    def case(shape, dtype, mode, layout, needs_grad):
        def run(m):
            m.manual_seed(sum(shape) + len(dtype))
            x = m.randn(*shape, dtype=getattr(m, dtype))
            if layout == "column-major":
                x = x.mT.contiguous().mT
            elif layout == "sliced" and shape[-1]:
                x = m.randn(*shape[:-1], 2 * shape[-1], dtype=getattr(m, dtype))[..., ::2]
            x.requires_grad_(needs_grad)
            q, r = m.linalg.qr(x, mode=mode)
            results = [q, r]
            if needs_grad:
                results.append(_value_or_error(
                    lambda: m.autograd.grad(q.sum() + (r * r).sum(), x)[0]))
            return results
        return run
    shapes = [(3, 3), (4, 2), (2, 4), (1, 5), (5, 1), (0, 3), (3, 0), (2, 3, 3), (2, 5, 3),
              (2, 0, 2), (33, 20), (3, 1, 4, 2)]
    cases = [(f"{s} {d} {mode} {layout} {g}", case(s, d, mode, layout, g))
             for s in shapes for d in ("float32", "float64") for mode in ("reduced", "complete", "r")
             for layout in ("contiguous", "column-major", "sliced") for g in (False, True)
             if not (g and mode == "r" and layout != "contiguous")]
    assert _differences(cases) == []

    def initialised(m):
        results = []
        for shape, gain in (((4, 6), np.sqrt(2)), ((6, 4), 1), ((3, 2, 2), 0.01), ((5, 5), 2.0)):
            m.manual_seed(0)
            results.append(m.nn.init.orthogonal_(m.empty(*shape), gain=gain))
        return results
    assert _same(_outcome(lambda: initialised(lg)), _outcome(lambda: initialised(torch)))


def test_numpy_scalar_operands_as_torch():
    # CleanRL-style layer_init(std=np.sqrt(2)) scales by a NumPy float64 in place: torch's
    # argument parser reads NumPy scalars as Python numbers (integers as int, np.bool_ and
    # floats as float), weak in type promotion; leafgrad computed with NumPy's strong float64
    # (float32 mul_ and div_ rounded twice) and took np.bool_ as a bool
    values = [0.1, 0.7, 1.3, 2.9, 1 / 3, -5.5, 1e-3, 123.456]
    scalars = [np.float64(np.sqrt(2)), np.float32(1.1), np.float16(0.3), np.int64(3), np.int32(-2),
               np.bool_(True), np.float64(1 / 3), np.uint8(7)]
    forms = ["add_", "sub_", "mul_", "div_", "__iadd__", "__isub__", "__imul__", "__itruediv__",
             "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
             "__rtruediv__", "__pow__", "__rpow__", "add", "sub", "mul", "div", "torch.add",
             "torch.mul", "torch.rsub", "pow_", "pow", "clamp", "clamp_", "alpha", "__and__",
             "__floordiv__", "__mod__", "eq", "lt_"]

    def case(dtype, scalar, form, needs_grad, layout):
        def run(m):
            x = m.tensor(values).to(getattr(m, dtype))
            if layout == "strided":
                x = m.stack([x, x], 1)[:, 0]
            if needs_grad:
                x = x.requires_grad_().clone()
            if form.startswith("torch."):
                return getattr(m, form[6:])(x, scalar)
            if form == "alpha":
                return x.add_(x.detach(), alpha=scalar)
            if form.startswith("clamp"):
                return getattr(x, form)(scalar)
            return getattr(x, form)(scalar)
        return run
    cases = [(f"{d} {s!r} {f} {g} {layout}", case(d, s, f, g, layout))
             for d in ("float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool")
             for s in scalars for f in forms for g in (False, True)
             for layout in ("contiguous", "strided")
             if not (g and d not in ("float32", "float64"))
             and not (layout == "strided" and (g or d not in ("float32", "int64")))]
    assert _differences(cases) == []


def test_alpha_kind_checked_when_it_equals_one_as_torch():
    # add/sub's alpha=1.0 (or True, 1+0j, a NumPy 1) equals 1 but is still checked against the
    # result's kind: an integral tensor refuses a floating alpha, a real one a complex alpha
    alphas = [1, 1.0, True, False, 1 + 0j, 2.0, 2, np.float64(1.0), np.int64(1), np.bool_(True)]

    def case(dtype, alpha, form, needs_grad, other_kind):
        def run(m):
            x = m.tensor([[1, 0], [1, 1]]).to(getattr(m, dtype))
            y = m.tensor([[1, 1], [0, 1]]).to(getattr(m, dtype)) if other_kind == "tensor" else 3
            if needs_grad:
                x = x.requires_grad_().clone()
            if form.startswith("torch."):
                return getattr(m, form[6:])(x, y, alpha=alpha)
            return getattr(x, form)(y, alpha=alpha)
        return run
    cases = [(f"{d} {a!r} {f} {g} {o}", case(d, a, f, g, o))
             for d in ("float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool",
                       "complex64")
             for a in alphas for f in ("add", "sub", "add_", "sub_", "torch.add", "torch.sub",
                                       "torch.rsub")
             for g in (False, True) for o in ("tensor", "number")
             if not (g and d not in ("float32", "float64", "complex64"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (complex alphas cast to real: both warn)
        assert _differences(cases) == []


def test_half_remainder_and_bfloat16_rounded_division_by_a_number_as_torch():
    # torch's fmod and remainder have no scalar kernel: a number becomes a float16 operand
    # (x % 1.1 divides by float16(1.1)); div's floor/trunc kernels read a number divisor of a
    # bfloat16 (or float16) tensor at its own value in float32
    values = [0.1, 0.7, 1.3, 2.9, 1 / 3, -5.5, 1e-3, 123.456, -0.0, 7.0, float("inf")]
    operands = [1.4142135623730951, 1.1, 1 / 3, -0.7, 3, np.float64(0.3), "0-d", "0-d float64"]
    forms = {"%": lambda m, x, o: x % o, "//": lambda m, x, o: x // o,
             "fmod": lambda m, x, o: x.fmod(o), "fmod_": lambda m, x, o: x.clone().fmod_(o),
             "remainder_": lambda m, x, o: x.clone().remainder_(o),
             "floor_divide_": lambda m, x, o: x.clone().floor_divide_(o),
             "trunc": lambda m, x, o: x.div(o, rounding_mode="trunc"),
             "floor": lambda m, x, o: m.div(x, o, rounding_mode="floor"),
             "torch.remainder": lambda m, x, o: m.remainder(x, o),
             "torch.fmod": lambda m, x, o: m.fmod(x, o)}

    def case(dtype, operand, form, layout):
        def run(m):
            x = m.tensor(values).to(getattr(m, dtype))
            if layout == "strided":
                x = m.stack([x, x], 1)[:, 1]
            o = operand
            if operand == "0-d":
                o = m.tensor(0.3)
            elif operand == "0-d float64":
                o = m.tensor(0.3, dtype=m.float64)
            return forms[form](m, x, o)
        return run
    cases = [(f"{d} {o!r} {f} {layout}", case(d, o, f, layout))
             for d in ("float16", "bfloat16", "float32") for o in operands for f in forms
             for layout in ("contiguous", "strided")]
    assert _differences(cases) == []


def test_svd_eigh_and_pinv_bits_as_torch():
    # PCA by SVD and spectral methods by eigh in float32 (torch.pca_lowrank, matrix_norm(ord=2),
    # pinv): NumPy's svd/eigh work in float64 for float32 and through another LAPACK, so
    # float32 values and vectors (and float64 singular vectors) differed in the last bits;
    # the MKL calls torch makes (?gesdd, ?syevd) give its bits
    def svd_case(shape, dtype, form, layout, needs_grad):
        def run(m):
            m.manual_seed(sum(shape) + len(dtype))
            x = m.randn(*shape, dtype=getattr(m, dtype))
            if layout == "column-major":
                x = x.mT.contiguous().mT
            x.requires_grad_(needs_grad)
            if form == "full":
                results = list(m.linalg.svd(x))
            elif form == "reduced":
                results = list(m.linalg.svd(x, full_matrices=False))
            elif form == "svdvals":
                results = [m.linalg.svdvals(x)]
            elif form == "torch.svd":
                results = list(m.svd(x))
            elif form == "pinv":
                results = [m.linalg.pinv(x)]
            else:
                results = [m.linalg.matrix_norm(x, ord=2), m.linalg.matrix_norm(x, ord="nuc")]
            if needs_grad and x.numel():
                results.append(_value_or_error(lambda: m.autograd.grad(
                    sum((r * r).sum() for r in results[:2] if r.numel()), x)[0]))
            return results
        return run

    def eigh_case(n, dtype, form, uplo, needs_grad):
        def run(m):
            m.manual_seed(n + len(dtype))
            a = m.randn(2, n, n, dtype=getattr(m, dtype))
            x = (a + a.mT).requires_grad_(needs_grad)
            if form == "eigh":
                results = list(m.linalg.eigh(x, UPLO=uplo))
            else:
                results = [m.linalg.eigvalsh(x, UPLO=uplo)]
            if needs_grad:
                results.append(_value_or_error(lambda: m.autograd.grad(
                    results[0].pow(2).sum() + (results[1][..., 0].abs().sum() if form == "eigh"
                                               else 0), x)[0]))
            return results
        return run
    shapes = [(3, 3), (5, 3), (3, 5), (1, 4), (2, 4, 3), (0, 3), (2, 0, 2), (20, 12),
              (2, 1, 3, 4)]
    cases = [(f"svd {s} {d} {f} {layout} {g}", svd_case(s, d, f, layout, g))
             for s in shapes for d in ("float32", "float64")
             for f in ("full", "reduced", "svdvals", "torch.svd", "pinv", "norms")
             for layout in ("contiguous", "column-major") for g in (False, True)
             if not (g and (f == "full" or layout != "contiguous"))]
    cases += [(f"eigh {n} {d} {f} {uplo} {g}", eigh_case(n, d, f, uplo, g))
              for n in (1, 3, 6, 0) for d in ("float32", "float64") for f in ("eigh", "eigvalsh")
              for uplo in ("L", "U") for g in (False, True) if not (g and n == 0)]
    assert _differences(cases) == []

    def lowrank(m):
        m.manual_seed(0)
        x = m.randn(12, 5)
        m.manual_seed(1)
        u, s, v = m.pca_lowrank(x, q=3)
        return [u, s, v]
    assert _same(_outcome(lambda: lowrank(lg)), _outcome(lambda: lowrank(torch)))


def test_cdist_kernel_bits_as_torch():
    # prototypical networks / k-NN tutorials' torch.cdist(queries, prototypes) on up to 25 rows
    # each side (or compute_mode='donot_use_mm_for_euclid_dist'): torch's own kernel sums each
    # pair's columns in order (the leftover columns of p = 2 as fused multiply-adds, powf for
    # other p); NumPy's pairwise sums gave other last bits on a third or more of the distances
    def case(dtype, columns, rows, p, mode, layout):
        def run(m):
            m.manual_seed(columns + rows[0])
            a = m.randn(*rows[:-1], columns, dtype=getattr(m, dtype))
            b = m.randn(rows[-1], columns, dtype=getattr(m, dtype))
            if layout == "transposed":
                a = a.mT.contiguous().mT
            return m.cdist(a, b, p=p, compute_mode=mode)
        return run
    cases = [(f"{d} {c} {r} {p} {mode} {layout}", case(d, c, r, p, mode, layout))
             for d in ("float32", "float64") for c in (0, 1, 2, 3, 5, 9, 18)
             for r in ((5, 7), (1, 3), (2, 4, 6), (0, 2))
             for p in (2.0, 1.0, 3.0, 0.5, 1.5, float("inf"), 0.0)
             for mode in ("use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist")
             for layout in ("contiguous", "transposed")
             if not (mode != "use_mm_for_euclid_dist_if_necessary" and p != 2.0)
             and not (layout == "transposed" and len(r) == 3)]
    assert _differences(cases) == []
