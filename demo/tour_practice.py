"""Tour sections 11-14: everyday practice (zeroing gradients, detach, in-place operations on
leaves) and the dynamic nature of the graph."""

from __future__ import annotations

from tour_types import Example, Section

ZEROING = Section(
    title="Zeroing gradients: .grad.zero_() and optimizer.zero_grad()",
    intro="""
        Because gradients accumulate, a training loop clears them before each backward pass.
        By hand that is .grad.zero_(), an in-place fill with zeros; with an optimizer it is
        optimizer.zero_grad(), which clears every parameter it manages.
    """,
    examples=(
        Example(
            cases=(39,),
            title="The loop of 10.3 with the zeroing enabled",
            explain="""
                Clearing both gradients after using them makes every iteration print the same
                5 and 2; after the loop they are zeros, not None.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                x = torch.tensor([2.], requires_grad=True)
                for i in range(3):
                    a = w + x
                    b = w + 1
                    y = a * b
                    y.backward()
                    print(w.grad, x.grad)
                    w.grad.zero_()
                    x.grad.zero_()
                print(w.grad, x.grad)
            """,
        ),
        Example(
            cases=(23,),
            title="zero_ without parentheses does nothing",
            explain="""
                One tutorial writes x.grad.zero_ without the call. That line only looks the
                method up and throws it away; the gradient is cleared only by x.grad.zero_().
            """,
            code="""
                x = torch.tensor([1., 2.], requires_grad=True)
                (x * x).sum().backward()
                (x * x).sum().backward()
                print(x.grad)
                x.grad.zero_            # looks the method up, never calls it
                print(x.grad)
                x.grad.zero_()          # the call that zeroes in place
                print(x.grad)
                (x * x).sum().backward()
                print(x.grad)
            """,
            note="""
                Two passes give 2 * 2x = [4, 8]. After the real zero_(), a single pass gives
                2x = [2, 4] as it should.
            """,
        ),
        Example(
            cases=(24,),
            title="optimizer.zero_grad() in a training step",
            explain="""
                Two backward passes without clearing double the gradient. zero_grad() then
                resets it, and the next pass starts from scratch.
            """,
            code="""
                w = torch.tensor([1., -1.], requires_grad=True)
                optimizer = torch.optim.SGD([w], lr=0.1)
                inp = torch.tensor([2., 3.])
                for step in range(2):
                    loss = (w * inp).sum()
                    loss.backward()
                    print(step, w.grad)
                print("accumulated:", w.grad)
                optimizer.zero_grad()
                print("after zero_grad:", w.grad)
                loss = (w * inp).sum()
                loss.backward()
                print("fresh:", w.grad)
            """,
            note="""
                zero_grad() sets .grad to None rather than to zeros (set_to_none=True is the
                default in PyTorch 2): it frees the memory, and the next backward() simply
                stores a new gradient.
            """,
        ),
    ),
)

DETACH = Section(
    title="detach(): cutting a tensor out of the graph",
    intro="""
        t.detach() returns a tensor with the same values (sharing memory with t) but no
        history: it is a new leaf that does not require grad. Gradients do not flow back
        through it, which is how you stop backward() at a chosen point, for example between
        two models.
    """,
    examples=(
        Example(
            cases=(26,),
            title="One factor detached",
            explain="""
                y = a * b with a = (x + 1) detached. a becomes a constant leaf, so only the
                path through b is differentiated: dy/dx = a = 3 instead of 7.
            """,
            code="""
                x = torch.tensor([2.], requires_grad=True)

                a = torch.add(x, 1).detach()
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
            cases=(25,),
            title="Model A feeds model B, only B learns",
            explain="""
                The output of "model A" is detached before it becomes the input of "model B".
                backward() from B's output stops at that input, so A's weight gets no gradient.
            """,
            code="""
                wa = torch.tensor([2.], requires_grad=True)   # "model A"
                wb = torch.tensor([3.], requires_grad=True)   # "model B"
                x = torch.tensor([1.5])
                output_A = x * wa
                input_B = output_A.detach()
                output_B = input_B * wb
                output_B.backward()
                print(input_B, input_B.requires_grad, input_B.is_leaf)
                print("wa.grad:", wa.grad)
                print("wb.grad:", wb.grad)
            """,
        ),
    ),
)

IN_PLACE = Section(
    title="In-place operations and leaves",
    intro="""
        An in-place operation (a method ending in _, or +=) changes a tensor's memory instead
        of making a new tensor. On a leaf that requires grad this is refused while autograd is
        recording: the change would have to be recorded as history of the leaf, and a leaf by
        definition has none. To change a parameter in place anyway, as an optimizer step does,
        go around the recording with torch.no_grad() or through .data.
    """,
    examples=(
        Example(
            cases=(41,),
            title="a = a + 1 versus a += 1",
            explain="""
                The first line builds a new tensor and rebinds the name, so the id changes.
                The second writes into the existing tensor, so the id stays the same.
            """,
            code="""
                a = torch.ones((1, ))
                id0 = id(a)
                print(a)
                a = a + 1
                id1 = id(a)
                print(id1 == id0, a)
                a += 1  # in place: the same tensor object, new values
                print(id(a) == id1, a)
            """,
        ),
        Example(
            cases=(48,),
            title="An in-place op on a leaf that requires grad",
            explain="""
                w.add_(1) raises immediately, and w is left exactly as it was.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                w.add_(1)
                print(w)
            """,
            errors=1,
        ),
        Example(
            cases=(50,),
            title="Not even without a backward pass",
            explain="""
                One tutorial claims the in-place change is fine as long as no backward() is
                run. It is not: the error comes from the operation itself. A leaf that does
                not require grad may be changed, and so may w under torch.no_grad().
            """,
            code="""
                w = torch.tensor([1., 2.], requires_grad=True)
                w.mul_(2)          # raises at once, no backward involved
                v = torch.tensor([1., 2.])   # a leaf that does not require grad
                v.mul_(2)
                print(v)
                with torch.no_grad():
                    w.mul_(2)      # allowed: nothing is being recorded
                print(w)
            """,
            errors=1,
        ),
        Example(
            cases=(49,),
            title="Going through .data",
            explain="""
                w.data shares w's memory but is invisible to autograd, so changing it in place
                is allowed. w stays a leaf with no grad_fn, and later gradients are taken at
                the new value.
            """,
            code="""
                w = torch.tensor([1.], requires_grad=True)
                w.data.add_(1)
                print(w, w.is_leaf, w.grad_fn)
                y = w * 3
                y.backward()
                print(w.grad)
            """,
            note="""
                Prefer torch.no_grad(): .data also hides the change from the checks that
                protect values saved for backward, so a mistake there goes unnoticed.
            """,
        ),
    ),
)

DYNAMIC = Section(
    title="Dynamic graphs: defined by running",
    intro="""
        The graph is not declared in advance: it is recorded while the Python code runs, one
        operation at a time, and released by backward(). Ordinary loops and if
        statements therefore decide the shape of the graph, and each run with new data can
        build a different one. This is what "define-by-run" means.
    """,
    examples=(
        Example(
            cases=(),
            title="A loop whose length depends on the data",
            explain="""
                power_until multiplies by x until the value reaches a limit. For x = 3 that is
                x^4 = 81; for x = 2 it is x^6 = 64. The recorded chains have different lengths,
                and each backward() follows its own: 4x^3 = 108 and 6x^5 = 192.
            """,
            code="""
                def power_until(x, limit):
                    y = x
                    while y < limit:
                        y = y * x
                    return y
                def chain(t):
                    names = []
                    fn = t.grad_fn
                    while fn is not None:
                        names.append(fn.name())
                        fn = fn.next_functions[0][0] if fn.next_functions else None
                    return " <- ".join(names)
                x3 = torch.tensor(3., requires_grad=True)
                y3 = power_until(x3, 50)
                print(y3, "|", chain(y3))
                y3.backward()
                print(x3.grad)
                x2 = torch.tensor(2., requires_grad=True)
                y2 = power_until(x2, 50)
                print(y2, "|", chain(y2))
                y2.backward()
                print(x2.grad)
            """,
        ),
        Example(
            cases=(),
            title="An if statement picks the operation",
            explain="""
                The same function records a product for a positive input and a negation
                otherwise, so the grad_fn, and the derivative, depend on the value.
            """,
            code="""
                def f(x):
                    if x > 0:
                        return x * x
                    return -x
                for value in (3., -3.):
                    x = torch.tensor(value, requires_grad=True)
                    y = f(x)
                    y.backward()
                    print(value, y.grad_fn.name(), x.grad)
            """,
            note="""
                A static-graph framework would need both branches in the graph plus a special
                select operation; here Python simply runs one of them.
            """,
        ),
    ),
)

SECTIONS = (ZEROING, DETACH, IN_PLACE, DYNAMIC)
