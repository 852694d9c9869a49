"""``add_embedding``'s files for TensorBoard's projector: ``<step>/<tag>/tensors.tsv``,
``metadata.tsv`` and ``sprite.png``, and ``projector_config.pbtxt`` listing them (torch's
layouts)."""

from __future__ import annotations

import math
import os

import numpy as np

from . import _summary


def write_tsv(metadata, directory: str, metadata_header=None) -> None:
    """One label a line, or (with a header) tab-separated columns under the header."""
    if not metadata_header:
        lines = [str(label) for label in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError(
                "len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(cell) for cell in row) for row in [metadata_header] + metadata]
    _write(directory, "metadata.tsv", ("\n".join(lines) + "\n").encode())


def write_sprite(label_img, directory: str) -> None:
    """The label images tiled into one square PNG, ceil(sqrt(N)) a row."""
    from PIL import Image

    ncols = math.ceil(label_img.size(0) ** 0.5)
    tiled = _summary.grid(_summary._array(label_img), ncols=ncols)
    square = np.zeros((tiled.shape[2], tiled.shape[2], 3))
    square[:tiled.shape[1], :, :] = tiled.transpose(1, 2, 0)
    picture = Image.fromarray(np.uint8((square * 255).clip(0, 255)))
    import io

    with io.BytesIO() as buffer:
        picture.save(buffer, format="PNG")
        _write(directory, "sprite.png", buffer.getvalue())


def write_matrix(matrix: np.ndarray, directory: str) -> None:
    rows = ["\t".join(str(value.item()) for value in row) + "\n" for row in matrix]
    _write(directory, "tensors.tsv", "".join(rows).encode())


def embedding_info(metadata, label_img, subdir: str, global_step, tag: str):
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

    info = EmbeddingInfo()
    info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
    info.tensor_path = os.path.join(subdir, "tensors.tsv")
    if metadata is not None:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.size(3), label_img.size(2)])
    return info


def _write(directory: str, name: str, data: bytes) -> None:
    with open(os.path.join(directory, name), "wb") as handle:
        handle.write(data)
