"""``SummaryWriter``: TensorBoard event files (see the package's docstring)."""

from __future__ import annotations

import os
import time

import numpy as np
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _media, _summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Events into one directory's event file (tensorboard's EventFileWriter)."""

    def __init__(self, log_dir, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None) -> None:
        """A ``(GraphDef, RunMetadata)`` pair (``_graph.graph``'s): the graph, then its step
        statistics tagged ``step1``, as torch's FileWriter writes them."""
        graph_def, stats = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()), None, walltime)
        tagged = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=stats.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=tagged), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()


def _default_bins() -> list:
    """TensorFlow's histogram buckets: +-1e-12 growing by 10% to 1e20, and 0."""
    edges = []
    edge = 1e-12
    while edge < 1e20:
        edges.append(edge)
        edge *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


class SummaryWriter:
    """Writes TensorBoard summaries to ``log_dir`` (default ``runs/<date>_<host><comment>``)."""

    def __init__(self, log_dir=None, comment: str = "", purge_step=None, max_queue: int = 10,
                 flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            import socket
            from datetime import datetime

            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self) -> FileWriter:
        """The writer of ``log_dir`` (made again after ``close``)."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:  # TensorBoard drops older events from this step on
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(
                    Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        summary = _summary.scalar(tag, scalar_value, new_style=new_style,
                                  double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """Several scalars in one chart: each in its own run directory
        ``<log_dir>/<main_tag>_<tag>``, under the tag ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            directory = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(directory)
            if writer is None:
                writer = FileWriter(directory, self.max_queue, self.flush_secs,
                                    self.filename_suffix)
                self.all_writers[directory] = writer
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None) -> None:
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(
            _summary.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares,  # noqa: A002
                          bucket_limits, bucket_counts, global_step=None, walltime=None) -> None:
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary

        histogram = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                                   bucket_limit=bucket_limits, bucket=bucket_counts)
        self._get_file_writer().add_summary(
            Summary(value=[Summary.Value(tag=tag, histo=histogram)]), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None,
                  dataformats="CHW") -> None:
        """One image (floats in [0, 1] or uint8), axes named by ``dataformats``, as a PNG."""
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None,
                   dataformats="NCHW") -> None:
        """A batch of images tiled eight a row into one PNG."""
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(self, tag, img_tensor, box_tensor, global_step=None,
                             walltime=None, rescale=1, dataformats="CHW", labels=None) -> None:
        """An image with boxes (rows of xmin, ymin, xmax, ymax) and their labels drawn on it
        (labels of another count than the boxes are dropped, as torch's)."""
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            if len(labels) != box_tensor.shape[0]:
                labels = None
        self._get_file_writer().add_summary(
            _summary.image_boxes(tag, img_tensor, box_tensor, rescale=rescale,
                                 dataformats=dataformats, labels=labels), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close: bool = True,
                   walltime=None) -> None:
        """A matplotlib figure (or a list of them, tiled) rendered as an image."""
        images = _figure_to_image(figure, close)
        self.add_image(tag, images, global_step, walltime,
                       dataformats="NCHW" if isinstance(figure, list) else "CHW")

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None) -> None:
        labels, predictions = _as_array(labels), _as_array(predictions)
        self._get_file_writer().add_summary(
            _summary.pr_curve(tag, labels, predictions, num_thresholds, weights), global_step,
            walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         global_step=None, num_thresholds=127, weights=None,
                         walltime=None) -> None:
        self._get_file_writer().add_summary(
            _summary.pr_curve_raw(tag, true_positive_counts, false_positive_counts,
                                  true_negative_counts, false_negative_counts, precision,
                                  recall, num_thresholds, weights), global_step, walltime)

    @staticmethod
    def _encode(rawstr: str) -> str:
        """A tag as a directory name: %, / and \\ as %xx."""
        return rawstr.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None,
                      tag="default", metadata_header=None) -> None:
        """Points (N x D) for TensorBoard's projector, with labels and sprite images; each call
        adds to ``projector_config.pbtxt``."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        from . import _embedding

        mat = _as_array(mat)
        if global_step is None:
            global_step = 0
        subdir = f"{str(global_step).zfill(5)}/{self._encode(tag)}"
        save_path = os.path.join(self._get_file_writer().get_logdir(), subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise NotADirectoryError(
                    f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            _embedding.write_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _embedding.write_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError(
                "mat should be 2D, where mat.size(0) is the number of data points")
        _embedding.write_matrix(mat, save_path)
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend(
            [_embedding.embedding_info(metadata, label_img, subdir, global_step, tag)])
        config = text_format.MessageToString(self._projector_config)
        _embedding._write(self._get_file_writer().get_logdir(), "projector_config.pbtxt",
                          config.encode())

    def add_tensor(self, tag, tensor, global_step=None, walltime=None) -> None:
        """The whole tensor, for the tensor plugin."""
        from .summary import tensor_proto

        self._get_file_writer().add_summary(tensor_proto(tag, tensor), global_step, walltime)

    def add_custom_scalars(self, layout) -> None:
        """The custom-scalars dashboard's layout: ``{category: {title: ["Multiline", tags] or
        ["Margin", [value, lower, upper]]}}``."""
        self._get_file_writer().add_summary(_summary.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category="default",
                                          title="untitled") -> None:
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default",
                                       title="untitled") -> None:
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100,
                  walltime=None) -> None:
        self._get_file_writer().add_summary(
            _media.audio(tag, snd_tensor, sample_rate=sample_rate), global_step, walltime)

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None) -> None:
        self._get_file_writer().add_summary(_media.video(tag, vid_tensor, fps), global_step,
                                            walltime)

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None,
                 global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(
            _media.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """``model``'s forward on ``input_to_model`` (a tensor or a tuple of them) as a graph
        for TensorBoard's Graphs tab (utils/tensorboard/_graph.py)."""
        from ._graph import graph

        self._get_file_writer().add_graph(graph(model, input_to_model, verbose,
                                                use_strict_trace))

    def add_onnx_graph(self, prototxt) -> None:
        """An ONNX model's graph (needs the onnx package, as torch's)."""
        import onnx  # noqa: F401 - without it: ModuleNotFoundError, as torch's
        from tensorboard.compat.proto.graph_pb2 import GraphDef  # noqa: F401

        raise NotImplementedError("add_onnx_graph: converting an ONNX model to a GraphDef")

    def add_text(self, tag, text_string, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step,
                                            walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None) -> None:
        """A hyperparameter run (``<log_dir>/<run_name>``) with its metrics."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = _summary.hparams(hparam_dict, metric_dict,
                                                  hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as run:
            for summary in (experiment, start, end):
                run.file_writer.add_summary(summary, global_step)
            for key, value in metric_dict.items():
                run.add_scalar(key, value, global_step)

    def flush(self) -> None:
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _figure_to_image(figures, close: bool = True) -> np.ndarray:
    """matplotlib figures rendered (Agg) to CHW uint8 RGB, stacked if a list."""
    import matplotlib.backends.backend_agg as backend_agg
    import matplotlib.pyplot as plt

    def render(figure):
        canvas = backend_agg.FigureCanvasAgg(figure)
        canvas.draw()
        data = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8)
        width, height = figure.canvas.get_width_height()
        chw = np.moveaxis(data.reshape([height, width, 4])[:, :, 0:3], source=2, destination=0)
        if close:
            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(figure) for figure in figures])
    return render(figures)


def _as_array(value) -> np.ndarray:
    """A NumPy array, number or tensor (detached; bfloat16 as float16, as torch's make_np) as
    a NumPy array."""
    if isinstance(value, np.ndarray):
        return value
    if np.isscalar(value):
        return np.array([value])
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        from ... import bfloat16, float16

        if value.dtype == bfloat16:
            value = value.to(float16)
        return value.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(value)}, but numpy array or torch tensor are expected.")
