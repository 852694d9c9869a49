"""Sweep (a tool, not a test) of nn.functional's number and flag parameters: for each function
in CALLS (a base call torch accepts), each keyword of KEYWORDS given every kind of value
(True, 1, 1.5, NumPy scalars, 0-d/1-/2-element tensors, [1], (1,), None, "a", 0-d/1-d arrays),
keyword and positional, and torch's outcome (result dtype and values, or exception type and
first line) compared with leafgrad's. Prints one line per difference:

    PYTHONPATH=src python tests/functional_sweep.py > differences.txt

tests/test_argparse2_findings.py holds the tests of what it found and was fixed."""

import inspect
import warnings

import numpy as np
import torch

import leafgrad

warnings.filterwarnings("ignore")

VALUES = {
    "True": lambda L: True, "int": lambda L: 1, "float": lambda L: 1.5,
    "np.float32": lambda L: np.float32(1), "np.int64": lambda L: np.int64(1),
    "tensor0": lambda L: L.tensor(1.0), "tensor1": lambda L: L.tensor([1.0]),
    "tensor2": lambda L: L.tensor([1.0, 0.0]), "list": lambda L: [1], "tuple": lambda L: (1,),
    "None": lambda L: None, "str": lambda L: "a", "ndarray0": lambda L: np.array(1.0),
    "ndarray1": lambda L: np.array([1.0]),
}


def x(L, *shape):
    return L.arange(1.0, 1.0 + float(np.prod(shape))).reshape(shape) / 7


# name: (positional arguments maker, keywords to sweep)
CALLS = {
    "layer_norm": (lambda L: (x(L, 2, 3), (3,)), ("eps",)),
    "group_norm": (lambda L: (x(L, 2, 4, 3), 2), ("eps",)),
    "batch_norm": (lambda L: (x(L, 2, 3), L.zeros(3), L.ones(3)), ("training", "momentum", "eps")),
    "instance_norm": (lambda L: (x(L, 2, 3, 4),), ("use_input_stats", "momentum", "eps")),
    "normalize": (lambda L: (x(L, 2, 3),), ("p", "dim", "eps")),
    "softmax": (lambda L: (x(L, 2, 3),), ("dim",)),
    "log_softmax": (lambda L: (x(L, 2, 3),), ("dim",)),
    "softmin": (lambda L: (x(L, 2, 3),), ("dim",)),
    "glu": (lambda L: (x(L, 2, 4),), ("dim",)),
    "leaky_relu": (lambda L: (x(L, 2, 3),), ("negative_slope", "inplace")),
    "elu": (lambda L: (x(L, 2, 3),), ("alpha", "inplace")),
    "celu": (lambda L: (x(L, 2, 3),), ("alpha", "inplace")),
    "selu": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "relu": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "relu6": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "silu": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "mish": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "hardsigmoid": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "hardswish": (lambda L: (x(L, 2, 3),), ("inplace",)),
    "hardtanh": (lambda L: (x(L, 2, 3),), ("min_val", "max_val", "inplace")),
    "threshold": (lambda L: (x(L, 2, 3), 0.2, 0.0), ("inplace",)),
    "softplus": (lambda L: (x(L, 2, 3),), ("beta", "threshold")),
    "hardshrink": (lambda L: (x(L, 2, 3),), ("lambd",)),
    "softshrink": (lambda L: (x(L, 2, 3),), ("lambd",)),
    "gelu": (lambda L: (x(L, 2, 3),), ("approximate",)),
    "dropout": (lambda L: (x(L, 2, 3),), ("p", "training", "inplace")),
    "cosine_similarity": (lambda L: (x(L, 2, 3), x(L, 2, 3) + 1), ("dim", "eps")),
    "pairwise_distance": (lambda L: (x(L, 2, 3), x(L, 2, 3) + 1), ("p", "eps", "keepdim")),
    "pdist": (lambda L: (x(L, 3, 2),), ("p",)),
    "one_hot": (lambda L: (L.tensor([0, 2]),), ("num_classes",)),
    "embedding": (lambda L: (L.tensor([0, 2]), x(L, 3, 2)),
                  ("padding_idx", "max_norm", "norm_type", "scale_grad_by_freq")),
    "pad": (lambda L: (x(L, 2, 3), (1, 1)), ("value",)),
    "avg_pool1d": (lambda L: (x(L, 1, 2, 6), 2), ("stride", "padding", "ceil_mode",
                                                  "count_include_pad")),
    "max_pool1d": (lambda L: (x(L, 1, 2, 6), 2), ("stride", "padding", "dilation", "ceil_mode",
                                                  "return_indices")),
    "avg_pool2d": (lambda L: (x(L, 1, 2, 4, 4), 2), ("stride", "padding", "ceil_mode",
                                                     "count_include_pad", "divisor_override")),
    "max_pool2d": (lambda L: (x(L, 1, 2, 4, 4), 2), ("stride", "padding", "dilation",
                                                     "ceil_mode", "return_indices")),
    "adaptive_avg_pool1d": (lambda L: (x(L, 1, 2, 6),), ("output_size",)),
    "conv1d": (lambda L: (x(L, 1, 2, 6), x(L, 3, 2, 2)), ("stride", "padding", "dilation",
                                                         "groups")),
    "interpolate": (lambda L: (x(L, 1, 2, 4),), ("size", "scale_factor", "align_corners")),
    "pixel_shuffle": (lambda L: (x(L, 1, 4, 2, 2),), ("upscale_factor",)),
    "unfold": (lambda L: (x(L, 1, 2, 4, 4), 2), ("dilation", "padding", "stride")),
    "mse_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3) * 2), ("reduction",)),
    "l1_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3) * 2), ("reduction",)),
    "smooth_l1_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3) * 2), ("beta",)),
    "huber_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3) * 2), ("delta",)),
    "cross_entropy": (lambda L: (x(L, 2, 3), L.tensor([0, 2])), ("ignore_index",
                                                                 "label_smoothing")),
    "nll_loss": (lambda L: (x(L, 2, 3), L.tensor([0, 2])), ("ignore_index",)),
    "kl_div": (lambda L: (x(L, 2, 3), x(L, 2, 3)), ("log_target",)),
    "margin_ranking_loss": (lambda L: (x(L, 3), x(L, 3) * 2, L.tensor([1.0, -1.0, 1.0])),
                            ("margin",)),
    "hinge_embedding_loss": (lambda L: (x(L, 3), L.tensor([1.0, -1.0, 1.0])), ("margin",)),
    "cosine_embedding_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3) + 1, L.tensor([1.0, -1.0])),
                              ("margin",)),
    "triplet_margin_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3) + 1, x(L, 2, 3) * 2),
                            ("margin", "p", "eps", "swap")),
    "poisson_nll_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3)), ("log_input", "full", "eps")),
    "gaussian_nll_loss": (lambda L: (x(L, 2, 3), x(L, 2, 3), L.ones(2, 3)), ("full", "eps")),
    "multi_margin_loss": (lambda L: (x(L, 2, 3), L.tensor([0, 2])), ("p", "margin")),
    "binary_cross_entropy_with_logits": (lambda L: (x(L, 2, 3), x(L, 2, 3)), ("reduction",)),
    "grid_sample": (lambda L: (x(L, 1, 1, 3, 3), L.zeros(1, 2, 2, 2)), ("align_corners",)),
    "affine_grid": (lambda L: (L.eye(2, 3)[None], (1, 1, 2, 2)), ("align_corners",)),
    "local_response_norm": (lambda L: (x(L, 1, 4, 3), 2), ("alpha", "beta", "k")),
    "rms_norm": (lambda L: (x(L, 2, 3), (3,)), ("eps",)),
}


def outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001
        return "E", type(error).__name__, (str(error).splitlines() or [""])[0]
    return "R", norm(result)


def norm(result):
    if isinstance(result, (tuple, list)):
        return tuple(norm(r) for r in result)
    if hasattr(result, "dtype") and hasattr(result, "tolist"):
        return str(result.dtype).split(".")[-1], repr(np.round(np.asarray(
            result.detach().tolist(), dtype=np.float64), 5).tolist())
    return repr(result)


def run():
    for name, (make, keywords) in CALLS.items():
        try:
            signature = inspect.signature(getattr(torch.nn.functional, name))
        except ValueError:  # (a C function: leafgrad's signature spells torch's)
            signature = inspect.signature(getattr(leafgrad.nn.functional, name))
        positions = list(signature.parameters)
        for keyword in keywords:
            index = positions.index(keyword) if keyword in positions else 10 ** 6
            for label, value in VALUES.items():
                def by_keyword(L):
                    return getattr(L.nn.functional, name)(*make(L), **{keyword: value(L)})

                def by_position(L):
                    args = list(make(L))
                    if len(args) > index:
                        return None
                    defaults = [signature.parameters[p].default
                                for p in positions[len(args):index]]
                    return getattr(L.nn.functional, name)(*args, *defaults, value(L))

                for form, call in (("keyword", by_keyword), ("position", by_position)):
                    torch.manual_seed(0)
                    leafgrad.manual_seed(0)
                    expected = outcome(lambda: call(torch))
                    got = outcome(lambda: call(leafgrad))
                    if expected != got:
                        print(name, keyword, label, form, expected, got, sep=" | ")


if __name__ == "__main__":
    run()
