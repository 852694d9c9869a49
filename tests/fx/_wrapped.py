"""A module-level function registered with both libraries' fx.wrap (which must be called at
module scope), for tests/fx/test_fx_tools.py."""

import leafgrad

try:
    import torch
except ImportError:  # (tests needing it skip through require_torch)
    torch = None


def scaled_norm(x, scale):
    return (x * x).sum() * scale


leafgrad.fx.wrap("scaled_norm")
if torch is not None:
    torch.fx.wrap("scaled_norm")


def traced(t):
    class UsesWrapped(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = t.nn.Linear(3, 3)

        def forward(self, x):
            return scaled_norm(self.lin(x), 2.0) + x.dim()

    return UsesWrapped()
