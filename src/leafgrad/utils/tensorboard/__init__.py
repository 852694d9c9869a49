"""``torch.utils.tensorboard``: logging scalars, histograms, text, hyperparameters, images
(with boxes), tensors, custom-scalar layouts, audio, video, meshes, matplotlib figures,
precision-recall curves and projector embeddings for TensorBoard.

The event files are written with the ``tensorboard`` package's own writer and protocol
buffers (an optional dependency, as for torch), so TensorBoard reads them as it reads torch's:
the same tags, steps, values, histogram buckets, PNG/WAV bytes (Pillow and wave, as torch) and
projector files, and model graphs (``add_graph``: the forward recorded op by op, _graph.py).
What is not here: ``add_onnx_graph`` (it needs the onnx package, then says it is not
implemented).
"""

from __future__ import annotations

import tensorboard  # without it: ModuleNotFoundError, as in torch

if tuple(int(part) for part in tensorboard.__version__.split(".")[:2] if part.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
