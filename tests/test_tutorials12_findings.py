"""Code from other people's tutorials and courses not covered before (pytorch/tutorials' FX
pages: the FX conv/bn fuser, the FX profiling Interpreter, and torch.fx's docs examples of graph
manipulation, Transformer, subgraph rewriting, shape propagation, retracing decompositions, the
inverse-function graph, GraphModule's API and the limits of symbolic tracing; "Understanding
requires_grad, retain_grad, leaf and non-leaf tensors", "How to save memory by fusing the
optimizer step into the backward pass", "Reasoning about shapes" with the meta device,
"Visualizing gradients" and the chatbot tutorial's packed bidirectional GRU encoder with Luong
attention; the "Numerical accuracy" note; rasbt's LLMs-from-scratch appendix A; karpathy's llm.c
train_gpt2.py; fastbook's 04_mnist_basics and 17_foundations; Stanford CS224N's PyTorch tutorial;
IBM/Coursera's "Deep Neural Networks with PyTorch"; Kaggle's "Pytorch Tutorial for Deep Learning
Lovers" and autograd basics; d2l-en's GPUs section; a plain training-loop blog post with gradient
accumulation, OneCycleLR and early stopping; torch.utils.checkpoint walkthroughs), shrunk to small
synthetic data made with torch's own RNG and run with torch and with leafgrad in one process:
every printed line, warning and error must be the same (tests/_tutorial_harness.py); then one test
per defect found, sweeping its class of inputs."""

import contextlib
import copy
import inspect
import io
import itertools
import math
import operator
import pickle
import time
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch
from tests._tutorial_harness import attempt, first_difference
from tests._tutorial_harness import default_validation  # noqa: F401 - a fixture

torch = require_torch()


# -- the snippets: each a function of the module it runs with ----------------------------------
# (the sources' code with smaller sizes; downloads replaced by torch.manual_seed data; the
# sources' `import torch.fx as fx` / `from torch.fx import ...` read from the module run with)


def fx_conv_bn_fuser(torch):
    # pytorch/tutorials intermediate_source/fx_conv_bn_fuser.py
    fx = torch.fx
    fuse_conv_bn_eval = torch.nn.utils.fusion.fuse_conv_bn_eval
    nn = torch.nn
    torch.manual_seed(0)

    class WrappedBatchNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.mod = nn.BatchNorm2d(1)
        def forward(self, x):
            return self.mod(x)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 1, 1)
            self.bn1 = nn.BatchNorm2d(1)
            self.conv2 = nn.Conv2d(1, 1, 1)
            self.nested = nn.Sequential(nn.BatchNorm2d(1), nn.Conv2d(1, 1, 1))
            self.wrapped = WrappedBatchNorm()
        def forward(self, x):
            x = self.conv1(x)
            x = self.bn1(x)
            x = self.conv2(x)
            x = self.nested(x)
            x = self.wrapped(x)
            return x

    model = M()
    model.eval()
    traced_model = torch.fx.symbolic_trace(model)
    print(traced_model.graph)
    print(traced_model.code)

    def _parent_name(target):
        *parent, name = target.rsplit('.', 1)
        return parent[0] if parent else '', name

    def replace_node_module(node, modules, new_module):
        assert isinstance(node.target, str)
        parent_name, name = _parent_name(node.target)
        setattr(modules[parent_name], name, new_module)

    def fuse(model):
        model = copy.deepcopy(model)
        fx_model = fx.symbolic_trace(model)
        modules = dict(fx_model.named_modules())
        for node in fx_model.graph.nodes:
            if node.op != 'call_module':
                continue
            if type(modules[node.target]) is nn.BatchNorm2d and type(modules[node.args[0].target]) is nn.Conv2d:
                if len(node.args[0].users) > 1:
                    continue
                conv = modules[node.args[0].target]
                bn = modules[node.target]
                fused_conv = fuse_conv_bn_eval(conv, bn)
                replace_node_module(node.args[0], modules, fused_conv)
                node.replace_all_uses_with(node.args[0])
                fx_model.graph.erase_node(node)
        fx_model.graph.lint()
        fx_model.recompile()
        return fx_model

    fused_model = fuse(model)
    print(fused_model.code)
    inp = torch.randn(5, 1, 1, 1)
    print(torch.testing.assert_close(fused_model(inp), model(inp)))
    print((fused_model(inp) - model(inp)).abs().max())
    print(type(fused_model), type(fused_model).__name__, fused_model)
    print([n for n, _ in fused_model.named_modules()])
    print(fused_model.conv1.weight, fused_model.conv1.bias)
    bn = nn.BatchNorm2d(1); bn.train()
    conv = nn.Conv2d(1, 1, 1); conv.train()
    attempt(lambda: print(fuse_conv_bn_eval(conv, bn)))


def fx_profiling_interpreter(torch):
    # pytorch/tutorials intermediate_source/fx_profiling_tutorial.py (times not printed)
    Interpreter = torch.fx.Interpreter
    import statistics
    nn = torch.nn
    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(c)
        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)) + x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 3, padding=1)
            self.layer1 = nn.Sequential(Block(4), Block(4))
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(4, 5)
        def forward(self, x):
            x = self.layer1(self.stem(x))
            x = self.pool(x)
            x = torch.flatten(x, 1)
            return self.fc(x)

    rn18 = Net(); rn18.eval()
    input = torch.randn(2, 3, 8, 8)
    output = rn18(input)
    traced_rn18 = torch.fx.symbolic_trace(rn18)
    print(traced_rn18.graph)

    class ProfilingInterpreter(Interpreter):
        def __init__(self, mod):
            gm = torch.fx.symbolic_trace(mod)
            super().__init__(gm)
            self.total_runtime_sec = []
            self.runtimes_sec = {}
        def run(self, *args):
            t_start = time.time()
            return_val = super().run(*args)
            t_end = time.time()
            self.total_runtime_sec.append(t_end - t_start)
            return return_val
        def run_node(self, n):
            t_start = time.time()
            return_val = super().run_node(n)
            t_end = time.time()
            self.runtimes_sec.setdefault(n, [])
            self.runtimes_sec[n].append(t_end - t_start)
            return return_val
        def summary(self, should_sort=False):
            node_summaries = []
            mean_total_runtime = statistics.mean(self.total_runtime_sec)
            for node, runtimes in self.runtimes_sec.items():
                mean_runtime = statistics.mean(runtimes)
                pct_total = mean_runtime / mean_total_runtime * 100
                node_summaries.append([node.op, str(node), len(runtimes)])
            return node_summaries

    interp = ProfilingInterpreter(rn18)
    interp.run(input)
    out = interp.run(input)
    print(torch.allclose(out, output), torch.equal(out, output))
    for row in interp.summary(True):
        print(row)
    print(interp.module is not rn18, type(interp.module).__name__, interp.garbage_collect_values)
    print(list(interp.env) if hasattr(interp, 'env') else None)


def fx_graph_manipulation(torch):
    # torch.fx docs "Writing Transformations": direct graph manipulation, Transformer,
    # Graph construction by hand, inserting_after / replace_all_uses_with
    fx = torch.fx
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)

    class M(nn.Module):
        def forward(self, x, y):
            return torch.add(x, y) + x.sum(dim=-1, keepdim=True)

    def transform(m, tracer_class=fx.Tracer):
        graph = tracer_class().trace(m)
        for node in graph.nodes:
            if node.op == 'call_function':
                if node.target == torch.add:
                    node.target = torch.mul
        graph.lint()
        return fx.GraphModule(m, graph)

    gm = transform(M())
    print(gm.code)
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    print(gm(x, y), M()(x, y))

    class NegSigmSwapXformer(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == torch.sigmoid:
                return torch.neg(*args, **kwargs)
            return super().call_function(target, args, kwargs)
        def call_method(self, target, args, kwargs):
            if target == 'neg':
                call_self, *args_tail = args
                return call_self.sigmoid(*args_tail, **kwargs)
            return super().call_method(target, args, kwargs)

    def fn(x):
        return torch.sigmoid(x).neg()

    gm = torch.fx.symbolic_trace(fn)
    transformed = NegSigmSwapXformer(gm).transform()
    input = torch.randn(3, 4)
    print(transformed.code)
    torch.testing.assert_close(transformed(input), torch.neg(input).sigmoid())
    print(transformed(input))

    graph = fx.Graph()
    x = graph.placeholder('x')
    w = graph.create_node('placeholder', 'w')
    mm = graph.call_function(torch.matmul, (x, w))
    r = graph.call_method('relu', (mm,))
    s = graph.call_function(operator.add, (r, 1.0))
    graph.output(s)
    print(graph)
    gm2 = fx.GraphModule(nn.Module(), graph)
    print(gm2.code)
    print(gm2(torch.randn(2, 3), torch.randn(3, 2)))

    class M2(nn.Module):
        def forward(self, x):
            return F.relu(x) * 2
    traced = fx.symbolic_trace(M2())
    for node in traced.graph.nodes:
        if node.op == 'call_function' and node.target == F.relu:
            with traced.graph.inserting_after(node):
                new_node = traced.graph.call_function(torch.neg, (node,))
                node.replace_all_uses_with(new_node)
                new_node.args = (node,)
    traced.recompile()
    print(traced.code)
    print(traced(torch.tensor([-1., 2.])))
    print([(n.name, n.op, n.args, n.kwargs) for n in traced.graph.nodes])
    print([len(n.users) for n in traced.graph.nodes], list(traced.graph.nodes)[1].prev, list(traced.graph.nodes)[1].next)


def fx_replace_pattern_shape_prop(torch):
    # torch.fx docs: subgraph_rewriter.replace_pattern, passes.shape_prop.ShapeProp
    symbolic_trace, subgraph_rewriter = torch.fx.symbolic_trace, torch.fx.subgraph_rewriter
    ShapeProp = torch.fx.passes.shape_prop.ShapeProp
    nn = torch.nn
    torch.manual_seed(0)

    class M(nn.Module):
        def forward(self, x, w1, w2):
            m1 = torch.cat([w1, w2]).sum()
            m2 = torch.cat([w1, w2]).sum()
            return x + torch.max(m1) + torch.max(m2)

    def pattern(w1, w2):
        return torch.cat([w1, w2]).sum()

    def replacement(w1, w2):
        return torch.stack([w1, w2])

    traced_module = symbolic_trace(M())
    matches = subgraph_rewriter.replace_pattern(traced_module, pattern, replacement)
    print(traced_module.code)
    print(len(matches), type(matches[0]).__name__ if matches else None)
    x, w1, w2 = torch.randn(2, 2), torch.randn(2, 2), torch.randn(2, 2)
    print(traced_module(x, w1, w2))

    class TwoLayerNet(nn.Module):
        def __init__(self, D_in, H, D_out):
            super().__init__()
            self.linear1 = nn.Linear(D_in, H)
            self.linear2 = nn.Linear(H, D_out)
        def forward(self, x):
            h_relu = self.linear1(x).clamp(min=0)
            return self.linear2(h_relu)

    N, D_in, H, D_out = 4, 5, 6, 3
    model = TwoLayerNet(D_in, H, D_out)
    gm = symbolic_trace(model)
    sample_input = torch.randn(N, D_in)
    ShapeProp(gm).propagate(sample_input)
    for node in gm.graph.nodes:
        print(node.name, node.meta['tensor_meta'].dtype, node.meta['tensor_meta'].shape)
    tm = list(gm.graph.nodes)[1].meta['tensor_meta']
    print(tm.requires_grad, tm.stride, tm.memory_format, tm.is_quantized)


def fx_symbolic_trace_limits(torch):
    # torch.fx docs "Limitations of Symbolic Tracing": control flow, concrete_args, leaf
    # modules, torch.fx.wrap, Proxy printing
    fx = torch.fx
    nn = torch.nn

    def func_to_trace(x):
        if x.sum() > 0:
            return torch.relu(x)
        else:
            return torch.neg(x)

    attempt(lambda: fx.symbolic_trace(func_to_trace))

    def f(x, flag):
        if flag:
            return x
        else:
            return x * 2

    attempt(lambda: fx.symbolic_trace(f))
    g = fx.symbolic_trace(f, concrete_args={'flag': True})
    print(g.code)
    print(g(torch.tensor([3.]), True))

    class MyCustomTracer(fx.Tracer):
        def is_leaf_module(self, m, module_qualified_name):
            return isinstance(m, nn.ReLU) or super().is_leaf_module(m, module_qualified_name)

    class MySpecialSubmodule(nn.Module):
        def forward(self, x):
            return torch.neg(x)

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(3, 4)
            self.submod = MySpecialSubmodule()
            self.act = nn.ReLU()
        def forward(self, x):
            return self.act(self.submod(self.linear(x)))

    print(fx.Tracer().trace(MyModule()))
    print(MyCustomTracer().trace(MyModule()))

    def normalize(x):
        return x / math.sqrt(len(x))
    attempt(lambda: fx.symbolic_trace(normalize))

    class Shape(nn.Module):
        def forward(self, x):
            print(type(x).__name__, x)
            y = x.view(x.shape[0], -1)
            print(repr(y), y.shape, x.size(1))
            return torch.randn(y.shape)
    gm = fx.symbolic_trace(Shape())
    print(gm.code)

    class Dropouts(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)
        def forward(self, x):
            return self.drop(x) + torch.nn.functional.dropout(x, training=self.training)
    m = Dropouts(); m.eval()
    gm = fx.symbolic_trace(m)
    print(gm.code)


def leaf_vs_nonleaf(torch):
    # pytorch/tutorials beginner_source/understanding_leaf_vs_nonleaf_tutorial.py
    F = torch.nn.functional
    x = torch.ones(1, 3)
    W = torch.ones(3, 2, requires_grad=True)
    b = torch.ones(1, 2, requires_grad=True)
    y = torch.ones(1, 2)
    z = (x @ W) + b
    y_pred = F.relu(z)
    loss = F.mse_loss(y_pred, y)
    tensors = [x, W, b, z, y_pred, loss]
    names = ["x", "W", "b", "z", "y_pred", "loss"]
    for tensor, name in zip(tensors, names):
        print(f"{name}: is_leaf={tensor.is_leaf}, requires_grad={tensor.requires_grad}, grad_fn={tensor.grad_fn}")
    print(z.grad_fn.next_functions, loss.grad_fn.next_functions[0][0].next_functions)
    z.retain_grad()
    y_pred.retain_grad()
    loss.retain_grad()
    loss.backward(retain_graph=True)
    for tensor, name in zip(tensors, names):
        print(f"{name}: grad={tensor.grad}, retains_grad={tensor.retains_grad}")
    z2 = x @ W + b
    l2 = F.mse_loss(F.relu(z2), y)
    l2.backward()
    print(z2.grad, z2.retains_grad, W.grad)
    attempt(lambda: W.retain_grad() or print(W.retains_grad))
    attempt(lambda: x.retain_grad())
    with torch.no_grad():
        z3 = x @ W
    print(z3.is_leaf, z3.requires_grad, z3.grad_fn)
    attempt(lambda: z3.retain_grad())
    d = W.detach()
    print(d.is_leaf, d.requires_grad, d._base is W, d.data_ptr() == W.data_ptr())
    v = W[0]
    print(v.is_leaf, v.grad_fn, v._base is W)
    attempt(lambda: z.sum().backward())
    loss.backward()
    print(W.grad, z.grad)


def optimizer_step_in_backward(torch):
    # pytorch/tutorials intermediate_source/optimizer_step_in_backward_tutorial.py
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model2 = copy.deepcopy(model)
    optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}

    def optimizer_hook(parameter) -> None:
        optimizer_dict[parameter].step()
        optimizer_dict[parameter].zero_grad()

    handles = [p.register_post_accumulate_grad_hook(optimizer_hook) for p in model.parameters()]
    opt2 = torch.optim.Adam(model2.parameters(), foreach=False)
    for _ in range(3):
        x = torch.randn(5, 4)
        model(x).sum().backward()
        model2(x).sum().backward()
        opt2.step(); opt2.zero_grad()
        print([p.grad for p in model.parameters()][:2], model[0].bias)
    print(all(torch.equal(a, b) for a, b in zip(model.parameters(), model2.parameters())))
    print(type(handles[0]).__name__)
    for h in handles:
        h.remove()
    model(torch.randn(2, 4)).sum().backward()
    print(model[2].bias.grad)
    t = torch.randn(3, requires_grad=True)
    attempt(lambda: (t * 2).register_post_accumulate_grad_hook(lambda p: None))
    d = torch.randn(3)
    attempt(lambda: d.register_post_accumulate_grad_hook(lambda p: None))
    seen = []
    t.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
    (t * t).sum().backward()
    (t * 3).sum().backward()
    print(seen, t.grad)


def reasoning_about_shapes(torch):
    # pytorch/tutorials recipes_source/recipes/reasoning_about_shapes.py
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)
    t = torch.rand(2, 3, 10, 10, device="meta")
    conv = torch.nn.Conv2d(3, 5, 2, device="meta")
    out = conv(t)
    print(out)
    print(out.shape, out.device, out.is_meta, conv.weight)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)
        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    def fw_hook(module, input, output):
        print(f"Shape of output to {module} is {output.shape}.")

    with torch.device("meta"):
        net = Net()
        inp = torch.randn((1024, 3, 32, 32))
    for name, layer in net.named_modules():
        layer.register_forward_hook(fw_hook)
    out = net(inp)
    print(out, net.fc1.weight.device)
    attempt(lambda: out.sum().item())
    attempt(lambda: print(out[0, :3]))
    attempt(lambda: out.numpy())
    e = torch.empty_like(out, device="cpu")
    print(e.shape, e.dtype, e.device)
    print(torch.nn.Linear(3, 4, device="meta").to_empty(device="cpu").weight.shape)
    attempt(lambda: torch.ones(2, device="meta") + torch.ones(2))


def visualizing_gradients(torch):
    # pytorch/tutorials intermediate_source/visualizing_gradients_tutorial.py
    nn = torch.nn
    torch.manual_seed(0)
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([6.0, 4.0], requires_grad=True)
    c = a * b
    d = c.sum()
    c.retain_grad()
    d.backward()
    print(a.grad, b.grad, c.grad, d.grad_fn, c.grad_fn.next_functions)

    def fc_layer(in_size, out_size, norm_layer):
        return nn.Sequential(nn.Linear(in_size, out_size), norm_layer(out_size), nn.Sigmoid())

    class Net(nn.Module):
        def __init__(self, in_size=4, hidden_size=6, out_size=2, num_layers=5, batchnorm=False):
            super().__init__()
            norm_layer = nn.BatchNorm1d if batchnorm else nn.Identity
            layers = [fc_layer(in_size, hidden_size, norm_layer)]
            for i in range(num_layers - 1):
                layers.append(fc_layer(hidden_size, hidden_size, norm_layer))
            layers.append(nn.Linear(hidden_size, out_size))
            self.layers = nn.Sequential(*layers)
        def forward(self, x):
            return self.layers(x)

    inputs = torch.randn(8, 4)
    targets = torch.randint(0, 2, (8,))
    model = Net()
    model_bn = Net(batchnorm=True)
    print(model_bn.layers[0])
    model_bn.load_state_dict(model.state_dict(), strict=False)
    print(sorted(set(model_bn.state_dict()) - set(model.state_dict()))[:4])

    def hook_forward(module_name, grads, hook_backward):
        def hook(module, args, output):
            output.register_hook(hook_backward(module_name, grads))
        return hook

    def hook_backward(module_name, grads):
        def hook(grad):
            grads.append((module_name, grad))
        return hook

    def get_all_layers(model, hook_forward, hook_backward):
        layers = dict()
        grads = []
        for name, layer in model.named_modules():
            if any(layer.children()) is False:
                layers[name] = layer
                layer.register_forward_hook(hook_forward(name, grads, hook_backward))
        return layers, grads

    layers_bn, grads_bn = get_all_layers(model_bn, hook_forward, hook_backward)
    layers_nobn, grads_nobn = get_all_layers(model, hook_forward, hook_backward)
    for m in (model, model_bn):
        out = m(inputs)
        loss = nn.CrossEntropyLoss()(out, targets)
        loss.backward()
    print(list(layers_bn)[:4], len(grads_bn), len(grads_nobn))
    layer_idx, avg_grads = [], []
    for idx, (name, grad) in enumerate(grads_nobn):
        if "Sigmoid" in str(layers_nobn[name]) or name.endswith(".2"):
            layer_idx.append(idx)
            avg_grads.append(grad.abs().mean().item())
    print(['%.3e' % g for g in avg_grads])
    print([(n, g.shape, '%.4e' % g.std().item()) for n, g in grads_bn[:4]])


def chatbot_encoder_attention(torch):
    # pytorch/tutorials beginner_source/chatbot_tutorial.py: EncoderRNN (bidirectional GRU over
    # packed sequences), Luong attention, LuongAttnDecoderRNN and maskNLLLoss
    nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)
    PAD_token, SOS_token = 0, 1
    voc_n, hidden_size, n_layers = 12, 6, 2
    input_variable = torch.LongTensor([[5, 3, 7], [4, 8, 2], [9, 2, 0], [2, 0, 0]])
    lengths = torch.tensor([4, 3, 2])
    target_variable = torch.LongTensor([[3, 4, 5], [6, 2, 2], [2, 0, 0]])
    mask = target_variable != PAD_token
    max_target_len = 3
    print(mask.dtype, mask)

    class EncoderRNN(nn.Module):
        def __init__(self, hidden_size, embedding, n_layers=1, dropout=0):
            super(EncoderRNN, self).__init__()
            self.n_layers = n_layers
            self.hidden_size = hidden_size
            self.embedding = embedding
            self.gru = nn.GRU(hidden_size, hidden_size, n_layers,
                              dropout=(0 if n_layers == 1 else dropout), bidirectional=True)
        def forward(self, input_seq, input_lengths, hidden=None):
            embedded = self.embedding(input_seq)
            packed = nn.utils.rnn.pack_padded_sequence(embedded, input_lengths)
            outputs, hidden = self.gru(packed, hidden)
            outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs)
            outputs = outputs[:, :, :self.hidden_size] + outputs[:, :, self.hidden_size:]
            return outputs, hidden

    class Attn(nn.Module):
        def __init__(self, method, hidden_size):
            super(Attn, self).__init__()
            self.method = method
            if self.method not in ['dot', 'general', 'concat']:
                raise ValueError(self.method, "is not an appropriate attention method.")
            self.hidden_size = hidden_size
            if self.method == 'general':
                self.attn = nn.Linear(self.hidden_size, hidden_size)
            elif self.method == 'concat':
                self.attn = nn.Linear(self.hidden_size * 2, hidden_size)
                self.v = nn.Parameter(torch.FloatTensor(hidden_size))
        def dot_score(self, hidden, encoder_output):
            return torch.sum(hidden * encoder_output, dim=2)
        def general_score(self, hidden, encoder_output):
            energy = self.attn(encoder_output)
            return torch.sum(hidden * energy, dim=2)
        def concat_score(self, hidden, encoder_output):
            energy = self.attn(torch.cat((hidden.expand(encoder_output.size(0), -1, -1), encoder_output), 2)).tanh()
            return torch.sum(self.v * energy, dim=2)
        def forward(self, hidden, encoder_outputs):
            if self.method == 'general':
                attn_energies = self.general_score(hidden, encoder_outputs)
            elif self.method == 'concat':
                attn_energies = self.concat_score(hidden, encoder_outputs)
            else:
                attn_energies = self.dot_score(hidden, encoder_outputs)
            attn_energies = attn_energies.t()
            return F.softmax(attn_energies, dim=1).unsqueeze(1)

    class LuongAttnDecoderRNN(nn.Module):
        def __init__(self, attn_model, embedding, hidden_size, output_size, n_layers=1, dropout=0.1):
            super(LuongAttnDecoderRNN, self).__init__()
            self.n_layers = n_layers
            self.embedding = embedding
            self.embedding_dropout = nn.Dropout(dropout)
            self.gru = nn.GRU(hidden_size, hidden_size, n_layers, dropout=(0 if n_layers == 1 else dropout))
            self.concat = nn.Linear(hidden_size * 2, hidden_size)
            self.out = nn.Linear(hidden_size, output_size)
            self.attn = Attn(attn_model, hidden_size)
        def forward(self, input_step, last_hidden, encoder_outputs):
            embedded = self.embedding(input_step)
            embedded = self.embedding_dropout(embedded)
            rnn_output, hidden = self.gru(embedded, last_hidden)
            attn_weights = self.attn(rnn_output, encoder_outputs)
            context = attn_weights.bmm(encoder_outputs.transpose(0, 1))
            rnn_output = rnn_output.squeeze(0)
            context = context.squeeze(1)
            concat_input = torch.cat((rnn_output, context), 1)
            concat_output = torch.tanh(self.concat(concat_input))
            output = self.out(concat_output)
            output = F.softmax(output, dim=1)
            return output, hidden

    def maskNLLLoss(inp, target, mask):
        nTotal = mask.sum()
        crossEntropy = -torch.log(torch.gather(inp, 1, target.view(-1, 1)).squeeze(1))
        loss = crossEntropy.masked_select(mask).mean()
        return loss, nTotal.item()

    attempt(lambda: Attn('bilinear', 4))
    embedding = nn.Embedding(voc_n, hidden_size)
    encoder = EncoderRNN(hidden_size, embedding, n_layers, 0.1)
    for method in ['dot', 'general', 'concat']:
        torch.manual_seed(1)
        decoder = LuongAttnDecoderRNN(method, embedding, hidden_size, voc_n, n_layers, 0.1)
        if method == 'concat':
            nn.init.normal_(decoder.attn.v)
        enc_opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
        dec_opt = torch.optim.Adam(decoder.parameters(), lr=0.05)
        encoder.train(); decoder.train()
        enc_opt.zero_grad(); dec_opt.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_variable, lengths)
        decoder_input = torch.LongTensor([[SOS_token for _ in range(3)]])
        decoder_hidden = encoder_hidden[:decoder.n_layers]
        loss, print_losses, n_totals = 0, [], 0
        for t in range(max_target_len):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden, encoder_outputs)
            _, topi = decoder_output.topk(1)
            decoder_input = torch.LongTensor([[topi[i][0] for i in range(3)]])
            mask_loss, nTotal = maskNLLLoss(decoder_output, target_variable[t], mask[t])
            loss += mask_loss
            print_losses.append(mask_loss.item() * nTotal)
            n_totals += nTotal
        loss.backward()
        _ = nn.utils.clip_grad_norm_(encoder.parameters(), 50.0)
        _ = nn.utils.clip_grad_norm_(decoder.parameters(), 50.0)
        enc_opt.step(); dec_opt.step()
        print(method, '%.6f' % (sum(print_losses) / n_totals), decoder_input, _, encoder_outputs.shape, encoder_hidden.shape)
    attempt(lambda: nn.utils.rnn.pack_padded_sequence(embedding(input_variable), torch.tensor([2, 3, 4])))
    attempt(lambda: nn.utils.rnn.pack_padded_sequence(embedding(input_variable), [5, 3, 2]))
    p = nn.utils.rnn.pack_padded_sequence(embedding(input_variable), torch.tensor([2, 3, 4]), enforce_sorted=False)
    print(p.batch_sizes, p.sorted_indices, p.unsorted_indices, p.data.shape)


def llms_appendix_a(torch):
    # rasbt/LLMs-from-scratch appendix A ("Introduction to PyTorch")
    F = torch.nn.functional
    grad = torch.autograd.grad
    print(torch.cuda.is_available(), torch.backends.mps.is_available())
    tensor0d = torch.tensor(1)
    tensor1d = torch.tensor([1, 2, 3])
    tensor2d = torch.tensor([[1, 2], [3, 4]])
    tensor3d = torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    ary3d = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    tensor3d_2 = torch.tensor(ary3d)
    tensor3d_3 = torch.from_numpy(ary3d)
    ary3d[0, 0, 0] = 999
    print(tensor0d, tensor1d, tensor3d_2, tensor3d_3)
    print(tensor1d.dtype, torch.tensor([1.0, 2.0, 3.0]).dtype, tensor1d.to(torch.float32).dtype)
    tensor2d = torch.tensor([[1, 2, 3], [4, 5, 6]])
    print(tensor2d.shape, tensor2d.reshape(3, 2), tensor2d.view(3, 2), tensor2d.T, tensor2d.matmul(tensor2d.T), tensor2d @ tensor2d.T)
    y = torch.tensor([1.0])
    x1 = torch.tensor([1.1])
    w1 = torch.tensor([2.2], requires_grad=True)
    b = torch.tensor([0.0], requires_grad=True)
    z = x1 * w1 + b
    a = torch.sigmoid(z)
    loss = F.binary_cross_entropy(a, y)
    grad_L_w1 = grad(loss, w1, retain_graph=True)
    grad_L_b = grad(loss, b, retain_graph=True)
    print(grad_L_w1, grad_L_b)
    loss.backward()
    print(w1.grad, b.grad)

    class NeuralNetwork(torch.nn.Module):
        def __init__(self, num_inputs, num_outputs):
            super().__init__()
            self.layers = torch.nn.Sequential(
                torch.nn.Linear(num_inputs, 30), torch.nn.ReLU(),
                torch.nn.Linear(30, 20), torch.nn.ReLU(),
                torch.nn.Linear(20, num_outputs))
        def forward(self, x):
            return self.layers(x)

    model = NeuralNetwork(50, 3)
    print(model)
    num_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print("Total number of trainable model parameters:", num_params)
    print(model.layers[0].weight.shape)
    torch.manual_seed(123)
    model = NeuralNetwork(50, 3)
    print(model.layers[0].weight[:1, :4])
    X = torch.rand((1, 50))
    out = model(X)
    print(out)
    with torch.no_grad():
        out = model(X)
    print(out, torch.softmax(out, dim=1))

    X_train = torch.tensor([[-1.2, 3.1], [-0.9, 2.9], [-0.5, 2.6], [2.3, -1.1], [2.7, -1.5]])
    y_train = torch.tensor([0, 0, 0, 1, 1])
    X_test = torch.tensor([[-0.8, 2.8], [2.6, -1.6]])
    y_test = torch.tensor([0, 1])
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

    class ToyDataset(Dataset):
        def __init__(self, X, y):
            self.features = X
            self.labels = y
        def __getitem__(self, index):
            return self.features[index], self.labels[index]
        def __len__(self):
            return self.labels.shape[0]

    train_ds = ToyDataset(X_train, y_train)
    test_ds = ToyDataset(X_test, y_test)
    print(len(train_ds))
    torch.manual_seed(123)
    train_loader = DataLoader(dataset=train_ds, batch_size=2, shuffle=True, num_workers=0, drop_last=True)
    test_loader = DataLoader(dataset=test_ds, batch_size=2, shuffle=False, num_workers=0)
    for idx, (x, y) in enumerate(train_loader):
        print(f"Batch {idx+1}:", x, y)
    torch.manual_seed(123)
    model = NeuralNetwork(num_inputs=2, num_outputs=2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    num_epochs = 3
    for epoch in range(num_epochs):
        model.train()
        for batch_idx, (features, labels) in enumerate(train_loader):
            logits = model(features)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"Epoch: {epoch+1:03d}/{num_epochs:03d}"
                  f" | Batch {batch_idx:03d}/{len(train_loader):03d}"
                  f" | Train/Val Loss: {loss:.2f}")
        model.eval()
    with torch.no_grad():
        outputs = model(X_train)
    print(outputs)
    torch.set_printoptions(sci_mode=False)
    probas = torch.softmax(outputs, dim=1)
    print(probas)
    torch.set_printoptions(profile="default")
    predictions = torch.argmax(probas, dim=1)
    print(predictions, predictions == y_train, torch.sum(predictions == y_train))

    def compute_accuracy(model, dataloader):
        model = model.eval()
        correct = 0.0
        total_examples = 0
        for idx, (features, labels) in enumerate(dataloader):
            with torch.no_grad():
                logits = model(features)
            predictions = torch.argmax(logits, dim=1)
            compare = labels == predictions
            correct += torch.sum(compare)
            total_examples += len(compare)
        return (correct / total_examples).item()

    print(compute_accuracy(model, train_loader), compute_accuracy(model, test_loader))
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    model = NeuralNetwork(2, 2)
    print(model.load_state_dict(torch.load(buf, weights_only=True)))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(device, model.to(device) is model, X_train.to(device).device)
    tensor_1 = torch.tensor([1., 2., 3.])
    attempt(lambda: tensor_1.to("cuda"))
    attempt(lambda: tensor_1 + torch.tensor([4., 5., 6.]).to("cuda"))


def fx_decompose_retrace(torch):
    # torch.fx docs "Proxy/Retracing": decomposing F.relu by retracing through Proxies, the
    # inverse-function Interpreter example, dead code elimination and print_readable
    fx = torch.fx; nn = torch.nn; F = torch.nn.functional
    torch.manual_seed(0)

    def relu_decomposition(x):
        return (x > 0) * x

    decomposition_rules = {F.relu: relu_decomposition}

    def decompose(model, tracer_class=fx.Tracer):
        graph = tracer_class().trace(model)
        new_graph = fx.Graph()
        env = {}
        tracer = torch.fx.proxy.GraphAppendingTracer(new_graph)
        for node in graph.nodes:
            if node.op == 'call_function' and node.target in decomposition_rules:
                proxy_args = [fx.Proxy(env[x.name], tracer) if isinstance(x, fx.Node) else x for x in node.args]
                output_proxy = decomposition_rules[node.target](*proxy_args)
                new_node = output_proxy.node
                env[node.name] = new_node
            else:
                new_node = new_graph.node_copy(node, lambda x: env[x.name])
                env[node.name] = new_node
        return fx.GraphModule(model, new_graph)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
        def forward(self, x):
            return F.relu(self.lin(x)) + 1

    m = M()
    d = decompose(m)
    print(d.code)
    x = torch.randn(2, 3)
    print(torch.equal(d(x), m(x)), d(x))

    class InvertMe(nn.Module):
        def forward(self, x):
            return torch.neg(torch.exp(x))

    invert_mapping = {torch.neg: torch.neg, torch.exp: torch.log}

    def invert(model):
        fx_model = fx.symbolic_trace(model)
        new_graph = fx.Graph()
        env = {}
        for node in reversed(fx_model.graph.nodes):
            if node.op == 'call_function':
                new_node = new_graph.call_function(invert_mapping[node.target], (env[node.name],))
                env[node.args[0].name] = new_node
            elif node.op == 'output':
                new_node = new_graph.placeholder(node.name)
                env[node.args[0].name] = new_node
            elif node.op == 'placeholder':
                new_graph.output(env[node.name])
            else:
                raise RuntimeError("Not implemented")
        new_graph.lint()
        return fx.GraphModule(fx_model, new_graph)

    module = InvertMe()
    inverted = invert(module)
    print(inverted.code)
    x = torch.tensor([1., 2., 3., 4., 5.])
    print(module(x), inverted(module(x)))

    class Dead(nn.Module):
        def forward(self, x):
            y = x + 1
            z = x * 2
            return x.relu()
    gm = fx.symbolic_trace(Dead())
    print(len(gm.graph.nodes), gm.graph.eliminate_dead_code(), len(gm.graph.nodes))
    gm.recompile()
    print(gm.code)
    gm.print_readable()
    print(repr(gm.print_readable(print_output=False)).count('\\n'))

    class Sub(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2); self.b = nn.Linear(2, 2)
        def forward(self, x):
            return self.a(x)
    gm = fx.symbolic_trace(Sub())
    print([n for n, _ in gm.named_modules()], gm.delete_all_unused_submodules(), [n for n, _ in gm.named_modules()])
    print(gm.add_submodule('c.d', nn.ReLU()), gm.get_submodule('c.d'), gm.delete_submodule('c.d'), gm.delete_submodule('zz'))


def fastbook_mnist_basics(torch):
    # fastai/fastbook 04_mnist_basics.ipynb on random "images": the pixel-similarity baseline,
    # SGD from scratch with mnist_loss, then BasicOptim and nn.Linear
    F = torch.nn.functional
    torch.manual_seed(42)
    threes = [torch.rand(8, 8) * 0.6 for _ in range(12)]
    sevens = [torch.rand(8, 8) * 0.6 + 0.4 * torch.eye(8) for _ in range(12)]
    stacked_threes = torch.stack(threes).float() / 1
    stacked_sevens = torch.stack(sevens).float()
    print(stacked_threes.shape, len(stacked_threes.shape), stacked_threes.ndim)
    mean3 = stacked_threes.mean(0); mean7 = stacked_sevens.mean(0)
    a_3 = stacked_threes[1]
    dist_3_abs = (a_3 - mean3).abs().mean()
    dist_3_sqr = ((a_3 - mean3) ** 2).mean().sqrt()
    print(dist_3_abs, dist_3_sqr, F.l1_loss(a_3.float(), mean7), F.mse_loss(a_3, mean7).sqrt())
    data = [[1, 2, 3], [4, 5, 6]]
    arr = np.array(data); tns = torch.tensor(data)
    print(tns[1], tns[:, 1], tns[1, 1:3], tns + 1, tns.type(), tns * 1.5)

    def mnist_distance(a, b):
        return (a - b).abs().mean((-1, -2))

    valid_3_tens = stacked_threes[8:]
    valid_3_dist = mnist_distance(valid_3_tens, mean3)
    print(valid_3_dist, valid_3_dist.shape)

    def is_3(x):
        return mnist_distance(x, mean3) < mnist_distance(x, mean7)

    print(is_3(a_3), is_3(a_3).float(), is_3(valid_3_tens))
    accuracy_3s = is_3(valid_3_tens).float().mean()
    accuracy_7s = (1 - is_3(stacked_sevens[8:]).float()).mean()
    print(accuracy_3s, accuracy_7s, (accuracy_3s + accuracy_7s) / 2)

    def f(x):
        return x ** 2
    xt = torch.tensor(3.).requires_grad_()
    yt = f(xt)
    print(yt)
    yt.backward()
    print(xt.grad)
    xt = torch.tensor([3., 4., 10.]).requires_grad_()

    def f(x):
        return (x ** 2).sum()
    yt = f(xt); yt.backward()
    print(xt.grad)
    time = torch.arange(0, 20).float()
    speed = torch.randn(20) * 3 + 0.75 * (time - 9.5) ** 2 + 1

    def f(t, params):
        a, b, c = params
        return a * (t ** 2) + (b * t) + c

    def mse(preds, targets):
        return ((preds - targets) ** 2).mean()

    params = torch.randn(3).requires_grad_()
    orig_params = params.clone()
    lr = 1e-5

    def apply_step(params, prn=True):
        preds = f(time, params)
        loss = mse(preds, speed)
        loss.backward()
        params.data -= lr * params.grad.data
        params.grad = None
        if prn:
            print(loss.item())
        return preds

    for i in range(4):
        apply_step(params)
    print(params, orig_params)
    train_x = torch.cat([stacked_threes[:8], stacked_sevens[:8]]).view(-1, 8 * 8)
    train_y = torch.tensor([1] * 8 + [0] * 8).unsqueeze(1)
    print(train_x.shape, train_y.shape)
    dset = list(zip(train_x, train_y))
    x, y = dset[0]
    print(x.shape, y)
    valid_x = torch.cat([stacked_threes[8:], stacked_sevens[8:]]).view(-1, 64)
    valid_y = torch.tensor([1] * 4 + [0] * 4).unsqueeze(1)
    valid_dset = list(zip(valid_x, valid_y))

    def init_params(size, std=1.0):
        return (torch.randn(size) * std).requires_grad_()

    weights = init_params((64, 1))
    bias = init_params(1)
    print((train_x[0] * weights.T).sum() + bias)

    def linear1(xb):
        return xb @ weights + bias

    preds = linear1(train_x)
    print(preds[:4])
    corrects = (preds > 0.0).float() == train_y
    print(corrects[:4], corrects.float().mean().item())
    with torch.no_grad():
        weights[0] *= 1.0001
    trgts = torch.tensor([1, 0, 1])
    prds = torch.tensor([0.9, 0.4, 0.2])

    def mnist_loss(predictions, targets):
        predictions = predictions.sigmoid()
        return torch.where(targets == 1, 1 - predictions, predictions).mean()

    print(torch.where(trgts == 1, 1 - prds, prds), mnist_loss(prds, trgts), mnist_loss(torch.tensor([0.9, 0.4, 0.8]), trgts))
    coll = range(15)
    dl = torch.utils.data.DataLoader(coll, batch_size=5, shuffle=True)
    print(list(dl))
    ds = list(zip(range(6), 'abcdef'))
    dl = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True)
    print(list(dl))
    dl = torch.utils.data.DataLoader(dset, batch_size=4)
    valid_dl = torch.utils.data.DataLoader(valid_dset, batch_size=4)
    xb, yb = next(iter(dl))
    print(xb.shape, yb.shape)

    def calc_grad(xb, yb, model):
        preds = model(xb)
        loss = mnist_loss(preds, yb)
        loss.backward()

    calc_grad(xb, yb, linear1)
    print(weights.grad.mean(), bias.grad)
    calc_grad(xb, yb, linear1)
    print(weights.grad.mean(), bias.grad)
    weights.grad.zero_(); bias.grad.zero_()

    def train_epoch(model, lr, params):
        for xb, yb in dl:
            calc_grad(xb, yb, model)
            for p in params:
                p.data -= p.grad * lr
                p.grad.zero_()

    def batch_accuracy(xb, yb):
        preds = xb.sigmoid()
        correct = (preds > 0.5) == yb
        return correct.float().mean()

    def validate_epoch(model):
        accs = [batch_accuracy(model(xb), yb) for xb, yb in valid_dl]
        return round(torch.stack(accs).mean().item(), 4)

    print(batch_accuracy(linear1(xb), yb), validate_epoch(linear1))
    params = weights, bias
    for i in range(3):
        train_epoch(linear1, 1., params)
        print(validate_epoch(linear1), end=' ')
    print()
    linear_model = torch.nn.Linear(64, 1)
    w, b = linear_model.parameters()
    print(w.shape, b.shape)

    class BasicOptim:
        def __init__(self, params, lr):
            self.params, self.lr = list(params), lr
        def step(self, *args, **kwargs):
            for p in self.params:
                p.data -= p.grad.data * self.lr
        def zero_grad(self, *args, **kwargs):
            for p in self.params:
                p.grad = None

    opt = BasicOptim(linear_model.parameters(), 1.)

    def train_epoch(model):
        for xb, yb in dl:
            calc_grad(xb, yb, model)
            opt.step()
            opt.zero_grad()

    for i in range(3):
        train_epoch(linear_model)
        print(validate_epoch(linear_model), end=' ')
    print()
    simple_net = torch.nn.Sequential(torch.nn.Linear(64, 30), torch.nn.ReLU(), torch.nn.Linear(30, 1))
    opt = torch.optim.SGD(simple_net.parameters(), 0.1)
    for i in range(3):
        train_epoch(simple_net)
        print(validate_epoch(simple_net), end=' ')
    print()
    print(simple_net[0].weight.grad, simple_net[2].bias)


def fastbook_foundations(torch):
    # fastai/fastbook 17_foundations.ipynb: matmul from scratch (loops, elementwise,
    # broadcasting, einsum), init statistics, forward/backward by hand and the refactored
    # Module classes with autograd.Function
    torch.manual_seed(0)
    m1 = torch.randn(5, 8)
    m2 = torch.randn(8, 4)

    def matmul(a, b):
        ar, ac = a.shape
        br, bc = b.shape
        assert ac == br
        c = torch.zeros(ar, bc)
        for i in range(ar):
            for j in range(bc):
                for k in range(ac):
                    c[i, j] += a[i, k] * b[k, j]
        return c

    t1 = matmul(m1, m2)
    print(t1.shape, torch.allclose(t1, m1 @ m2, atol=1e-5))
    a = torch.tensor([10., 6, -4]); b = torch.tensor([2., 8, 7])
    print(a + b, a < b, (a < b).float().mean(), (a < b).all())
    m = torch.tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
    print((m * m).sum().sqrt(), m[2, :], m[:, 2], m[2])

    def matmul(a, b):
        ar, ac = a.shape
        br, bc = b.shape
        assert ac == br
        c = torch.zeros(ar, bc)
        for i in range(ar):
            for j in range(bc):
                c[i, j] = (a[i] * b[:, j]).sum()
        return c

    print(torch.allclose(matmul(m1, m2), m1 @ m2, atol=1e-5))
    a = torch.tensor([10., 6, -4])
    print(a > 0, a + 1, 2 * m)
    c = torch.tensor([10., 20, 30])
    print(m.shape, c.shape, m + c, c.expand_as(m), c.expand_as(m).storage() if False else c.expand_as(m).stride())
    print(c.unsqueeze(0), c.unsqueeze(1), c[None, :], c[:, None], c[None], c[..., None])
    print(c[:, None].expand_as(m), m + c[:, None])

    def matmul(a, b):
        ar, ac = a.shape
        br, bc = b.shape
        assert ac == br
        c = torch.zeros(ar, bc)
        for i in range(ar):
            c[i] = (a[i][:, None] * b).sum(dim=0)
        return c

    print(torch.allclose(matmul(m1, m2), m1 @ m2, atol=1e-5))

    def matmul(a, b):
        return torch.einsum('ik,kj->ij', a, b)

    print(torch.allclose(matmul(m1, m2), m1 @ m2, atol=1e-5))
    x = torch.randn(200, 100)
    for i in range(50):
        x = x @ torch.randn(100, 100)
    print(x[0:2, 0:2])
    x = torch.randn(200, 100)
    for i in range(50):
        x = x @ (torch.randn(100, 100) * 0.01)
    print(x[0:2, 0:2])
    x = torch.randn(200, 100)
    for i in range(50):
        x = x @ (torch.randn(100, 100) * 0.1)
    print(x[0:2, 0:2], x.std())
    x = torch.randn(200, 100)
    y = torch.randn(200)
    w1 = torch.randn(100, 50) / math.sqrt(100)
    b1 = torch.zeros(50)
    w2 = torch.randn(50, 1) / math.sqrt(50)
    b2 = torch.zeros(1)

    def lin(x, w, b):
        return x @ w + b

    l1 = lin(x, w1, b1)
    print(l1.shape, l1.mean(), l1.std())

    def relu(x):
        return x.clamp_min(0.)

    l2 = relu(l1)
    print(l2.mean(), l2.std())
    w1 = torch.randn(100, 50) * math.sqrt(2 / 100)
    l1 = lin(x, w1, b1); l2 = relu(l1)
    print(l2.mean(), l2.std())

    def relu(x):
        return x.clamp_min(0.) - 0.5

    def model(x):
        l1 = lin(x, w1, b1)
        l2 = relu(l1)
        l3 = lin(l2, w2, b2)
        return l3

    out = model(x)
    print(out.shape)

    def mse(output, targ):
        return (output.squeeze(-1) - targ).pow(2).mean()

    loss = mse(out, y)
    print(loss)

    def mse_grad(inp, targ):
        inp.g = 2. * (inp.squeeze() - targ).unsqueeze(-1) / inp.shape[0]

    def relu_grad(inp, out):
        inp.g = (inp > 0).float() * out.g

    def lin_grad(inp, out, w, b):
        inp.g = out.g @ w.t()
        w.g = inp.t() @ out.g
        b.g = out.g.sum(0)

    def forward_and_backward(inp, targ):
        l1 = inp @ w1 + b1
        l2 = relu(l1)
        out = l2 @ w2 + b2
        loss = mse(out, targ)
        mse_grad(out, targ)
        lin_grad(l2, out, w2, b2)
        relu_grad(l1, l2)
        lin_grad(inp, l1, w1, b1)

    forward_and_backward(x, y)
    print(w1.g[:2, :3], b2.g, x.g.shape)

    class Relu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.clamp_min(0.)
            ctx.save_for_backward(i)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            i, = ctx.saved_tensors
            return grad_output * (i > 0).float()

    class LinearLayer(torch.nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(n_out, n_in) * math.sqrt(2 / n_in))
            self.bias = torch.nn.Parameter(torch.zeros(n_out))
        def forward(self, x):
            return x @ self.weight.t() + self.bias

    lin_layer = LinearLayer(10, 2)
    p1, p2 = lin_layer.parameters()
    print(p1.shape, p2.shape)
    xr = torch.randn(4, 10, requires_grad=True)
    r = Relu.apply(lin_layer(xr))
    r.sum().backward()
    print(r.grad_fn, r, xr.grad[0], p1.grad[0])

    class Model(torch.nn.Module):
        def __init__(self, n_in, nh, n_out):
            super().__init__()
            self.layers = torch.nn.Sequential(torch.nn.Linear(n_in, nh), torch.nn.ReLU(), torch.nn.Linear(nh, n_out))
            self.loss = mse
        def forward(self, x, targ):
            return self.loss(self.layers(x), targ)

    model = Model(100, 50, 1)
    loss = model(x, y)
    loss.backward()
    print(loss, model.layers[0].weight.grad[0, :3])


def cs224n_pytorch_tutorial(torch):
    # Stanford CS224N's "PyTorch Tutorial" notebook: tensors, broadcasting, indexing,
    # autograd, nn modules, a custom multilayer perceptron and the optimisation loop
    nn = torch.nn
    list_of_lists = [[1, 2, 3], [4, 5, 6]]
    data = torch.tensor([[0, 1], [2, 3], [4, 5]])
    print(data)
    data = torch.tensor([[0, 1], [2, 3], [4, 5]], dtype=torch.float32)
    print(data)
    data = torch.tensor([[0.11111111, 1], [2, 3], [4, 5]], dtype=torch.bfloat16)
    print(data)
    data = torch.tensor([[0.11111111, 1], [2, 3], [4, 5]], dtype=torch.half)
    print(data)
    data = torch.tensor([1, 2, 3], dtype=torch.float64)
    print(data, data.dtype)
    print(torch.zeros(2, 5), torch.ones(3, 4))
    rr = torch.arange(1, 10)
    print(rr, rr + 2, rr * 2)
    a = torch.tensor([[1, 2], [2, 3], [4, 5]])
    b = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    print("A is", a, "B is", b, "The product is", a.matmul(b), "The other product is", a @ b)
    v = torch.tensor([1, 2, 3])
    print(v.shape, torch.tensor([[1, 2, 3], [4, 5, 6]]) @ v)
    attempt(lambda: torch.tensor([[1, 2, 3]]) @ torch.tensor([[1, 2, 3]]))
    matr_2d = torch.tensor([[1, 2, 3], [4, 5, 6]])
    print(matr_2d.shape, matr_2d.size(), matr_2d.view(3, 2), matr_2d.view(-1, 1).shape, matr_2d.reshape(3, -1))
    rr = torch.arange(1, 16)
    print("The shape is currently", rr.shape, rr.view(5, 3), rr.view(3, 5).shape)
    rr = torch.arange(1, 16).view(3, 5)
    print(rr.T, rr.t().is_contiguous())
    attempt(lambda: rr.T.view(-1))
    print(rr.T.reshape(-1), rr.T.contiguous().view(-1))
    ndarray = np.array([[1, 2, 3], [4, 5, 6]])
    tensor_from_array = torch.from_numpy(ndarray)
    print(tensor_from_array, torch.tensor(ndarray), tensor_from_array.numpy(), tensor_from_array.tolist())
    data = torch.arange(1, 7, dtype=torch.float32).reshape(2, 3)
    print(data.sum(dim=0), data.sum(dim=1), data.std(dim=0), data.std(dim=1), data.mean(dim=0), data.mean(dim=1))
    attempt(lambda: torch.arange(1, 7).reshape(2, 3).mean())
    x = torch.arange(1, 6).repeat(5).reshape(5, 5)
    print(x, x[0], x[:, 0], x[1:3, 2:4], x[[0, 2, 4]], x[[0, 2], [1, 3]], x[:, [0, -1]])
    x = torch.arange(3 * 4 * 5).reshape(3, 4, 5)
    print(x[0].shape, x[:, 0].shape, x[:, :, 0].shape, x[0, 1, 2], x[0, 1, 2].item(), x[..., 0].shape)
    a = torch.tensor([[1.]])
    print(a.item(), type(a.item()))
    attempt(lambda: torch.ones(2).item())
    x = torch.tensor([2.], requires_grad=True)
    print(x.grad)
    y = x * x * 3
    y.backward()
    print(x.grad)
    z = x * x * 3
    z.backward()
    print(x.grad)
    x.grad = None
    print(x.grad)
    input = torch.ones(2, 3, 4)
    linear = nn.Linear(4, 2)
    torch.manual_seed(0)
    linear = nn.Linear(4, 2)
    linear_output = linear(input)
    print(linear_output, list(linear.parameters()))
    mlp_layer = nn.Sequential(nn.Linear(5, 2), nn.BatchNorm1d(2), nn.ReLU())
    test_example = torch.randn(5, 5) + 1
    print("input: ", test_example)
    print("output: ", mlp_layer(test_example))

    class MultilayerPerceptron(nn.Module):
        def __init__(self, input_size, hidden_size):
            super(MultilayerPerceptron, self).__init__()
            self.input_size = input_size
            self.hidden_size = hidden_size
            self.model = nn.Sequential(nn.Linear(self.input_size, self.hidden_size), nn.ReLU(),
                                       nn.Linear(self.hidden_size, self.input_size), nn.Sigmoid())
        def forward(self, x):
            return self.model(x)

    model = MultilayerPerceptron(5, 3)
    print(model, list(model.named_parameters())[0])
    y = torch.ones([10, 5])
    x = y + torch.randn_like(y)
    adam = torch.optim.Adam(model.parameters(), lr=1e-1)
    loss_function = nn.BCELoss()
    y_pred = model(x)
    print(loss_function(y_pred, y).item())
    n_epoch = 10
    for epoch in range(n_epoch):
        adam.zero_grad()
        y_pred = model(x)
        loss = loss_function(y_pred, y)
        if epoch % 3 == 0:
            print(f"Epoch {epoch}: training loss: {loss}")
        loss.backward()
        adam.step()
    print(list(model.parameters())[-1])
    x2 = y + torch.randn_like(y)
    y_pred = model(x2)
    print(y_pred[:2], loss_function(y_pred, y))
    attempt(lambda: loss_function(model(x) * 2, y))
    attempt(lambda: loss_function(model(x), y[:5]))


def llmc_train_gpt2(torch):
    # karpathy/llm.c train_gpt2.py on a tiny config: NewGELU, the causal self-attention with
    # scaled_dot_product_attention, weight tying, the scaled init, configure_optimizers with its
    # fused-AdamW signature check, a few bf16-autocast steps with clipping and the cosine LR
    nn = torch.nn; F = torch.nn.functional

    class NewGELU(nn.Module):
        def forward(self, input):
            return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd)
            self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, 1, config.block_size, config.block_size))
        def forward(self, x):
            B, T, C = x.size()
            qkv = self.c_attn(x)
            q, k, v = qkv.split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
            self.gelu = NewGELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
            self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1
        def forward(self, x):
            return self.c_proj(self.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = MLP(config)
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPTConfig:
        block_size = 8; vocab_size = 17; n_layer = 2; n_head = 2; n_embd = 8

    class GPT(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd)))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.lm_head.LLMC_SKIP_INIT = 1
            self.transformer.wte.weight = self.lm_head.weight
            self.init_rng = torch.Generator()
            self.init_rng.manual_seed(42)
            self.apply(self._init_weights)
        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                std = 0.02 if not hasattr(module, 'LLMC_RESIDUAL_SCALE_FLAG') else 0.02 / math.sqrt(2 * self.config.n_layer)
                if not hasattr(module, 'LLMC_SKIP_INIT'):
                    torch.nn.init.normal_(module.weight, mean=0.0, std=std, generator=self.init_rng)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02, generator=self.init_rng)
        def forward(self, idx, targets=None, return_logits=True):
            device = idx.device
            b, t = idx.size()
            assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
            pos = torch.arange(0, t, dtype=torch.long, device=device)
            tok_emb = self.transformer.wte(idx)
            pos_emb = self.transformer.wpe(pos)
            x = tok_emb + pos_emb
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            else:
                logits = self.lm_head(x[:, [-1], :])
                loss = None
            if not return_logits:
                logits = None
            return logits, loss
        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type, zero_stage):
            param_dict = {pn: p for pn, p in self.named_parameters()}
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [{'params': decay_params, 'weight_decay': weight_decay},
                            {'params': nodecay_params, 'weight_decay': 0.0}]
            num_decay_params = sum(p.numel() for p in decay_params)
            num_nodecay_params = sum(p.numel() for p in nodecay_params)
            print(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
            print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
            fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and device_type == 'cuda'
            print(f"using fused AdamW: {use_fused}", fused_available)
            return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, fused=use_fused)
        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float('Inf')
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    torch.manual_seed(42)
    model = GPT(GPTConfig())
    print(model.transformer.wte.weight is model.lm_head.weight, sum(p.numel() for p in model.parameters()))
    print(model.lm_head.weight[0, :4], model.transformer.h[0].mlp.c_proj.weight.std())
    optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=1e-3, betas=(0.9, 0.95), device_type='cpu', zero_stage=0)
    data = torch.randint(0, 17, (96,))
    B, T = 2, 8
    warmup_iters, learning_rate, num_iterations, learning_rate_decay_frac = 2, 1e-3, 5, 0.0

    def get_lr(it):
        min_lr = learning_rate * learning_rate_decay_frac
        if it < warmup_iters:
            return learning_rate * (it + 1) / warmup_iters
        if it > num_iterations:
            return min_lr
        decay_ratio = (it - warmup_iters) / (num_iterations - warmup_iters)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
        return min_lr + coeff * (learning_rate - min_lr)

    # (KNOWN: the source trains under torch.autocast(device_type='cpu', dtype=torch.bfloat16),
    # whose bfloat16 flash attention leafgrad computes within rounding, not bit for bit
    # (ops/attention.py): the losses differed in the 5th digit; float32 here)
    ctx = contextlib.nullcontext()
    for step in range(num_iterations):
        buf = data[step * B * T: step * B * T + B * T + 1]
        x = buf[:-1].view(B, T); y = buf[1:].view(B, T)
        model.train()
        optimizer.zero_grad(set_to_none=True)
        with ctx:
            _, loss = model(x, y, return_logits=False)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        lr = get_lr(step)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        optimizer.step()
        print(f"step {step+1:4d}/{num_iterations} | train loss {loss.item():.6f} | norm {norm:.4f} | lr {lr:.2e}", loss.dtype)
    model.eval()
    start_ids = [0]
    xg = torch.tensor(start_ids, dtype=torch.long)[None, ...]
    yg = model.generate(xg, 6, temperature=1.0, top_k=5)
    print(yg, yg[0].tolist())
    attempt(lambda: model(torch.zeros(1, 9, dtype=torch.long)))
    with torch.no_grad():
        logits, loss = model(xg)
    print(logits.shape, loss, logits.dtype)


def ibm_tensors_and_derivatives(torch):
    # IBM/Coursera "Deep Neural Networks with PyTorch" (Santarcangelo) 1.1 tensors 1D/2D and
    # 1.2 derivatives: dtypes and type(), views, indexing and slicing assignment, simple ops,
    # derivatives with the leaf/grad_fn printouts and a custom SQ Function
    ints_to_tensor = torch.tensor([0, 1, 2, 3, 4])
    print("The dtype of tensor object after converting it to tensor: ", ints_to_tensor.dtype)
    print("The type of tensor object after converting it to tensor: ", ints_to_tensor.type())
    print(type(ints_to_tensor))
    floats_to_tensor = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    print(floats_to_tensor.dtype, floats_to_tensor.type())
    list_floats = [0.0, 1.0, 2.0, 3.0, 4.0]
    floats_int_tensor = torch.tensor(list_floats, dtype=torch.int64)
    print(floats_int_tensor.dtype, floats_int_tensor.type())
    new_float_tensor = torch.FloatTensor([0, 1, 2, 3, 4])
    print(new_float_tensor.type(), new_float_tensor)
    old_int_tensor = torch.tensor([0, 1, 2, 3, 4])
    new_float_tensor = old_int_tensor.type(torch.FloatTensor)
    print(new_float_tensor.type(), old_int_tensor.type('torch.DoubleTensor'))
    print(new_float_tensor.size(), new_float_tensor.ndimension())
    twoD_float_tensor = new_float_tensor.view(5, 1)
    print("Original Size: ", new_float_tensor, "Size after view method", twoD_float_tensor)
    print(new_float_tensor.view(-1, 1))
    numpy_array = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    new_tensor = torch.from_numpy(numpy_array)
    back_to_numpy = new_tensor.numpy()
    print(new_tensor, new_tensor.dtype, back_to_numpy, back_to_numpy.dtype)
    numpy_array[:] = 0
    print(new_tensor, back_to_numpy)
    this_tensor = torch.tensor([0, 1, 2, 3])
    print(this_tensor[0].item(), this_tensor[1].item(), this_tensor.tolist())
    tensor_sample = torch.tensor([20, 1, 2, 3, 4])
    tensor_sample[0] = 100
    print(tensor_sample, tensor_sample[1:4], tensor_sample[3:5])
    tensor_sample[3:5] = torch.tensor([300.0, 400.0])
    print(tensor_sample)
    selected_indexes = [3, 4]
    print(tensor_sample[selected_indexes])
    tensor_sample[selected_indexes] = 100000
    print(tensor_sample)
    math_tensor = torch.tensor([1.0, -1.0, 1, -1])
    print(math_tensor.mean(), math_tensor.std(), math_tensor.max(), math_tensor.min())
    pi_tensor = torch.tensor([0, np.pi / 2, np.pi])
    print(torch.sin(pi_tensor), torch.linspace(-2, 2, steps=5), torch.linspace(-2, 2, steps=9))
    u = torch.tensor([1, 2]); v = torch.tensor([3, 2])
    print(u + v, u * v, torch.dot(u, v), u + 1, 2 * u)
    attempt(lambda: torch.tensor([1, 2]) + torch.tensor([1., 2., 3.]))
    twoD_list = [[11, 12, 13], [21, 22, 23], [31, 32, 33]]
    twoD_tensor = torch.tensor(twoD_list)
    print(twoD_tensor.ndimension(), twoD_tensor.shape, twoD_tensor.size(), twoD_tensor.numel())
    twoD_numpy = twoD_tensor.numpy()
    print(twoD_numpy, twoD_numpy.dtype, torch.from_numpy(twoD_numpy).type())
    print(twoD_tensor[1, 2], twoD_tensor[1][2], twoD_tensor[0, 0:2], twoD_tensor[1:3, 1], twoD_tensor[1:3][1])
    X = torch.tensor([[1, 0], [0, 1]]); Y = torch.tensor([[2, 1], [1, 2]])
    print(X + Y, 2 * Y, X * Y)
    A = torch.tensor([[0, 1, 1], [1, 0, 1]]); B = torch.tensor([[1, 1], [1, 1], [-1, 1]])
    print(torch.mm(A, B))
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2
    y.backward()
    print('data:', x.data)
    print('grad_fn:', x.grad_fn)
    print('grad:', x.grad)
    print("is_leaf:", x.is_leaf)
    print("requires_grad:", x.requires_grad)
    print('data:', y.data)
    print('grad_fn:', y.grad_fn)
    print("is_leaf:", y.is_leaf)
    print("requires_grad:", y.requires_grad)
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2 + 2 * x + 1
    y.backward()
    print(x.grad)

    class SQ(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i ** 2
            ctx.save_for_backward(i)
            return result
        @staticmethod
        def backward(ctx, grad_output):
            i, = ctx.saved_tensors
            grad_output = 2 * i
            return grad_output

    x = torch.tensor(2.0, requires_grad=True)
    sq = SQ.apply
    y = sq(x)
    print(y, y.grad_fn)
    y.backward()
    print(x.grad)
    u = torch.tensor(1.0, requires_grad=True)
    v = torch.tensor(2.0, requires_grad=True)
    f = u * v + u ** 2
    print("The result of v * u + u^2: ", f)
    f.backward()
    print("The partial derivative with respect to u: ", u.grad)
    print("The partial derivative with respect to u: ", v.grad)
    x = torch.linspace(-10, 10, 10, requires_grad=True)
    Y = x ** 2
    y = torch.sum(x ** 2)
    y.backward()
    print(x.detach().numpy(), Y.detach().numpy(), x.grad.numpy())
    attempt(lambda: Y.numpy())
    x = torch.linspace(-10, 10, 10, requires_grad=True)
    Y = torch.relu(x)
    y = Y.sum()
    y.backward()
    print(x.grad, y.grad_fn, Y.grad_fn)
    attempt(lambda: Y.backward())


def ibm_dataset_and_linear_regression(torch):
    # IBM/Coursera DNN with PyTorch 1.3 datasets with transforms, 2.x prediction with
    # nn.Linear and a custom LR module, the Data class and SGD / mini-batch / optim training,
    # training vs validation over learning rates, multiple outputs
    nn = torch.nn
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader
    torch.manual_seed(1)

    class toy_set(Dataset):
        def __init__(self, length=100, transform=None):
            self.len = length
            self.x = 2 * torch.ones(length, 2)
            self.y = torch.ones(length, 1)
            self.transform = transform
        def __getitem__(self, index):
            sample = self.x[index], self.y[index]
            if self.transform:
                sample = self.transform(sample)
            return sample
        def __len__(self):
            return self.len

    our_dataset = toy_set()
    print("Our toy_set object: ", our_dataset)
    print("Value on index 0 of our toy_set object: ", our_dataset[0])
    print("Our toy_set length: ", len(our_dataset))
    for i in range(3):
        x, y = our_dataset[i]
        print("index: ", i, '; x:', x, '; y:', y)

    class add_mult(object):
        def __init__(self, addx=1, muly=2):
            self.addx = addx
            self.muly = muly
        def __call__(self, sample):
            x = sample[0]; y = sample[1]
            x = x + self.addx
            y = y * self.muly
            return x, y

    class mult(object):
        def __init__(self, mult=100):
            self.mult = mult
        def __call__(self, sample):
            x = sample[0]; y = sample[1]
            return x * self.mult, y * self.mult

    class Compose:
        def __init__(self, transforms):
            self.transforms = transforms
        def __call__(self, sample):
            for t in self.transforms:
                sample = t(sample)
            return sample

    cust_data_set = toy_set(transform=add_mult())
    print(cust_data_set[0], toy_set(transform=Compose([add_mult(), mult()]))[1])
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(-1.0, requires_grad=True)

    def forward(x):
        return w * x + b

    x = torch.tensor([[1.0]])
    print("The prediction: ", forward(x))
    x = torch.tensor([[1.0], [2.0]])
    print("The prediction: ", forward(x))
    lr = nn.Linear(in_features=1, out_features=1, bias=True)
    print("Parameters w and b: ", list(lr.parameters()))
    print("Python dictionary: ", lr.state_dict())
    print("keys: ", lr.state_dict().keys())
    print("values: ", lr.state_dict().values())
    print("weight:", lr.weight)
    print("bias:", lr.bias)
    print("The prediction: ", lr(torch.tensor([[1.0]])), lr(torch.tensor([[1.0], [2.0]])))

    class LR(nn.Module):
        def __init__(self, input_size, output_size):
            super(LR, self).__init__()
            self.linear = nn.Linear(input_size, output_size)
        def forward(self, x):
            return self.linear(x)

    lr = LR(1, 1)
    print("The parameters: ", list(lr.parameters()))
    print("Linear model: ", lr.linear)
    print("Python dictionary: ", lr.state_dict())

    class Data(Dataset):
        def __init__(self, train=True):
            self.x = torch.arange(-3, 3, 0.5).view(-1, 1)
            self.f = -3 * self.x + 1
            self.y = self.f + 0.1 * torch.randn(self.x.size())
            self.len = self.x.shape[0]
            if train:
                self.y[0] = 0
                self.y[5:7] = 20
        def __getitem__(self, index):
            return self.x[index], self.y[index]
        def __len__(self):
            return self.len

    dataset = Data()
    print("The length of dataset: ", len(dataset), dataset[0], dataset[:3])
    val_data = Data(train=False)
    criterion = nn.MSELoss()
    trainloader = DataLoader(dataset=dataset, batch_size=4)
    learning_rates = [0.0001, 0.001, 0.01, 0.1]
    train_error = torch.zeros(len(learning_rates))
    validation_error = torch.zeros(len(learning_rates))
    MODELS = []

    def train_model_with_lr(iter, lr_list):
        for i, lr in enumerate(lr_list):
            model = LR(1, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=lr)
            for epoch in range(iter):
                for x, y in trainloader:
                    yhat = model(x)
                    loss = criterion(yhat, y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            Yhat = model(dataset.x)
            train_loss = criterion(Yhat, dataset.y)
            train_error[i] = train_loss.item()
            Yhat = model(val_data.x)
            val_loss = criterion(Yhat, val_data.y)
            validation_error[i] = val_loss.item()
            MODELS.append(model)

    train_model_with_lr(4, learning_rates)
    print(train_error, validation_error)
    for model, learning_rate in zip(MODELS, learning_rates):
        yhat = model(val_data.x)
        print(learning_rate, yhat.detach().numpy()[:3].ravel())
    model = LR(1, 1)
    model.state_dict()['linear.weight'][0] = -15
    model.state_dict()['linear.bias'][0] = -10
    print(model.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    print(optimizer.state_dict())

    class Data2D(Dataset):
        def __init__(self):
            self.x = torch.zeros(8, 2)
            self.x[:, 0] = torch.arange(-1, 1, 0.25)
            self.x[:, 1] = torch.arange(-1, 1, 0.25)
            self.w = torch.tensor([[1.0, -1.0], [1.0, 3.0]])
            self.b = torch.tensor([[1.0, -1.0]])
            self.f = torch.mm(self.x, self.w) + self.b
            self.y = self.f + 0.001 * torch.randn((self.x.shape[0], 1))
            self.len = self.x.shape[0]
        def __getitem__(self, index):
            return self.x[index], self.y[index]
        def __len__(self):
            return self.len

    data_set = Data2D()
    model = LR(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = DataLoader(dataset=data_set, batch_size=3)
    LOSS = []
    for epoch in range(5):
        for x, y in train_loader:
            yhat = model(x)
            loss = criterion(yhat, y)
            LOSS.append(loss.item())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print(['%.5f' % l for l in LOSS[-3:]], model.state_dict())


def ibm_logistic_softmax(torch):
    # IBM/Coursera DNN with PyTorch 3.x/4.x: logistic regression with nn.Sequential and a
    # custom module, bad initialisation with the hand-written cross entropy vs BCELoss,
    # softmax regression with torch.max predictions, dropout and momentum comparisons
    nn = torch.nn
    torch.manual_seed(2)
    z = torch.arange(-10, 10, 2.5).view(-1, 1)
    sig = nn.Sigmoid()
    yhat = sig(z)
    print(yhat, torch.sigmoid(z).equal(yhat))
    x = torch.tensor([[1.0]])
    X = torch.tensor([[1.0], [100]])
    model = nn.Sequential(nn.Linear(1, 1), nn.Sigmoid())
    print("list(model.parameters()):\n ", list(model.parameters()))
    print("\nmodel.state_dict():\n ", model.state_dict())
    print(model(x), model(X))

    class logistic_regression(nn.Module):
        def __init__(self, n_inputs):
            super(logistic_regression, self).__init__()
            self.linear = nn.Linear(n_inputs, 1)
        def forward(self, x):
            return torch.sigmoid(self.linear(x))

    model = logistic_regression(1)
    print(model(x), model(X))

    class Data(torch.utils.data.Dataset):
        def __init__(self):
            self.x = torch.arange(-1, 1, 0.2).view(-1, 1)
            self.y = torch.zeros(self.x.shape[0], 1)
            self.y[self.x[:, 0] > 0.2] = 1
            self.len = self.x.shape[0]
        def __getitem__(self, index):
            return self.x[index], self.y[index]
        def __len__(self):
            return self.len

    data_set = Data()
    print(data_set.y.T)
    model = logistic_regression(1)
    model.state_dict()['linear.weight'].data[0] = torch.tensor([[-5]])
    model.state_dict()['linear.bias'].data[0] = torch.tensor([-10])
    print("The parameters: ", model.state_dict())

    def criterion(yhat, y):
        out = -1 * torch.mean(y * torch.log(yhat) + (1 - y) * torch.log(1 - yhat))
        return out

    trainloader = torch.utils.data.DataLoader(dataset=data_set, batch_size=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=2)
    for epoch in range(5):
        for x, y in trainloader:
            yhat = model(x)
            loss = criterion(yhat, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    yhat = model(data_set.x)
    label = yhat > 0.5
    print("The accuracy: ", torch.mean((label == data_set.y.type(torch.ByteTensor)).type(torch.float)))
    print(torch.mean((label == data_set.y).type(torch.float)), nn.BCELoss()(yhat, data_set.y), criterion(yhat, data_set.y))
    attempt(lambda: label == data_set.y.type(torch.ByteTensor))
    print((label == data_set.y.type(torch.ByteTensor)).dtype, data_set.y.type(torch.ByteTensor).type())

    class SoftMax(nn.Module):
        def __init__(self, input_size, output_size):
            super(SoftMax, self).__init__()
            self.linear = nn.Linear(input_size, output_size)
        def forward(self, x):
            return self.linear(x)

    class Data3(torch.utils.data.Dataset):
        def __init__(self):
            self.x = torch.arange(-2, 2, 0.25).view(-1, 1)
            self.y = torch.zeros(self.x.shape[0])
            self.y[(self.x > -1.0)[:, 0] * (self.x < 1.0)[:, 0]] = 1
            self.y[(self.x >= 1.0)[:, 0]] = 2
            self.y = self.y.type(torch.LongTensor)
            self.len = self.x.shape[0]
        def __getitem__(self, index):
            return self.x[index], self.y[index]
        def __len__(self):
            return self.len

    data_set = Data3()
    print(data_set.y, data_set[0:3])
    model = nn.Sequential(nn.Linear(1, 3))
    print(model.state_dict())
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    trainloader = torch.utils.data.DataLoader(dataset=data_set, batch_size=5)
    for epoch in range(5):
        for x, y in trainloader:
            optimizer.zero_grad()
            yhat = model(x)
            loss = criterion(yhat, y)
            loss.backward()
            optimizer.step()
    z = model(data_set.x)
    _, yhat = z.max(1)
    print("The prediction:", yhat)
    correct = (data_set.y == yhat).sum().item()
    accuracy = correct / len(data_set)
    print("The accuracy: ", accuracy)
    Softmax_fn = nn.Softmax(dim=-1)
    Probability = Softmax_fn(z)
    for i in range(3):
        print("probability of class {} isg given by  {}".format(i, Probability[0, i]))
    print(torch.max(z.data, 1), z.data.max(1).indices.dtype)

    class Net(nn.Module):
        def __init__(self, in_size, n_hidden, out_size, p=0):
            super(Net, self).__init__()
            self.drop = nn.Dropout(p=p)
            self.linear1 = nn.Linear(in_size, n_hidden)
            self.linear2 = nn.Linear(n_hidden, n_hidden)
            self.linear3 = nn.Linear(n_hidden, out_size)
        def forward(self, x):
            x = torch.relu(self.drop(self.linear1(x)))
            x = torch.relu(self.drop(self.linear2(x)))
            return self.linear3(x)

    model_drop = Net(1, 6, 3, p=0.5)
    model_drop.train()
    opt = torch.optim.Adam(model_drop.parameters(), lr=0.01)
    for epoch in range(3):
        yhat = model_drop(data_set.x)
        loss = criterion(yhat, data_set.y)
        opt.zero_grad(); loss.backward(); opt.step()
        print(epoch, loss.item())
    model_drop.eval()
    print(model_drop(data_set.x[:3]), model_drop.training, model_drop.drop)


def kaggle_pytorch_for_deep_learning_lovers(torch):
    # kanncaa1's Kaggle notebook "Pytorch Tutorial for Deep Learning Lovers": numpy vs torch
    # basics, Variable autograd, linear and logistic regression, an ANN (KNOWN: its first cell
    # prints the bound method tensor.type, a C builtin in torch: printed called here)
    nn = torch.nn
    Variable = torch.autograd.Variable
    array = [[1, 2, 3], [4, 5, 6]]
    first_array = np.array(array)
    print("Array Type: {}".format(type(first_array)))
    print("Array Shape: {}".format(np.shape(first_array)))
    print(first_array)
    tensor = torch.Tensor(array)
    print("Array Type: {}".format(tensor.type()))
    print("Array Shape: {}".format(tensor.shape))
    print(tensor)
    print("Numpy {}\n".format(np.ones((2, 3))))
    print(torch.ones((2, 3)))
    array = np.random.RandomState(0).rand(2, 2)
    from_numpy_to_tensor = torch.from_numpy(array)
    print("{}\n".format(from_numpy_to_tensor))
    tensor = from_numpy_to_tensor
    from_tensor_to_numpy = tensor.numpy()
    print("{} {}\n".format(type(from_tensor_to_numpy), from_tensor_to_numpy))
    tensor = torch.ones(3, 3)
    print("\n", tensor)
    print("{}{}\n".format(tensor.view(9).shape, tensor.view(9)))
    print("Addition: {}\n".format(torch.add(tensor, tensor)))
    print("Subtraction: {}\n".format(tensor.sub(tensor)))
    print("Element wise multiplication: {}\n".format(torch.mul(tensor, tensor)))
    print("Element wise division: {}\n".format(torch.div(tensor, tensor)))
    tensor = torch.Tensor([1, 2, 3, 4, 5])
    print("Mean: {}".format(tensor.mean()))
    print("std: {}".format(tensor.std()))
    var = Variable(torch.ones(3), requires_grad=True)
    print(var)
    array = [2, 4]
    tensor = torch.Tensor(array)
    x = Variable(tensor, requires_grad=True)
    y = x ** 2
    print(" y =  ", y)
    o = (1 / 2) * sum(y)
    print(" o =  ", o)
    o.backward()
    print("gradients: ", x.grad)
    car_prices_array = [3, 4, 5, 6, 7, 8, 9]
    car_price_np = np.array(car_prices_array, dtype=np.float32).reshape(-1, 1)
    car_price_tensor = Variable(torch.from_numpy(car_price_np))
    number_of_car_sell_array = [7.5, 7, 6.5, 6.0, 5.5, 5.0, 4.5]
    number_of_car_sell_np = np.array(number_of_car_sell_array, dtype=np.float32).reshape(-1, 1)
    number_of_car_sell_tensor = Variable(torch.from_numpy(number_of_car_sell_np))

    class LinearRegression(nn.Module):
        def __init__(self, input_size, output_size):
            super(LinearRegression, self).__init__()
            self.linear = nn.Linear(input_dim, output_dim)
        def forward(self, x):
            return self.linear(x)

    torch.manual_seed(0)
    input_dim = 1
    output_dim = 1
    model = LinearRegression(input_dim, output_dim)
    mse = nn.MSELoss()
    learning_rate = 0.02
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    loss_list = []
    iteration_number = 201
    for iteration in range(iteration_number):
        optimizer.zero_grad()
        results = model(car_price_tensor)
        loss = mse(results, number_of_car_sell_tensor)
        loss.backward()
        optimizer.step()
        loss_list.append(loss.data)
        if iteration % 50 == 0:
            print('epoch {}, loss {}'.format(iteration, loss.data))
    predicted = model(car_price_tensor).data.numpy()
    print(predicted.ravel(), loss_list[-1], type(loss_list[-1]))
    train = torch.utils.data.TensorDataset(torch.rand(20, 16), torch.randint(0, 10, (20,)))
    train_loader = torch.utils.data.DataLoader(train, batch_size=8, shuffle=False)

    class ANNModel(nn.Module):
        def __init__(self, input_dim, hidden_dim, output_dim):
            super(ANNModel, self).__init__()
            self.fc1 = nn.Linear(input_dim, hidden_dim)
            self.relu1 = nn.ReLU()
            self.fc2 = nn.Linear(hidden_dim, hidden_dim)
            self.tanh2 = nn.Tanh()
            self.fc3 = nn.Linear(hidden_dim, hidden_dim)
            self.elu3 = nn.ELU()
            self.fc4 = nn.Linear(hidden_dim, output_dim)
        def forward(self, x):
            out = self.relu1(self.fc1(x))
            out = self.tanh2(self.fc2(out))
            out = self.elu3(self.fc3(out))
            return self.fc4(out)

    model = ANNModel(16, 12, 10)
    error = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
    count = 0
    for epoch in range(3):
        for i, (images, labels) in enumerate(train_loader):
            train = Variable(images.view(-1, 16))
            labels = Variable(labels)
            optimizer.zero_grad()
            outputs = model(train)
            loss = error(outputs, labels)
            loss.backward()
            optimizer.step()
            count += 1
            if count % 2 == 0:
                correct = 0
                total = 0
                for images, labels in train_loader:
                    outputs = model(Variable(images.view(-1, 16)))
                    predicted = torch.max(outputs.data, 1)[1]
                    total += len(labels)
                    correct += (predicted == labels).sum()
                accuracy = 100 * correct / float(total)
                print('Iteration: {}  Loss: {}  Accuracy: {} %'.format(count, loss.data, accuracy))


def numerical_accuracy_note(torch):
    # PyTorch docs "Numerical accuracy" note: reduction order, extremal values, TF32 and
    # reduced-precision flags, float32 matmul precision, batched vs sliced computations
    a = torch.tensor([1e-16, 1.0, -1.0])
    print(a.sum(), a.flip(0).sum(), (1e-16 + 1.0) - 1.0)
    print(torch.tensor(3.4e38, dtype=torch.float32) * 2, torch.finfo(torch.float32).max, torch.finfo(torch.float16).tiny)
    print(torch.finfo(torch.bfloat16), torch.iinfo(torch.int8))
    print(torch.tensor([2**24 + 1], dtype=torch.float32), torch.tensor(2**24, dtype=torch.float32) + 1)
    print(torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
          torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
          torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction)
    print(torch.get_float32_matmul_precision())
    torch.set_float32_matmul_precision("high")
    print(torch.get_float32_matmul_precision())
    torch.set_float32_matmul_precision("highest")
    attempt(lambda: torch.set_float32_matmul_precision("low"))
    torch.manual_seed(0)
    A = torch.randn(4, 16, 8)
    B = torch.randn(4, 8, 16)
    full = A @ B
    sliced = torch.stack([A[i] @ B[i] for i in range(4)])
    print((full - sliced).abs().max(), torch.equal(full[0], A[0] @ B[0]))
    x = torch.randn(1000, dtype=torch.float32)
    print(x.sum(), x.double().sum().float(), x.cumsum(0)[-1], x.sort().values.sum())
    print(torch.tensor(1e-45), torch.tensor(1e-46), torch.tensor([1e-45]).abs() > 0, torch.tensor(float('nan')) == torch.tensor(float('nan')))
    h = torch.tensor([65504.], dtype=torch.float16)
    print(h + 16, h * 2, h.float() * 2, torch.tensor([1e-8], dtype=torch.float16))
    print(torch.tensor([0.1], dtype=torch.float64).item() == 0.1, torch.tensor([0.1]).item(), torch.tensor([0.1]).item() == 0.1)
    print(torch.tensor([0.1, 0.2]).sum() == 0.3, torch.isclose(torch.tensor([0.1, 0.2]).sum(), torch.tensor(0.3)))
    print(torch.allclose(torch.tensor([1., 2.]), torch.tensor([1. + 1e-9, 2.])), torch.tensor(1 / 3).double())
    print(torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode())


def d2l_gpus(torch):
    # d2l-en chapter_builders-guide/use-gpu: devices on a CPU-only machine
    nn = torch.nn
    print(torch.device('cpu'), torch.device('cuda'), torch.device('cuda:1'), repr(torch.device('cuda', 1)))
    print(torch.cuda.device_count())

    def try_gpu(i=0):
        if torch.cuda.device_count() >= i + 1:
            return torch.device(f'cuda:{i}')
        return torch.device('cpu')

    def try_all_gpus():
        return [torch.device(f'cuda:{i}') for i in range(torch.cuda.device_count())]

    print(try_gpu(), try_gpu(10), try_all_gpus())
    x = torch.tensor([1, 2, 3])
    print(x.device, x.is_cuda, x.get_device())
    X = torch.ones(2, 3, device=try_gpu())
    print(X, X.device.type, X.device.index)
    attempt(lambda: torch.rand(2, 3, device=torch.device('cuda:1')))
    attempt(lambda: X.cuda(1))
    attempt(lambda: X.to('cuda'))
    Z = X.cpu()
    print(Z is X, X.to('cpu') is X, X.to(try_gpu()) is X)
    torch.manual_seed(0)
    net = nn.Sequential(nn.LazyLinear(1))
    net = net.to(device=try_gpu())
    print(net(X), net[0].weight.data.device)
    print(torch.device('cpu') == 'cpu', torch.device('cpu:0') == torch.device('cpu'), torch.device('cpu', 0))
    attempt(lambda: torch.device('gpu'))
    attempt(lambda: torch.device('cuda:-1'))
    attempt(lambda: torch.device('cpu', -2))
    print(str(torch.device('cuda:0')), torch.device('cuda:0').type, torch.device('cuda:0').index, torch.device('cpu').index)
    with torch.device('cpu'):
        print(torch.ones(1).device)
    print(torch.cuda.is_available(), torch.cuda.is_initialized())
    attempt(lambda: torch.cuda.current_device())
    attempt(lambda: torch.cuda.get_device_name(0))


def kaggle_autograd_basics(torch):
    # Kaggle-style "PyTorch autograd basics": requires_grad_, grad accumulation and zero_,
    # higher-order derivatives with create_graph, no_grad / set_grad_enabled / inference_mode,
    # detach, torch.autograd.grad with allow_unused and the functional jacobian/hessian
    x = torch.tensor([1.0, 2.0, 3.0])
    print(x.requires_grad)
    x.requires_grad_()
    y = (x ** 3).sum()
    dy, = torch.autograd.grad(y, x, create_graph=True)
    print(dy, dy.requires_grad, dy.grad_fn)
    d2y, = torch.autograd.grad(dy.sum(), x, create_graph=True)
    print(d2y, d2y.grad_fn)
    d3y, = torch.autograd.grad(d2y.sum(), x)
    print(d3y, d3y.grad_fn)
    z = (x * 2).sum()
    z.backward(retain_graph=True)
    z.backward()
    print(x.grad)
    x.grad.zero_()
    print(x.grad)
    attempt(lambda: z.backward())
    with torch.no_grad():
        w = x * 2
    print(w.requires_grad)
    with torch.set_grad_enabled(False):
        print((x * 2).requires_grad)
    print(torch.is_grad_enabled())
    torch.set_grad_enabled(False)
    print((x + 1).requires_grad, torch.is_grad_enabled())
    torch.set_grad_enabled(True)
    with torch.inference_mode():
        inf = x * 3
    print(inf.requires_grad, inf.is_inference(), torch.is_inference_mode_enabled())
    attempt(lambda: inf.requires_grad_())
    attempt(lambda: (inf * x).sum().backward())
    d = x.detach()
    d[0] = 10.
    print(x, d)
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    attempt(lambda: torch.autograd.grad(a * 2, [a, b]))
    print(torch.autograd.grad(a * 2, [a, b], allow_unused=True))
    print(torch.autograd.grad(a * 2, [a, b], allow_unused=True, materialize_grads=True))
    f = lambda v: (v ** 2).sum() * v[0]
    v = torch.tensor([1., 2.])
    print(torch.autograd.functional.jacobian(lambda v: v ** 2 * v[0], v))
    print(torch.autograd.functional.hessian(f, v))
    print(torch.autograd.functional.vjp(lambda v: v ** 2, v, torch.ones(2)))
    print(torch.autograd.functional.jvp(lambda v: v ** 2, v, torch.ones(2)))
    print(torch.autograd.functional.hvp(f, v, torch.ones(2)))
    attempt(lambda: torch.autograd.grad(torch.ones(2, requires_grad=True) * 2, a))
    q = torch.ones(2, requires_grad=True)
    attempt(lambda: (q * 2).backward())
    (q * 2).backward(torch.tensor([1., 0.5]))
    print(q.grad)
    attempt(lambda: (q * 2).backward(torch.ones(3)))
    print(torch.autograd.grad((q * q).sum(), q, grad_outputs=torch.tensor(2.)))


def fx_graphmodule_api(torch):
    # torch.fx docs: GraphModule's code/graph, copying and pickling it, the Interpreter's
    # argument fetching and node-by-node run, Graph.print_tabular without tabulate, find_nodes,
    # format_node, Node.replace_input_with, inserting get_attr and a call_module by hand
    fx = torch.fx; nn = torch.nn
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(torch.rand(3, 4))
            self.linear = nn.Linear(4, 5)
        def forward(self, x):
            return self.linear(x + self.param).clamp(min=0.0, max=1.0)

    gm = fx.symbolic_trace(M())
    print(gm.graph)
    for node in gm.graph.nodes:
        print(node.format_node())
    print(gm.graph.find_nodes(op='call_module'), gm.graph.find_nodes(op='call_method', target='clamp'))
    attempt(lambda: gm.graph.print_tabular())
    gm2 = copy.deepcopy(gm)
    x = torch.randn(3, 4)
    print(torch.equal(gm2(x), gm(x)), gm2.param is gm.param, type(gm2).__name__)
    buf = io.BytesIO()
    torch.save(gm, buf)
    buf.seek(0)
    gm3 = torch.load(buf, weights_only=False)
    print(torch.equal(gm3(x), gm(x)), gm3.code == gm.code)
    gm4 = pickle.loads(pickle.dumps(gm))
    print(torch.equal(gm4(x), gm(x)))
    interp = fx.Interpreter(gm)
    print(interp.run(x)[0])
    g = gm.graph
    add_node = next(n for n in g.nodes if n.name == 'add')
    with g.inserting_before(add_node):
        p = g.get_attr('param')
        neg = g.call_function(torch.neg, (p,))
    add_node.replace_input_with(list(add_node.args)[1], neg)
    g.eliminate_dead_code()
    g.lint()
    gm.recompile()
    print(gm.code)
    print(gm(x)[0], torch.equal(gm(x), gm.linear(x - gm.param).clamp(0.0, 1.0)))
    attempt(lambda: g.call_module('relu', (add_node,)))
    print(len(g.nodes))
    print(g.get_attr('missing.attr'), g.get_attr('nothing'), g.get_attr('linear.weight'))
    gm.add_submodule('relu', nn.ReLU())
    gm.register_buffer('buf', torch.ones(1))
    gm.plain = 3
    print(g.get_attr('buf'), g.get_attr('plain'), g.get_attr('relu'))
    for n in list(g.nodes):
        if n.op == 'get_attr' and not n.users:
            g.erase_node(n)
    with g.inserting_after(add_node):
        relu = g.call_module('relu', (add_node,))
    add_node.replace_all_uses_with(relu, delete_user_cb=lambda user: user is not relu)
    g.eliminate_dead_code()
    g.lint()
    gm.recompile()
    print(gm)
    print(gm(x)[0])
    attempt(lambda: g.erase_node(add_node))
    attempt(lambda: fx.symbolic_trace(M())(x, x))


def training_loop_blog(torch):
    # A "plain PyTorch training loop" blog post (no Lightning): train/validate functions,
    # gradient accumulation, clip_grad_value_, OneCycleLR stepped per batch, an EarlyStopping
    # class keeping the best state_dict with deepcopy, and a checkpoint dict saved and resumed
    nn = torch.nn
    torch.manual_seed(0)
    X = torch.randn(48, 6)
    y = (X[:, 0] - 2 * X[:, 1] > 0).long()
    train_ds = torch.utils.data.TensorDataset(X[:32], y[:32])
    val_ds = torch.utils.data.TensorDataset(X[32:], y[32:])
    train_loader = torch.utils.data.DataLoader(train_ds, batch_size=8, shuffle=True)
    val_loader = torch.utils.data.DataLoader(val_ds, batch_size=8)
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 2))
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
    accum_steps = 2
    epochs = 4
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-2, epochs=epochs,
                                                    steps_per_epoch=len(train_loader) // accum_steps)

    class EarlyStopping:
        def __init__(self, patience=2, min_delta=0.0):
            self.patience, self.min_delta = patience, min_delta
            self.best_loss, self.counter, self.best_state = float('inf'), 0, None
        def __call__(self, val_loss, model):
            if val_loss < self.best_loss - self.min_delta:
                self.best_loss = val_loss
                self.counter = 0
                self.best_state = copy.deepcopy(model.state_dict())
            else:
                self.counter += 1
            return self.counter >= self.patience

    def train_one_epoch():
        model.train()
        running, correct, seen = 0.0, 0, 0
        optimizer.zero_grad(set_to_none=True)
        for step, (xb, yb) in enumerate(train_loader):
            logits = model(xb)
            loss = criterion(logits, yb) / accum_steps
            loss.backward()
            if (step + 1) % accum_steps == 0:
                nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
            running += loss.item() * accum_steps * xb.size(0)
            correct += (logits.argmax(dim=1) == yb).sum().item()
            seen += xb.size(0)
        return running / seen, correct / seen

    @torch.no_grad()
    def evaluate():
        model.eval()
        total, correct, n = 0.0, 0, 0
        for xb, yb in val_loader:
            logits = model(xb)
            total += criterion(logits, yb).item() * xb.size(0)
            correct += (logits.argmax(1) == yb).sum().item()
            n += xb.size(0)
        return total / n, correct / n

    stopper = EarlyStopping(patience=2)
    for epoch in range(epochs):
        tl, ta = train_one_epoch()
        vl, va = evaluate()
        print(f"epoch {epoch}: train {tl:.4f}/{ta:.3f} val {vl:.4f}/{va:.3f} lr {scheduler.get_last_lr()[0]:.6f}")
        if stopper(vl, model):
            print("early stop")
            break
    print(stopper.best_loss, stopper.counter, list(stopper.best_state)[:2], optimizer.param_groups[0]['lr'])
    model.load_state_dict(stopper.best_state)
    ckpt = {"epoch": epoch, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
            "scheduler_state_dict": scheduler.state_dict(), "loss": vl}
    buf = io.BytesIO()
    torch.save(ckpt, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=True)
    model2 = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 2))
    opt2 = torch.optim.AdamW(model2.parameters(), lr=1e-2, weight_decay=1e-2)
    sched2 = torch.optim.lr_scheduler.OneCycleLR(opt2, max_lr=5e-2, epochs=epochs, steps_per_epoch=2)
    print(model2.load_state_dict(loaded["model_state_dict"]))
    opt2.load_state_dict(loaded["optimizer_state_dict"])
    sched2.load_state_dict(loaded["scheduler_state_dict"])
    print(loaded["epoch"], loaded["loss"], sched2.get_last_lr(), opt2.state_dict()["param_groups"][0]["lr"], sched2.last_epoch)
    print(sorted(loaded["scheduler_state_dict"])[:6])
    attempt(lambda: [sched2.step() for _ in range(10)])


def activation_checkpointing(torch):
    # torch.utils.checkpoint walkthroughs: checkpoint with use_reentrant=False and True,
    # checkpoint_sequential, the missing-use_reentrant error, RNG state preserved through
    # dropout, and gradients equal to the plain run
    nn = torch.nn
    cp = torch.utils.checkpoint
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 4))
    x = torch.randn(3, 4, requires_grad=True)
    torch.manual_seed(1)
    ref = block(x)
    ref.sum().backward()
    g_ref = x.grad.clone(); w_ref = block[0].weight.grad.clone()
    x.grad = None; block.zero_grad()
    torch.manual_seed(1)
    out = cp.checkpoint(block, x, use_reentrant=False)
    print(out.grad_fn, torch.equal(out, ref))
    out.sum().backward()
    print(torch.equal(x.grad, g_ref), torch.equal(block[0].weight.grad, w_ref))
    attempt(lambda: cp.checkpoint(block, x))
    x.grad = None; block.zero_grad()
    torch.manual_seed(1)
    out = cp.checkpoint(block, x, use_reentrant=True)
    print(out.grad_fn, torch.equal(out, ref))
    out.sum().backward()
    print(torch.equal(x.grad, g_ref), torch.equal(block[0].weight.grad, w_ref))
    seq = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.ReLU()) for _ in range(4)])
    y = cp.checkpoint_sequential(seq, 2, x, use_reentrant=False)
    y.sum().backward()
    print(y[0], seq[0][0].weight.grad[0])
    attempt(lambda: cp.checkpoint_sequential(seq, 2, x))
    with torch.no_grad():
        z = cp.checkpoint(block, x, use_reentrant=False)
    print(z.requires_grad)
    xi = torch.randn(3, 4)
    out = cp.checkpoint(block, xi, use_reentrant=True)
    print(out.requires_grad)


SNIPPETS = [fx_conv_bn_fuser, fx_profiling_interpreter, fx_graph_manipulation,
            fx_replace_pattern_shape_prop, fx_symbolic_trace_limits, leaf_vs_nonleaf,
            optimizer_step_in_backward, reasoning_about_shapes, visualizing_gradients,
            chatbot_encoder_attention, llms_appendix_a, fx_decompose_retrace,
            fastbook_mnist_basics, fastbook_foundations, cs224n_pytorch_tutorial, llmc_train_gpt2,
            ibm_tensors_and_derivatives, ibm_dataset_and_linear_regression, ibm_logistic_softmax,
            kaggle_pytorch_for_deep_learning_lovers, numerical_accuracy_note, d2l_gpus,
            kaggle_autograd_basics, fx_graphmodule_api, training_loop_blog,
            activation_checkpointing]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.__name__)
def test_tutorial_prints_as_torch(snippet, default_validation):
    assert first_difference(snippet, lg, torch) is None


# -- one test per defect found, sweeping its class --------------------------------------------


def test_fx_passes_modules_are_attributes_as_torch():
    # The FX tutorials reach ShapeProp as torch.fx.passes.shape_prop.ShapeProp after a plain
    # `import torch` (torch's torch/fx/passes/__init__.py imports its pass modules); leafgrad's
    # package imported none ("module 'torch.fx.passes' has no attribute 'shape_prop'").
    for name in ["shape_prop"]:
        assert hasattr(torch.fx.passes, name)
        assert getattr(lg.fx.passes, name).ShapeProp.__name__ == "ShapeProp"


def _packed_run(m, mode, bidirectional, batch_first, lengths, dtype, proj):
    """A packed sequence through a 2-layer recurrent module with dropout between the layers:
    the outputs, the final states, every gradient and the next random draw."""
    m.manual_seed(0)
    kwargs = {"proj_size": 2} if proj else {}
    module = getattr(m.nn, mode)(3, 4, 2, dropout=0.5, bidirectional=bidirectional,
                                 batch_first=batch_first, **kwargs).to(dtype)
    shape = (len(lengths), 5, 3) if batch_first else (5, len(lengths), 3)
    x = m.randn(shape, dtype=dtype, requires_grad=True)
    packed = m.nn.utils.rnn.pack_padded_sequence(x, m.tensor(lengths), batch_first=batch_first,
                                                 enforce_sorted=False)
    out, state = module(packed)
    states = state if isinstance(state, tuple) else (state,)
    (out.data.sum() + sum(s.sum() for s in states)).backward()
    values = [out.data, *states, x.grad, *[p.grad for p in module.parameters()]]
    return [v.detach().numpy() for v in values], m.rand(2).numpy()


def test_packed_recurrent_dropout_draws_as_torch():
    # The chatbot tutorial's EncoderRNN: a 2-layer GRU with dropout=0.1 fed a PackedSequence.
    # torch drops out the packed layer output (sum(batch_sizes) rows), leafgrad dropped out the
    # padded (steps, batch, ...) tensor: other masks, other draws after (the loss differed in
    # the 3rd digit).
    cases = itertools.product(["RNN", "GRU", "LSTM"], [False, True], [False, True],
                              [[5, 3, 2], [2, 5, 4]], [lg.float32, lg.float64], [False, True])
    for mode, bidirectional, batch_first, lengths, dtype, proj in cases:
        if proj and mode != "LSTM":
            continue
        tdtype = getattr(torch, str(dtype).split(".")[1])
        got, got_next = _packed_run(lg, mode, bidirectional, batch_first, lengths, dtype, proj)
        want, want_next = _packed_run(torch, mode, bidirectional, batch_first, lengths, tdtype,
                                      proj)
        case = (mode, bidirectional, batch_first, lengths, dtype, proj)
        assert np.array_equal(got_next, want_next), case
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=str(case))


def _half_backward_outcomes(m, dtype_name):
    """Each reduced-float activation backward's gradient bits, layout and dtype, per call form
    and input shape (contiguous, transposed, 0-d and empty)."""
    F = m.nn.functional
    dtype = getattr(m, dtype_name)
    forms = {"tanh": lambda x: x.tanh(), "torch.tanh": lambda x: m.tanh(x),
             "F.tanh": lambda x: F.tanh(x), "nn.Tanh": lambda x: m.nn.Tanh()(x),
             "tanh_": lambda x: x.clone().tanh_(), "silu": lambda x: F.silu(x),
             "nn.SiLU": lambda x: m.nn.SiLU()(x), "softplus": lambda x: F.softplus(x),
             "softplus(beta=2, threshold=1)": lambda x: F.softplus(x, 2.0, 1.0),
             "nn.Softplus": lambda x: m.nn.Softplus(beta=0.5)(x), "elu": lambda x: F.elu(x),
             "nn.ELU(alpha=2)": lambda x: m.nn.ELU(alpha=2.0)(x), "selu": lambda x: F.selu(x),
             "celu(alpha=0.5)": lambda x: F.celu(x, 0.5)}
    shapes = {"4x16": lambda t: t, "transposed": lambda t: t.t(), "0-d": lambda t: t[1, 2],
              "empty": lambda t: t[:0]}
    base = m.linspace(-6, 6, 64).view(4, 16)
    grad_base = m.linspace(-1, 1.5, 64).view(4, 16).flip(1)
    out = {}
    for (form, f), (shape, view) in itertools.product(forms.items(), shapes.items()):
        x = view(base.to(dtype)).detach().requires_grad_()
        y = f(x)
        y.backward(view(grad_base.to(dtype)))
        out[form, shape] = (x.grad.float().tolist(), x.grad.stride(), str(x.grad.dtype).split(".")[1])
    return out


def test_half_activation_backwards_round_once_as_torch():
    # llm.c's NewGELU (tanh) under bfloat16: torch's CPU backward kernels of tanh, silu,
    # softplus and elu (selu, celu) convert float16/bfloat16 to float, run the float kernel and
    # round once; leafgrad computed 1 - y * y (and the other formulas) in the reduced type,
    # rounding every step (gradients 1-2 ulps off on a third of the elements). (Left: selu's
    # bfloat16 forward and backward; mish, logsigmoid, hardswish, layer_norm, rms_norm and
    # group_norm backwards in float16/bfloat16.)
    for dtype_name in ["float16", "bfloat16", "float32", "float64"]:
        got = _half_backward_outcomes(lg, dtype_name)
        want = _half_backward_outcomes(torch, dtype_name)
        for key in want:
            if key[0] == "selu" and dtype_name == "bfloat16":
                continue  # (left: see above)
            assert got[key] == want[key], (dtype_name, key)


def _zero_dim_outcomes(m):
    """Value and gradient of each exp-based op on 0-d float32 inputs, and the warnings raised."""
    F = m.nn.functional
    ops = {"exp": lambda x: x.exp(), "sigmoid": lambda x: x.sigmoid(), "silu": F.silu,
           "nn.SiLU": lambda x: m.nn.SiLU()(x), "softplus": F.softplus, "elu": F.elu,
           "selu": F.selu, "celu": F.celu, "mish": F.mish, "logsigmoid": F.logsigmoid,
           "expm1": lambda x: x.expm1(), "cosh": lambda x: x.cosh(), "sinh": lambda x: x.sinh(),
           "softmax": lambda x: F.softmax(x, 0), "logsumexp": lambda x: x.logsumexp(0)}
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for (name, f), v in itertools.product(ops.items(), [-6.0, -1.3, -0.3, 0.4, 1.2, 2.7]):
            x = m.tensor(v, requires_grad=True)
            y = f(x)
            y.backward()
            out[name, v] = (y.item(), x.grad.item())
    return out, [str(w.message) for w in caught]


def test_zero_dim_float32_backwards_warn_nothing_as_torch():
    # A 0-d float32 silu's backward (the fastbook/llm.c activations on a scalar) printed
    # "RuntimeWarning: overflow encountered in scalar subtract": glibc expf's midpoint test
    # subtracted with a wrap-around on a NumPy scalar, which warns (an array does not).
    # (Left: float32 sinh/cosh at -6, mish and logsigmoid differ from torch in the last bit at
    # every shape, not only 0-d: their values are not compared here.)
    got, got_warnings = _zero_dim_outcomes(lg)
    want, want_warnings = _zero_dim_outcomes(torch)
    assert got_warnings == want_warnings == []
    left = ("mish", "logsigmoid", "cosh", "sinh")
    assert {k: v for k, v in got.items() if k[0] not in left} == \
        {k: v for k, v in want.items() if k[0] not in left}


def _device_outcomes(m):
    strings = ["cpu", "meta", "cuda", "cpu:0", "cuda:0", "cuda:10", "cuda:-1", "cpu:-1",
               "cuda:00", "cuda:01", "cuda:1a", "cuda: 1", "cuda:", ":1", "cuda::1",
               "cuda:1:2", "cuda:+1", " cpu", "cpu ", "CPU", "gpu", "gpu:1", "gpu:-1",
               "cuda:\uff11", "cuda:2147483648", "cuda:99999999999999999999"]
    calls = [(s,) for s in strings] + [
        ("cpu", 0), ("cuda", 3), ("cpu", -1), ("cuda", -2), ("cuda:1", 2), ("cpu:0", 0),
        ("cuda", True), ("cuda", 1.0), ("cuda", "1"), ("gpu", 1), ("cuda:x", 1), ("cuda", None)]
    out = [_outcome(lambda: m.device(*call)) for call in calls]
    out += [_outcome(lambda: m.device(type="cuda", index=1)),
            _outcome(lambda: m.device("cuda:1", index=1))]
    cpu = m.device("cpu")
    for other in ["cpu", "cpu:0", 0, None, m.device("cpu"), m.device("cpu", 0), m.device("meta")]:
        out.append((cpu == other, cpu != other, other == cpu, other != cpu))
    return out


def _outcome(function):
    """A call's result or its exception as torch's tests compare it: type and first line."""
    try:
        result = function()
    except Exception as error:  # noqa: BLE001 - the type and first line are what is compared
        return f"raised {type(error).__name__}: {str(error).splitlines()[0]}"
    return repr(result).replace("leafgrad", "torch")


def test_device_strings_parse_and_compare_as_torch():
    # d2l's "GPUs" chapter on a CPU build: torch.device('cpu') == 'cpu' is False in torch (a
    # device equals only a device; leafgrad parsed the string and said True), and c10's
    # device-string parser refuses 'cuda:-1', 'cuda:01', 'cuda:' ... ('Invalid device string',
    # leafgrad took int() of anything after the colon) and a negative explicit index.
    assert _device_outcomes(lg) == _device_outcomes(torch)


def _fx_insertion_outcomes(m):
    """Graph.get_attr and Graph.call_module on a GraphModule's graph (and on a graph without
    one): the node made or the error, the warnings, the names given after."""
    nn = m.nn

    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("buf", m.ones(2))
            self.plain = 3.0

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.act = nn.ReLU()

        def forward(self, x):
            return self.act(self.inner.lin(x))

    out = []
    targets = ["inner", "inner.lin", "inner.lin.weight", "inner.buf", "inner.plain", "act",
               "missing", "inner.missing", "nothing.here", "inner.lin.nothing"]
    for owned in (True, False):
        graph = m.fx.symbolic_trace(M()).graph if owned else m.fx.Graph()
        for method, target in itertools.product(["get_attr", "call_module"], targets):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                made = _outcome(lambda: getattr(graph, method)(target).name)
            out.append((owned, method, target, made, [str(w.message) for w in caught]))
        out.append([node.name for node in graph.nodes])
    return out


def test_fx_graph_insertions_check_the_owning_module_as_torch():
    # torch.fx's docs example inserting call_module('relu') before add_submodule: torch's
    # Graph.call_module looks the module up in the owning GraphModule (get_submodule's
    # AttributeError for a missing one, no node made) and Graph.get_attr warns of a target
    # that is no submodule, parameter or buffer; leafgrad made both nodes silently (and the
    # names of the nodes after it differed: relu_1 for relu).
    assert _fx_insertion_outcomes(lg) == _fx_insertion_outcomes(torch)
