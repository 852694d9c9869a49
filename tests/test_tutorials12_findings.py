"""Code from other people's tutorials and courses not covered before (pytorch/tutorials' FX
pages: the FX conv/bn fuser, the FX profiling Interpreter, and torch.fx's docs examples of graph
manipulation, Transformer, subgraph rewriting, shape propagation, retracing decompositions, the
inverse-function graph and the limits of symbolic tracing; "Understanding requires_grad,
retain_grad, leaf and non-leaf tensors", "How to save memory by fusing the optimizer step into the
backward pass", "Reasoning about shapes" with the meta device, "Visualizing gradients" and the
chatbot tutorial's packed bidirectional GRU encoder with Luong attention; rasbt's LLMs-from-scratch
appendix A; fastbook's 04_mnist_basics and 17_foundations; Stanford CS224N's PyTorch tutorial),
shrunk to small synthetic data made with torch's own RNG and run with torch and with leafgrad in
one process: every printed line, warning and error must be the same (tests/_tutorial_harness.py);
then one test per defect found, sweeping its class of inputs."""

import copy
import io
import itertools
import math
import operator
import time

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


SNIPPETS = [fx_conv_bn_fuser, fx_profiling_interpreter, fx_graph_manipulation,
            fx_replace_pattern_shape_prop, fx_symbolic_trace_limits, leaf_vs_nonleaf,
            optimizer_step_in_backward, reasoning_about_shapes, visualizing_gradients,
            chatbot_encoder_attention, llms_appendix_a, fx_decompose_retrace,
            fastbook_mnist_basics, fastbook_foundations, cs224n_pytorch_tutorial]


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
