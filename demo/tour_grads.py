"""Tour sections 6-10: asking for gradients (gradient=, autograd.grad, retain_graph,
create_graph and higher-order derivatives, and how .grad accumulates)."""

from __future__ import annotations

from tour_types import Example, Section

NON_SCALAR = Section(
    title="Non-scalar outputs: backward(gradient=...)",
    intro="""
        backward() without arguments needs a single number to differentiate. When the output
        y has several elements you must say how much each element counts: pass a tensor of
        weights v shaped like y as gradient= (grad_tensors= in torch.autograd.backward).
        autograd then computes v^T J, the weighted sum of the rows of the Jacobian J = dy/dx,
        without ever building J itself.
    """,
    examples=(
        Example(
            cases=(18,),
            title="backward() on a vector fails",
            explain="""
                y = x + 1 has two elements and no weights are given, so there is nothing to
                start from. The call raises at once and x.grad is left untouched.
            """,
            code="""
                x = torch.tensor([1., 2.]).requires_grad_()
                y = x + 1
                y.backward()
                print(x.grad)
            """,
            errors=1,
        ),
        Example(
            cases=(19,),
            title="Reduce to a scalar first",
            explain="""
                Summing the output gives a scalar whose gradient is the sum of the elements'
                gradients. For y = x * x that is 2x, elementwise.
            """,
            code="""
                x = torch.tensor([1., 2.]).requires_grad_()
                y = x * x

                y.sum().backward()
                print(x.grad)
            """,
        ),
        Example(
            cases=(20,),
            title="Or pass weights of ones",
            explain="""
                backward(torch.ones_like(y)) weights every element by 1, which is the same as
                differentiating y.sum(), so the result matches the previous example.
            """,
            code="""
                x = torch.tensor([1., 2.]).requires_grad_()
                y = x * x

                y.backward(torch.ones_like(y))
                print(x.grad)
            """,
        ),
        Example(
            cases=(34,),
            title="Two outputs in one tensor, weights [1, 1]",
            explain="""
                loss stacks y0 = (x + w) * (w + 1) and y1 = (x + w) + (w + 1). Their
                derivatives with respect to w are 5 and 2; with weights 1 and 1, w.grad is
                5 + 2 = 7. For x: 2 + 1 = 3.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = w + x
                b = w + 1
                y0 = a * b  # (x + w) * (w + 1)   dy0/dw = 5
                y1 = a + b  # (x + w) + (w + 1)   dy1/dw = 2
                loss = torch.cat([y0, y1], dim=0)
                print(loss)
                grad_tensors = torch.tensor([1., 1.])
                loss.backward(gradient=grad_tensors)  # 1 * 5 + 1 * 2
                print((w.grad, x.grad))
            """,
        ),
        Example(
            cases=(36,),
            title="Weights [1, 2] on a fresh graph",
            explain="""
                Doubling the weight of y1 gives w.grad = 1 * 5 + 2 * 2 = 9 and
                x.grad = 1 * 2 + 2 * 1 = 4.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = w + x
                b = w + 1
                y0 = a * b
                y1 = a + b
                loss = torch.cat([y0, y1], dim=0)
                grad_tensors = torch.tensor([1., 2.])
                loss.backward(gradient=grad_tensors)  # 1 * 5 + 2 * 2
                print((w.grad, x.grad))
            """,
            note="""
                The graph must be fresh: section 8 shows what happens when this is run on the
                graph of the previous example.
            """,
        ),
        Example(
            cases=(44,),
            title="torch.autograd.backward(tensors, grad_tensors=...)",
            explain="""
                y.backward(...) is a shortcut for torch.autograd.backward(y, ...). The function
                returns None; its effect is what it adds into the leaves' .grad.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)
                b = torch.add(w, 1)
                loss = torch.cat([torch.mul(a, b), torch.add(a, b)], dim=0)
                result = torch.autograd.backward(loss, grad_tensors=torch.tensor([1., 2.]))
                print(result)
                print(w.grad, x.grad)
            """,
        ),
        Example(
            cases=(52,),
            title="The weights pick a combination of Jacobian rows",
            explain="""
                y = x @ W.t() maps 5 inputs to 4 outputs, so dy/dx is the 4 x 5 matrix W. With
                weights of ones, x.grad is the sum of W's rows; with weights [1, 2, 3, 4] it is
                the weighted sum of the rows.
            """,
            code="""
                x = torch.tensor([[1., 2., 3., 4., 5.]], requires_grad=True)          # 1 x 5
                W = torch.tensor([[1., 0., 0., 0., 1.],
                                  [0., 1., 0., 0., 1.],
                                  [0., 0., 1., 0., 1.],
                                  [0., 0., 0., 1., 1.]])                               # 4 x 5
                y = x @ W.t()                                                          # 1 x 4
                print(y)
                y.backward(torch.ones_like(y), retain_graph=True)
                print(x.grad)
                print(W.sum(dim=0))     # the rows of the Jacobian, added up
                x.grad = None           # start the next gradient from nothing
                y.backward(torch.tensor([[1., 2., 3., 4.]]))
                print(x.grad)
            """,
            note="""
                A batch of losses with weights of ones is how a mean or sum over a batch is
                differentiated: each sample's gradient row is added into the same .grad.
            """,
        ),
    ),
)

AUTOGRAD_GRAD = Section(
    title="torch.autograd.grad: gradients returned, not stored",
    intro="""
        backward() differentiates with respect to every leaf that requires grad and adds the
        results into their .grad. torch.autograd.grad(outputs, inputs) differentiates with
        respect to the inputs you name only, and returns the gradients as a tuple, one entry
        per input, leaving every .grad alone.
    """,
    examples=(
        Example(
            cases=(9,),
            title="z = x * x * y with backward()",
            explain="""
                This z is used through the next sections. dz/dx = 2xy = 12 and dz/dy = x^2 = 4
                at x = 2, y = 3; backward() fills both .grad fields.
            """,
            code="""
                x = torch.tensor(2., requires_grad=True)
                y = torch.tensor(3., requires_grad=True)

                z = x * x * y

                z.backward()
                print(x.grad, y.grad)
            """,
        ),
        Example(
            cases=(8,),
            title="autograd.grad returns a tuple",
            explain="""
                For y = (x + 1) * (x + 2) the gradient comes back as grad[0]. The result is a
                tuple of length 1 because there was one input, and x.grad was never written.
            """,
            code="""
                x = torch.tensor(2., requires_grad=True)

                a = torch.add(x, 1)
                b = torch.add(x, 2)
                y = torch.mul(a, b)

                grad = torch.autograd.grad(outputs=y, inputs=x)
                print(grad[0])
                print(type(grad).__name__, len(grad))
                print(x.grad)
            """,
        ),
        Example(
            cases=(10,),
            title="Only the derivative you ask for",
            explain="""
                Asking for dz/dx alone: the gradient for y is neither returned nor stored in
                y.grad.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                grad_x = torch.autograd.grad(outputs=z, inputs=x)
                print(grad_x[0])
            """,
        ),
        Example(
            cases=(47,),
            title="Several inputs at once",
            explain="""
                With a list of inputs the tuple has one gradient per input, in order, so it can
                be unpacked. The leaves' .grad stay None.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                y = (w + x) * (w + 1)
                gw, gx = torch.autograd.grad(outputs=y, inputs=[w, x])
                print(gw, gx)
                print(w.grad, x.grad)
            """,
        ),
        Example(
            cases=(21,),
            title="grad_outputs is autograd.grad's gradient=",
            explain="""
                For a vector output, autograd.grad needs weights exactly like backward() does;
                they go in grad_outputs.
            """,
            code="""
                x = torch.tensor([1., 2.]).requires_grad_()
                y = x * x

                grad_x = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=torch.ones_like(y))
                print(grad_x[0])
            """,
        ),
        Example(
            cases=(22,),
            title="Or differentiate the sum",
            explain="""
                Same result by reducing y to a scalar first.
            """,
            code="""
                x = torch.tensor([1., 2.]).requires_grad_()
                y = x * x

                grad_x = torch.autograd.grad(outputs=y.sum(), inputs=x)
                print(grad_x[0])
            """,
        ),
    ),
)

RETAIN_GRAPH = Section(
    title="retain_graph: walking the same graph twice",
    intro="""
        Backward formulas need values from the forward pass: MulBackward0 needs both factors.
        Nodes save those values when the graph is recorded, and by default a backward pass
        frees them as it goes, so the same graph cannot be walked a second time.
        retain_graph=True keeps them, at the cost of memory.
    """,
    examples=(
        Example(
            cases=(11,),
            title="Two autograd.grad calls on one graph",
            explain="""
                The first call keeps the graph alive, so the second can still use it. The last
                pass over a graph does not need retain_graph.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
                grad_y = torch.autograd.grad(outputs=z, inputs=y)

                print(grad_x[0], grad_y[0])
            """,
        ),
        Example(
            cases=(45,),
            title="The default frees the graph",
            explain="""
                The second backward fails with the "second time" error, and w.grad keeps the
                value of the first pass.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                y = (w + x) * (w + 1)
                torch.autograd.backward(y)
                print(w.grad)
                torch.autograd.backward(y)
                print(w.grad)
            """,
            errors=1,
        ),
        Example(
            cases=(46,),
            title="retain_graph=True, then a second backward",
            explain="""
                Now the second pass works, and its result is added to the first: 5 + 5.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                y = (w + x) * (w + 1)
                torch.autograd.backward(y, retain_graph=True)
                print(w.grad)
                torch.autograd.backward(y)
                print(w.grad)
            """,
        ),
        Example(
            cases=(35,),
            title="Re-running a notebook cell on a used graph",
            explain="""
                One tutorial runs the [1, 2] weights of 6.5 right after the [1, 1] weights of
                6.4, on the same graph. That second backward is refused, so the printed
                gradients are still those of the first pass.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = w + x
                b = w + 1
                y0 = a * b
                y1 = a + b
                loss = torch.cat([y0, y1], dim=0)
                loss.backward(gradient=torch.tensor([1., 1.]))
                grad_tensors = torch.tensor([1., 2.])
                loss.backward(gradient=grad_tensors)
                print((w.grad, x.grad))
            """,
            errors=1,
            note="""
                With retain_graph=True on the first call, the second would have worked and
                added 9 and 4 on top, giving 16 and 7.
            """,
        ),
    ),
)

CREATE_GRAPH = Section(
    title="create_graph and higher-order derivatives",
    intro="""
        A gradient is normally a plain tensor without history. With create_graph=True the
        backward pass is itself recorded, so the gradient gets a grad_fn and can be
        differentiated again. For z = x^2 y at x = 2, y = 3: dz/dx = 2xy = 12 and the second
        derivative d2z/dx2 = 2y = 6.
    """,
    examples=(
        Example(
            cases=(12,),
            title="No create_graph, nothing to differentiate",
            explain="""
                retain_graph keeps the forward graph, but the gradient itself was not
                recorded: it has no grad_fn and does not require grad. Differentiating it
                fails.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
                print(grad_x[0], grad_x[0].requires_grad, grad_x[0].grad_fn)
                grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)
            """,
            errors=1,
        ),
        Example(
            cases=(13,),
            title="create_graph=True: a differentiable gradient",
            explain="""
                Now grad_x[0] carries a grad_fn, and differentiating it again gives 6.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                grad_x = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
                print(grad_x[0])
                grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)

                print(grad_xx[0])
            """,
            note="""
                The grad_fn is AddBackward0: the backward of x * x adds the gradients of its
                two factors, and that addition was recorded.
            """,
        ),
        Example(
            cases=(37,),
            title="First and second derivative of x^2",
            explain="""
                At x = 3: dy/dx = 2x = 6 and d2y/dx2 = 2. Both results are tuples; only the
                first has history.
            """,
            code="""
                x = torch.tensor([3.], requires_grad=True)  # x = 3
                y = x * x  # y = x^2
                grad_1 = torch.autograd.grad(y, x, create_graph=True)  # dy/dx = 2x
                grad_2 = torch.autograd.grad(grad_1, x)  # d2y/dx2 = 2
                print((grad_1, grad_2))
            """,
        ),
        Example(
            cases=(14,),
            title="autograd.grad, then backward() on the gradient",
            explain="""
                grad[0] = 2xy is a function of x and y. Its backward() fills x.grad with
                d(2xy)/dx = 2y = 6 and y.grad with d(2xy)/dy = 2x = 4.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                grad = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
                grad[0].backward()

                print(x.grad)
                print(y.grad)
            """,
        ),
        Example(
            cases=(15,),
            title="backward(create_graph=True), then autograd.grad",
            explain="""
                The other way round: backward() leaves a differentiable x.grad (its grad_fn
                is CopyBackwards, the copy into the .grad slot), and autograd.grad
                differentiates it.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                z.backward(create_graph=True)
                print(x.grad)
                grad_xx = torch.autograd.grad(outputs=x.grad, inputs=x)

                print(grad_xx[0])
            """,
        ),
        Example(
            cases=(43,),
            title="create_graph versus retain_graph",
            explain="""
                Both keep the forward graph alive. Only create_graph records the backward
                pass, so only then does w.grad have a grad_fn (and is not a leaf).
            """,
            code="""
                def build():
                    w = torch.tensor([1.], requires_grad=True)
                    x = torch.tensor([2.], requires_grad=True)
                    a = torch.add(w, x)
                    b = torch.add(w, 1)
                    y0 = torch.mul(a, b)
                    y1 = torch.add(a, b)
                    loss = torch.cat([y0, y1], dim=0)
                    return w, loss
                w, loss = build()
                loss.backward(gradient=torch.tensor([1., 1.]), create_graph=True)
                print(w.grad)
                print(w.grad.requires_grad, w.grad.is_leaf)
                w, loss = build()
                loss.backward(gradient=torch.tensor([1., 1.]), retain_graph=True)
                print(w.grad)
                print(w.grad.requires_grad, w.grad.is_leaf)
            """,
            note="""
                The tutorial showed [6.] and CloneBackward, from an older PyTorch and a
                different graph; with this graph the value is 5 + 2 = 7.
            """,
        ),
    ),
)

ACCUMULATION = Section(
    title="Gradients accumulate: the 18 versus 6 pitfall",
    intro="""
        backward() adds into .grad; it never overwrites it. That is what makes summing
        gradients over several losses easy, and it is a trap whenever you forget it, most
        visibly when you differentiate a gradient with backward(): the second derivative lands
        in the same .grad that still holds the first.
    """,
    examples=(
        Example(
            cases=(16,),
            title="backward() of x.grad adds 6 to 12",
            explain="""
                After the first pass x.grad = 2xy = 12. Its own backward() adds
                d(2xy)/dx = 6 into x.grad (giving 18, not 6) and d(2xy)/dy = 4 into y.grad
                (giving 8, not 4).
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                z.backward(create_graph=True) # x.grad = 12
                print(x.grad)
                x.grad.backward()

                print(x.grad)
                print(y.grad)
            """,
        ),
        Example(
            cases=(17,),
            title="Clear the value, keep the graph",
            explain="""
                Zeroing x.grad through .data sets the stored value to 0 without touching the
                recorded graph, so the second backward() still works and x.grad ends at 0 + 6.
            """,
            code="""
                x = torch.tensor(2.).requires_grad_()
                y = torch.tensor(3.).requires_grad_()

                z = x * x * y

                z.backward(create_graph=True)
                x.grad.data.zero_()
                x.grad.backward()

                print(x.grad)
            """,
            note="""
                autograd.grad (section 9) avoids the problem altogether: it returns the
                second derivative instead of adding it anywhere.
            """,
        ),
        Example(
            cases=(38,),
            title="A training loop that forgets to clear",
            explain="""
                Each iteration builds a new graph and runs backward() once, but the leaves are
                the same tensors, so their gradients pile up: 5, 10, 15.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                for i in range(3):
                    a = w + x
                    b = w + 1
                    y = a * b
                    # nothing clears w.grad or x.grad here, so they accumulate
                    y.backward()
                    print(w.grad, x.grad)
            """,
        ),
    ),
)

SECTIONS = (NON_SCALAR, AUTOGRAD_GRAD, RETAIN_GRAPH, CREATE_GRAPH, ACCUMULATION)
