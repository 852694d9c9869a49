"""Note: frozen import state (leafgrad/__init__.py): importing leafgrad moves the objects
alive at that point into the collector's permanent generation, unless LEAFGRAD_GC_FREEZE=0."""

import os
import subprocess
import sys

_PROBE = (
    "import gc; before = gc.get_freeze_count(); import leafgrad; "
    "print(before, gc.get_freeze_count(), len(gc.get_objects()))"
)


def _run(env_value):
    env = dict(os.environ)
    env.pop("LEAFGRAD_GC_FREEZE", None)
    if env_value is not None:
        env["LEAFGRAD_GC_FREEZE"] = env_value
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return tuple(int(v) for v in out)


def test_import_freezes_its_objects():
    before, frozen, tracked = _run(None)
    assert before == 0
    assert frozen > 10_000  # leafgrad's modules, classes and functions
    assert tracked < frozen  # what the collector still walks is what came after


def test_freeze_can_be_turned_off():
    before, frozen, tracked = _run("0")
    assert (before, frozen) == (0, 0)
    assert tracked > 10_000


def test_dead_objects_are_still_freed():
    # frozen objects are skipped by collections, not kept alive: a graph built after the
    # import is freed as before, and a cycle made after the import is still collected
    code = (
        "import gc, weakref, leafgrad as torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = (x * 2).tanh()\n"
        "ref = weakref.ref(y.grad_fn)\n"
        "del y\n"
        "class Box: pass\n"
        "a = Box(); a.me = a; cyc = weakref.ref(a); del a\n"
        "gc.collect()\n"
        "print(ref() is None, cyc() is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "True"]
