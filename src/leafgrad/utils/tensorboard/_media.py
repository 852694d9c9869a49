"""Audio (WAV), video (GIF, with moviepy as torch) and mesh summaries: torch's ``summary.py``
layouts."""

from __future__ import annotations

import io
import json
import wave

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ..._creation import as_tensor
from ._summary import _array

__all__ = ["audio", "mesh", "video"]


def audio(tag, tensor, sample_rate=44100):
    """One channel of 16-bit PCM: values beyond [-1, 1] are clipped (torch prints a
    warning)."""
    array = _array(tensor).squeeze()
    if abs(array).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        array = array.clip(-1, 1)
    if array.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    array = (array * np.iinfo(np.int16).max).astype("<i2")
    output = io.BytesIO()
    with wave.open(output, "wb") as wave_write:
        wave_write.setnchannels(1)
        wave_write.setsampwidth(2)
        wave_write.setframerate(sample_rate)
        wave_write.writeframes(array.data)
    sound = Summary.Audio(sample_rate=sample_rate, num_channels=1,
                          length_frames=array.shape[-1],
                          encoded_audio_string=output.getvalue(), content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=tag, audio=sound)])


def _prepare_video(frames: np.ndarray) -> np.ndarray:
    """BTCHW -> T(H*rows)(W*cols)C: the batch tiled into a grid per frame (padded with black
    videos to a power of two)."""
    batch, time, channels, height, width = frames.shape
    if frames.dtype == np.uint8:
        frames = np.float32(frames) / 255.0
    if not (batch != 0 and (batch & (batch - 1)) == 0):
        padding = int(2 ** frames.shape[0].bit_length() - frames.shape[0])
        frames = np.concatenate(
            (frames, np.zeros(shape=(padding, time, channels, height, width))), axis=0)
    rows = 2 ** ((batch.bit_length() - 1) // 2)
    cols = frames.shape[0] // rows
    frames = np.reshape(frames, (rows, cols, time, channels, height, width))
    frames = np.transpose(frames, axes=(2, 0, 4, 1, 5, 3))
    return np.reshape(frames, (time, rows * height, cols * width, channels))


def video(tag, tensor, fps=4):
    frames = _prepare_video(_array(tensor))
    scale = 1 if frames.dtype == np.uint8 else 255
    frames = (frames.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=_gif(frames, fps))])


def _gif(frames: np.ndarray, fps):
    """The frames as a GIF image (moviepy, as torch; without it torch prints a note and the
    summary has an empty image)."""
    try:
        import moviepy  # noqa: F401
    except ImportError:
        print("add_video needs package moviepy")
        return None
    try:
        from moviepy import editor as mpy
    except ImportError:
        print("moviepy is installed, but can't import moviepy.editor.",
              "Some packages could be missing [imageio, requests]")
        return None
    import tempfile

    _, height, width, channels = frames.shape
    clip = mpy.ImageSequenceClip(list(frames), fps=fps)
    with tempfile.NamedTemporaryFile(suffix=".gif") as file:
        try:  # (the keyword arguments moviepy takes changed between its versions)
            clip.write_gif(file.name, verbose=False, logger=None)
        except TypeError:
            try:
                clip.write_gif(file.name, verbose=False, progress_bar=False)
            except TypeError:
                clip.write_gif(file.name, verbose=False)
        file.seek(0)
        encoded = file.read()
    return Summary.Image(height=height, width=width, colorspace=channels,
                         encoded_image_string=encoded)


def mesh(tag, vertices, colors, faces, config_dict, display_name=None, description=None):
    """Vertices, faces and colors (each BN3) for the mesh plugin, one tensor summary each."""
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

    json_config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(part, kind) for part, kind in ((vertices, MeshPluginData.VERTEX),
                                             (faces, MeshPluginData.FACE),
                                             (colors, MeshPluginData.COLOR))
             if part is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    values = []
    for part, kind in parts:
        part = as_tensor(part)
        shape = tuple(part.shape)
        part_metadata = metadata.create_summary_metadata(
            tag, display_name, kind, components, part.shape, description,
            json_config=json_config)
        proto = TensorProto(
            dtype="DT_FLOAT", float_val=part.reshape(-1).tolist(),
            tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=size)
                                               for size in shape[:3]]))
        values.append(Summary.Value(tag=metadata.get_instance_name(tag, kind), tensor=proto,
                                    metadata=part_metadata))
    return Summary(value=values)
