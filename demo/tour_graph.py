"""Tour sections 1-5: the graph itself (nodes, leaves, requires_grad, grad_fn, retain_grad)."""

from __future__ import annotations

from tour_types import Example, Section

GRAPH = Section(
    title="Computational graphs: nodes and edges",
    intro="""
        While you compute with tensors that require grad, autograd writes down what you did.
        The record is a directed acyclic graph: the tensors are its nodes and the operations
        that turn some tensors into another are its edges. backward() walks that graph from
        the output back to the inputs, applies the chain rule along every edge and adds up
        the contributions of all the paths that end at the same input.
    """,
    examples=(
        Example(
            cases=(1, 27),
            title="y = (x + w) * (w + 1), dy/dw",
            explain="""
                The expression is built in three steps: a = x + w, b = w + 1, y = a * b. By
                the chain rule dy/dw = b * 1 + a * 1, one term for each path from y down to w;
                at w = 1 and x = 2 that is 2 + 3 = 5.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)     # a = x + w
                b = torch.add(w, 1)     # b = w + 1
                y = torch.mul(a, b)     # y = a * b
                y.backward()            # differentiate y with respect to every leaf
                print(w.grad)           # dy/dw at w = 1, x = 2
            """,
            note="""
                w feeds y through a and through b; backward() summed both paths. Two of the
                tutorials use exactly this program.
            """,
        ),
        Example(
            cases=(6,),
            title="y = (x + 1) * (x + 2) with a scalar x",
            explain="""
                The same graph shape with a single input, this time a 0-dimensional tensor.
                By hand, dy/dx = (x + 2) + (x + 1), which is 7 at x = 2.
            """,
            code="""
                x = torch.tensor(2., requires_grad=True)

                a = torch.add(x, 1)
                b = torch.add(x, 2)
                y = torch.mul(a, b)

                y.backward()
                print(x.grad)
            """,
            note="""
                tensor(7.) has no brackets: a gradient always has the shape of the tensor it
                belongs to, and x is a scalar here.
            """,
        ),
    ),
)

LEAVES = Section(
    title="Leaf tensors and is_leaf",
    intro="""
        A leaf is a tensor that autograd did not compute: one you created yourself, such as an
        input or a weight. Everything computed from other tensors is an interior (non-leaf)
        node. After backward() only leaves keep a gradient in .grad. Interior nodes hand their
        gradient on to their inputs and then drop it, which saves a lot of memory in large
        models.
    """,
    examples=(
        Example(
            cases=(2, 28),
            title="is_leaf and .grad of every node",
            explain="""
                The graph of 1.1 again. Look at which nodes are leaves, and which ones still
                have a gradient once backward() has finished.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)
                b = torch.add(w, 1)
                y = torch.mul(a, b)
                y.backward()
                # which nodes are leaves?
                print("is_leaf:\\n", w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
                # which nodes kept a gradient?
                print("gradient:\\n", w.grad, x.grad, a.grad, b.grad, y.grad)
            """,
            note="""
                Only the leaves w and x hold gradients (dy/dx = b = 2). Reading .grad of a
                non-leaf gives None, and the library warns that this is probably a mistake.
            """,
        ),
        Example(
            cases=(31,),
            title="The same flags with Python operators",
            explain="""
                Another tutorial writes the graph with + and * instead of torch.add and
                torch.mul, and with 0-d tensors. The operators record the same nodes, so the
                leaf flags do not change.
            """,
            code="""
                w = torch.tensor(1., requires_grad=True)
                x = torch.tensor(2., requires_grad=True)
                a = w + x
                b = w + 1
                y = a * b
                print((w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf))
            """,
        ),
        Example(
            cases=(32,),
            title="Gradients of the scalar version",
            explain="""
                Same graph, now differentiated. The tuple shows the leaves' gradients as 0-d
                tensors and None for the three computed nodes.
            """,
            code="""
                w = torch.tensor(1., requires_grad=True)
                x = torch.tensor(2., requires_grad=True)
                a = w + x
                b = w + 1
                y = a * b
                y.backward()
                print((w.grad, x.grad, a.grad, b.grad, y.grad))
            """,
        ),
    ),
)

REQUIRES_GRAD = Section(
    title="requires_grad and how it spreads",
    intro="""
        requires_grad=True asks autograd to track a tensor. Tensors you create do not require
        grad unless you say so. The flag then spreads forward: the result of any operation
        with at least one tracked input is tracked too. Being a leaf and requiring grad are
        two separate questions, and all four combinations matter.
    """,
    examples=(
        Example(
            cases=(5,),
            title="Two ways to ask for gradients",
            explain="""
                Either call the in-place method requires_grad_() on an existing tensor, or
                pass requires_grad=True when creating it. Both give the same leaf.
            """,
            code="""
                x = torch.tensor(1.).requires_grad_()      # switch it on afterwards
                print(x, x.requires_grad, x.is_leaf)
                x = torch.tensor(1., requires_grad=True)   # or at creation
                print(x, x.requires_grad, x.is_leaf)
            """,
            note="""
                The repr says requires_grad=True for a tracked leaf; for a computed tensor it
                shows grad_fn instead, as later examples print.
            """,
        ),
        Example(
            cases=(40,),
            title="Results of tracked inputs are tracked",
            explain="""
                No one set requires_grad on a, b or y, yet all three require grad, because
                each depends on w or x.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = w + x
                b = w + 1
                y = a * b
                print((a.requires_grad, b.requires_grad, y.requires_grad))
            """,
        ),
        Example(
            cases=(7,),
            title="All three attributes side by side",
            explain="""
                For y = (x + 1) * (x + 2): every node requires grad, only x is a leaf, and so
                only x has a gradient after backward().
            """,
            code="""
                x = torch.tensor(2., requires_grad=True)
                a = torch.add(x, 1)
                b = torch.add(x, 2)
                y = torch.mul(a, b)
                y.backward()
                print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad,
                      y.requires_grad)
                print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
                print("grad: ", x.grad, a.grad, b.grad, y.grad)
            """,
        ),
        Example(
            cases=(51,),
            title="A leaf that does not require grad",
            explain="""
                Here x is a leaf without requires_grad: a constant. autograd computes nothing
                for it. a is not a leaf; it requires grad because of w, and it has a grad_fn.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.])
                a = w + x
                y = a * x
                y.backward()
                print(x.is_leaf, x.requires_grad, x.grad)
                print(w.is_leaf, w.requires_grad, w.grad)
                print(a.is_leaf, a.requires_grad, a.grad_fn is not None)
            """,
            note="""
                Leaf with requires_grad: .grad is filled. Leaf without: .grad stays None.
                Non-leaf: requires_grad is inherited, .grad stays None unless retained.
            """,
        ),
    ),
)

GRAD_FN = Section(
    title="grad_fn and next_functions",
    intro="""
        A computed tensor that requires grad remembers the node that produced it in .grad_fn.
        The node's name says which backward formula it will apply: AddBackward0 for an
        addition, MulBackward0 for a product. Leaves have grad_fn None. Each node lists the
        nodes of its inputs in .next_functions, and following those links from the output is
        exactly the route backward() takes.
    """,
    examples=(
        Example(
            cases=(3,),
            title="grad_fn of every node",
            explain="""
                The two leaves print None. The other nodes print the backward node object; its
                memory address differs from run to run.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)
                b = torch.add(w, 1)
                y = torch.mul(a, b)
                y.backward()
                print("w.grad_fn = ", w.grad_fn)
                print("x.grad_fn = ", x.grad_fn)
                print("a.grad_fn = ", a.grad_fn)
                print("b.grad_fn = ", b.grad_fn)
                print("y.grad_fn = ", y.grad_fn)
            """,
        ),
        Example(
            cases=(30,),
            title="The same, on one line",
            explain="""
                A notebook version prints all five at once. Its a.retain_grad() call has no
                effect on grad_fn (section 5 explains what it does).
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)
                a.retain_grad()
                b = torch.add(w, 1)
                y = torch.mul(a, b)
                y.backward()
                print("grad_fn:\\n", w.grad_fn, x.grad_fn, a.grad_fn, b.grad_fn, y.grad_fn)
            """,
        ),
        Example(
            cases=(42,),
            title="grad_fn exists before any backward()",
            explain="""
                This version never calls backward(). The nodes are there anyway: the graph is
                recorded during the forward computation, not by backward().
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = w + x
                b = w + 1
                y = a * b
                print((w.grad_fn, x.grad_fn, a.grad_fn, b.grad_fn, y.grad_fn))
            """,
        ),
        Example(
            cases=(),
            title="Following next_functions down to the leaves",
            explain="""
                Each entry of next_functions is a pair (node, input number). A leaf that
                requires grad appears as an AccumulateGrad node whose .variable is the leaf;
                the constant 1 in w + 1 appears as None.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)
                b = torch.add(w, 1)
                y = torch.mul(a, b)
                print(y.grad_fn.name(), len(y.grad_fn.next_functions))
                print([fn.name() for fn, _ in b.grad_fn.next_functions if fn is not None])
                print(b.grad_fn.next_functions[1])
                print(a.grad_fn.next_functions[0][0].variable is w)
                def show(fn, depth=0):
                    print("    " * depth + fn.name())
                    for parent, _ in fn.next_functions:
                        if parent is not None:
                            show(parent, depth + 1)
                show(y.grad_fn)
            """,
            note="""
                w's accumulator is reached twice, once through a and once through b: those are
                the two paths whose gradients backward() adds into w.grad.
            """,
        ),
    ),
)

RETAIN_GRAD = Section(
    title="retain_grad: keeping an interior gradient",
    intro="""
        If you want to inspect the gradient that reached an interior node, call retain_grad()
        on it before backward(). The node then keeps its gradient in .grad like a leaf does;
        it stays a non-leaf.
    """,
    examples=(
        Example(
            cases=(4,),
            title="a.retain_grad() before backward()",
            explain="""
                One tutorial hints at this with a comment next to a = torch.add(w, x). With the
                call in place, a.grad holds dy/da = b = 2.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                a = torch.add(w, x)
                a.retain_grad()
                b = torch.add(w, 1)
                y = torch.mul(a, b)
                y.backward()
                print(w.grad, x.grad, a.grad)
            """,
        ),
        Example(
            cases=(29,),
            title="Only the retained node keeps its gradient",
            explain="""
                Printing all five gradients shows that retain_grad() is per tensor: a has its
                gradient, b and y are still None.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)

                a = torch.add(w, x)
                a.retain_grad()
                b = torch.add(w, 1)
                y = torch.mul(a, b)

                y.backward()
                print("gradient:\\n", w.grad, x.grad, a.grad, b.grad, y.grad)
            """,
        ),
        Example(
            cases=(33,),
            title="The scalar version",
            explain="""
                The same with 0-d tensors and operators; the retained gradient is tensor(2.).
            """,
            code="""
                w = torch.tensor(1., requires_grad=True)
                x = torch.tensor(2., requires_grad=True)
                a = w + x
                a.retain_grad()  # keep a's gradient
                b = w + 1
                y = a * b
                y.backward()
                print((w.grad, x.grad, a.grad, b.grad, y.grad))
            """,
            note="""
                Note that y.grad is None too, although y is where backward() started: the root
                is an interior node like any other.
            """,
        ),
    ),
)

SECTIONS = (GRAPH, LEAVES, REQUIRES_GRAD, GRAD_FN, RETAIN_GRAD)
