"""The summary protocol buffers SummaryWriter writes (torch's ``summary.py`` layouts)."""

from __future__ import annotations

import io

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

__all__ = ["scalar", "histogram", "make_histogram", "text", "hparams", "image", "pr_curve",
           "pr_curve_raw", "custom_scalars", "image_boxes"]


def _array(value) -> np.ndarray:
    from .writer import _as_array

    return _as_array(value)


def custom_scalars(layout):
    """The custom-scalars plugin's layout: ``{category: {chart title: ["Multiline", tags] or
    ["Margin", [value, lower, upper]]}}``."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        made = []
        for title, (kind, tags) in ((title, chart[:2]) for title, chart in charts.items()):
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                margin = layout_pb2.MarginChartContent(series=[
                    layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                         upper=tags[2])])
                made.append(layout_pb2.Chart(title=title, margin=margin))
            else:
                multiline = layout_pb2.MultilineChartContent(tag=tags)
                made.append(layout_pb2.Chart(title=title, multiline=multiline))
        categories.append(layout_pb2.Category(title=category, chart=made))
    serialized = layout_pb2.Layout(category=categories).SerializeToString()
    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    tensor = TensorProto(dtype="DT_STRING", string_val=[serialized],
                         tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=tensor,
                                        metadata=metadata)])


def scalar(name, value, collections=None, new_style: bool = False,
           double_precision: bool = False):
    """A one-value summary: ``simple_value``, or (new_style) a scalar tensor the scalars
    plugin reads."""
    array = _array(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(  # (torch's message, with its line continuation's spaces)
            "Tensor should contain one element (0 dimensions).             Was given size: "
            f"{array.size} and {array.ndim} dimensions.")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    proto = (TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[number], dtype="DT_FLOAT"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def histogram(name, values, bins, max_bins=None):
    return Summary(value=[Summary.Value(
        tag=name, histo=make_histogram(_array(values).astype(float), bins, max_bins))])


def make_histogram(values, bins, max_bins=None):
    """NumPy's histogram of ``values``, at most ``max_bins`` buckets (neighbours merged), with
    the empty buckets at both ends dropped but one empty bucket kept before the first full one."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        leftover = len(counts) % group
        if leftover:
            counts = np.pad(counts, (0, group - leftover))
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    full = np.cumsum(counts > 0)
    first, last = np.searchsorted(full, [0, full[-1] - 1], side="right")
    first, last = int(first), int(last) + 1
    counts = counts[first - 1:last] if first > 0 else np.concatenate([[0], counts[:last]])
    limits = limits[first:last + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(),
                          bucket=counts.tolist())


def text(tag, text_string):
    """A text summary (Markdown) for the text plugin, under ``<tag>/text_summary``."""
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode(encoding="utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata,
                                        tensor=proto)])


def _plugin_summary(tag: str, **data):
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    content = HParamsPluginData(version=PLUGIN_DATA_VERSION, **data)
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name=PLUGIN_NAME, content=content.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The hparams plugin's three summaries: the experiment, a session's start (the values)
    and its end."""
    from tensorboard.plugins.hparams.api_pb2 import (DataType, Experiment, HParamInfo,
                                                     MetricInfo, MetricName, Status)
    from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, SESSION_END_INFO_TAG,
                                                      SESSION_START_INFO_TAG)
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for key, domain in domains.items():
        if key not in hparam_dict or not isinstance(domain, list) or not all(
                isinstance(d, type(hparam_dict[key])) for d in domain):
            raise TypeError(f"parameter: hparam_domain_discrete[{key}] should be a list of same "
                            f"type as hparam_dict[{key}].")
    infos = []
    start = SessionStartInfo()
    for key, value in hparam_dict.items():
        if value is None:
            continue
        if hasattr(value, "detach") and hasattr(value, "numpy"):
            value = float(_array(value).reshape(-1)[0])
        # (bool is an int: numbers first, as torch checks them)
        for kinds, field, data_type in (((int, float), "number_value", "DATA_TYPE_FLOAT64"),
                                        ((str,), "string_value", "DATA_TYPE_STRING"),
                                        ((bool,), "bool_value", "DATA_TYPE_BOOL")):
            if isinstance(value, kinds):
                setattr(start.hparams[key], field, value)
                domain = None
                if key in domains:
                    domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d})
                                                          for d in domains[key]])
                infos.append(HParamInfo(name=key, type=DataType.Value(data_type),
                                        domain_discrete=domain))
                break
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
    experiment = Experiment(hparam_infos=infos,
                            metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_plugin_summary(EXPERIMENT_TAG, experiment=experiment),
            _plugin_summary(SESSION_START_INFO_TAG, session_start_info=start),
            _plugin_summary(SESSION_END_INFO_TAG,
                            session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))


# -- images --------------------------------------------------------------------------------------


def grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """N1HW or N3HW images tiled row by row, ``ncols`` a row, into one 3HW canvas (zeros
    where the last row is short)."""
    if not isinstance(images, np.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    count, _, height, width = images.shape
    ncols = min(count, ncols)
    nrows = int(np.ceil(float(count) / ncols))
    canvas = np.zeros((3, height * nrows, width * ncols), dtype=images.dtype)
    for index in range(count):
        row, col = divmod(index, ncols)
        canvas[:, row * height:(row + 1) * height, col * width:(col + 1) * width] = images[index]
    return canvas


def to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """An image (HW, CHW-like) or a batch (NCHW-like, tiled by ``grid``) as HWC with 3 or 4
    channels, the letters of ``dataformats`` naming the axes."""
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(  # (torch's message, with its line continuation's spaces)
            "You can not use the same dimension shorthand twice.             input_format: "
            f"{dataformats}")
    if array.ndim != len(dataformats):
        raise AssertionError(
            "size of input tensor and input format are different.         tensor shape: "
            f"{array.shape}, input_format: {dataformats}")
    dataformats = dataformats.upper()
    if len(dataformats) == 4:
        nchw = array.transpose([dataformats.find(axis) for axis in "NCHW"])
        return grid(nchw).transpose(1, 2, 0)
    if len(dataformats) == 3:
        hwc = array.transpose([dataformats.find(axis) for axis in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = array.transpose([dataformats.find(axis) for axis in "HW"])
    return np.stack([hw] * 3, 2)


def image(tag, value, rescale=1, dataformats="NCHW"):
    """A PNG image summary: floats are read as [0, 1], uint8 as [0, 255] (torch's scaling)."""
    hwc = to_hwc(_array(value), dataformats)
    scale = 1 if hwc.dtype == np.uint8 else 255
    pixels = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=_png(pixels, rescale))])


def image_boxes(tag, value, boxes, rescale=1, dataformats="CHW", labels=None):
    """An image with boxes (rows of xmin, ymin, xmax, ymax) drawn in red, each with its label
    if given, as torch's (Pillow draws both)."""
    hwc = to_hwc(_array(value), dataformats)
    scale = 1 if hwc.dtype == np.uint8 else 255
    pixels = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(
        tag=tag, image=_png(pixels, rescale, boxes=_array(boxes), labels=labels))])


def _draw_box(picture, left, top, right, bottom, label, color="Red", text_color="black",
              thickness=2):
    from PIL import ImageDraw, ImageFont

    font = ImageFont.load_default()
    draw = ImageDraw.Draw(picture)
    draw.line([(left, top), (left, bottom), (right, bottom), (right, top), (left, top)],
              width=thickness, fill=color)
    if label:
        text_left, text_top, text_right, text_bottom = font.getbbox(label)
        text_width, text_height = text_right - text_left, text_bottom - text_top
        margin = np.ceil(0.05 * text_height)
        draw.rectangle([(left, bottom - text_height - 2 * margin), (left + text_width, bottom)],
                       fill=color)
        draw.text((left + margin, bottom - text_height - margin), label, fill=text_color,
                  font=font)


def _png(pixels: np.ndarray, rescale=1, boxes=None, labels=None):
    from PIL import Image

    height, width, channels = pixels.shape
    picture = Image.fromarray(pixels)
    if boxes is not None:
        for index in range(boxes.shape[0]):
            left, top, right, bottom = (boxes[index, k] for k in range(4))
            _draw_box(picture, left, top, right, bottom,
                      None if labels is None else labels[index])
    picture = picture.resize((int(width * rescale), int(height * rescale)),
                             Image.Resampling.LANCZOS)
    output = io.BytesIO()
    picture.save(output, format="PNG")
    return Summary.Image(height=height, width=width, colorspace=channels,
                         encoded_image_string=output.getvalue())


# -- precision-recall curves ----------------------------------------------------------------------


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    return _pr_summary(tag, np.stack((tp, fp, tn, fn, precision, recall)), num_thresholds)


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    num_thresholds = min(num_thresholds, 127)  # (torch: more breaks its protocol buffer)
    return _pr_summary(tag, _curve(labels, predictions, num_thresholds, weights),
                       num_thresholds)


def _curve(labels, predictions, num_thresholds, weights=None):
    """TensorBoard's pr_curve plugin's counts: predictions binned into ``num_thresholds``
    buckets, the counts at or above each threshold, and precision/recall from them."""
    weights = 1.0 if weights is None else weights
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets = np.histogram(buckets, bins=num_thresholds, range=span,
                              weights=positive * weights)[0]
    fp_buckets = np.histogram(buckets, bins=num_thresholds, range=span,
                              weights=(1.0 - positive) * weights)[0]
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def _pr_summary(tag, data: np.ndarray, num_thresholds: int):
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    if num_thresholds > 127:
        num_thresholds = 127
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="pr_curves", content=content))
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=size) for size in data.shape[:2]])
    proto = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(),
                        tensor_shape=shape)
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=proto)])
