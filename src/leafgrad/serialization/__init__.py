"""``leafgrad.save`` / ``leafgrad.load``: PyTorch's checkpoint format, both ways, safely.

A checkpoint is the zip archive ``torch.save`` writes: ``<name>/data.pkl`` (a protocol-2
pickle of the object in which every tensor is ``torch._utils._rebuild_tensor_v2(storage,
offset, size, stride, requires_grad, hooks)`` and every storage a persistent id
``("storage", torch.FloatStorage, key, "cpu", numel)``), one record ``<name>/data/<key>`` of raw
little-endian bytes per storage (64-byte aligned), and small records for the format version,
alignment and byte order. So ``torch.load(path, weights_only=True)`` reads what
``leafgrad.save`` writes, and ``leafgrad.load`` reads what ``torch.save`` writes; tensors that
share memory are written once and load sharing memory again.

Note: by default loading never runs code from the file. The unpickler resolves globals
through torch's ``weights_only=True`` allow-list (the tensor/parameter rebuild functions,
storage and dtype names, ``torch.Size``, ``torch.device``, ``OrderedDict``, ``Counter``, the
``_codecs.encode`` that protocol-2 bytes use) plus what ``add_safe_globals`` adds, and refuses
any other with ``pickle.UnpicklingError``. ``load(..., weights_only=False)`` unpickles anything,
as torch does, so it runs whatever the file names: only for files you trust.

>>> leafgrad.save({"w": leafgrad.ones(2)}, "/tmp/w.pt")
>>> leafgrad.load("/tmp/w.pt")
{'w': tensor([1., 1.])}
"""


from ._allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._load import load
from ._save import save

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]
