"""The summary protocol buffers SummaryWriter writes (torch's ``summary.py`` layouts)."""

from __future__ import annotations

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

__all__ = ["scalar", "histogram", "make_histogram", "text", "hparams"]


def _array(value) -> np.ndarray:
    from .writer import _as_array

    return _as_array(value)


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
