"""Capture and replay: ``leafgrad.compile`` (torch.compile's signature).

The package is ``_compile`` because ``leafgrad.compile`` is the function, as in torch. Its
parts: ``state`` (the flag the eager code checks; imported by tensor.py and the op registry,
so this package imports nothing at load), ``capture`` (the tracer), ``graph`` (the captured
graph, printing and diffs), ``codegen`` (passes and the generated replay), ``api`` (guards,
cache, fallback, explain), ``module`` (compiled nn.Modules), ``draw`` (pictures).
"""
