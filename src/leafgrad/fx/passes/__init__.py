"""``torch.fx.passes``: torch's package imports its pass modules, so ``torch.fx.passes.shape_prop``
is reachable as an attribute once torch is imported (the FX tutorials' ``ShapeProp``)."""

from . import shape_prop  # noqa: F401
