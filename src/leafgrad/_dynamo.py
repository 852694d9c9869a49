"""``torch._dynamo``: the names scripts written for ``torch.compile`` reach for.

leafgrad's compiler is ``leafgrad.compile`` (``_compile/``); this module gives its controls
torch's spellings: ``reset``, ``disable``, ``explain``, ``graph_break``, ``is_compiling``,
``mark_dynamic`` and friends, and ``config``, whose keys and defaults are torch 2.13's (so a
script that sets ``suppress_errors`` or ``cache_size_limit`` runs). Of the settings, only
``cache_size_limit`` (alias ``recompile_limit``: captures kept per function before it runs
eagerly) changes what leafgrad does; leafgrad never raises at a graph break unless
``fullgraph=True``, which is ``suppress_errors``' purpose in torch.
"""

from __future__ import annotations

import os as _os

from . import compiler as _compiler
from ._compile import api as _api
from ._compile.capture import InvalidBackend, TorchDynamoException, Unsupported
from ._compile.module import OptimizedModule
from ._compile.state import state as _state

__all__ = ["reset", "disable", "explain", "graph_break", "is_compiling", "mark_dynamic",
           "maybe_mark_dynamic", "mark_static", "allow_in_graph", "assume_constant_result",
           "list_backends", "optimize", "config", "OptimizedModule", "Unsupported",
           "InvalidBackend", "TorchDynamoException"]

reset = _compiler.reset
disable = _compiler.disable
is_compiling = _compiler.is_compiling
allow_in_graph = _compiler.allow_in_graph
assume_constant_result = _compiler.assume_constant_result
list_backends = _compiler.list_backends


def explain(f, *extra_args, **extra_kwargs):
    """``torch._dynamo.explain(f)(*args)`` (and the older ``explain(f, *args)``): what a capture
    of ``f`` finds, its graphs and graph breaks (``leafgrad.compile.explain``)."""
    if extra_args or extra_kwargs:
        return _api.explain(f, *extra_args, **extra_kwargs)
    return lambda *args, **kwargs: _api.explain(f, *args, **kwargs)


def graph_break(msg: str = "") -> None:
    """Break the graph here: under a capture the call runs eagerly (``fullgraph=True`` raises);
    outside one, nothing."""
    if _state.active and _state.tracer is not None:
        _state.tracer.broke("torch._dynamo.graph_break()" + (f": {msg}" if msg else ""))


def _dims(index) -> list:
    return list(index) if isinstance(index, (list, tuple)) else [index]


def _mark(t, attribute: str, dims) -> None:
    marked = getattr(t, attribute, set())
    marked.update(dims)
    setattr(t, attribute, marked)
    t._has_dynamo_dim_marking = True


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None):
    """Mark dims of ``t`` dynamic, recorded on it as torch does (``_dynamo_dynamic_indices``).
    leafgrad's captures are specialised to shapes anyway: a new size captures again."""
    _mark(t, "_dynamo_dynamic_indices", _dims(index))


def maybe_mark_dynamic(t, index) -> None:
    _mark(t, "_dynamo_weak_dynamic_indices", _dims(index))


def mark_static(t, index=None) -> None:
    """Mark dims of ``t`` static (every dim when ``index`` is None)."""
    _mark(t, "_dynamo_static_indices", range(t.dim()) if index is None else _dims(index))


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None,
             guard_fail_fn=None, guard_filter_fn=None, disable=False, dynamic=None, **kwargs):
    """The older spelling of ``torch.compile``: ``optimize(backend)(fn)``."""
    if disable:
        return lambda fn: fn
    return lambda fn: _compiler.compile(fn, fullgraph=nopython, dynamic=bool(dynamic),
                                        backend=backend)


# torch 2.13's torch._dynamo.config keys and their defaults (get_config_copy(), public keys);
# base_dir and debug_dir_root are paths, torch's installation's and the working directory's.
_DEFAULTS = {
    'TYPE_CHECKING': False,
    'log_file_name': None,
    'verbose': False,
    'verify_correctness': False,
    'debug_backend_override': '',
    'debug_inductor_config_override': '',
    'debug_dynamo_config_override': '',
    'leaf_function_validate_outputs': False,
    'leaf_function_check_escaped_gradients': False,
    'minimum_call_count': 1,
    'dead_code_elimination': None,
    'replay_side_effects': True,
    'generate_pycode': False,
    'side_effect_replay_policy': 'info',
    'recompile_limit': 8,
    'accumulated_recompile_limit': 256,
    'skip_code_recursive_on_recompile_limit_hit': True,
    'fail_on_recompile_limit_hit': False,
    'specialize_int': False,
    'specialize_float': False,
    'dynamic_shapes': True,
    'use_lazy_graph_module': True,
    'assume_static_by_default': True,
    'automatic_dynamic_shapes': True,
    'automatic_dynamic_shapes_mark_as': 'dynamic',
    'automatic_dynamic_exclusion_guard': False,
    'log_graph_in_out_metadata': False,
    'force_parameter_static_shapes': True,
    'force_nn_module_property_static_shapes': True,
    'allow_ignore_mark_dynamic': False,
    'guard_nn_modules': True,
    'guard_nn_modules_using_dict_tags': True,
    'prepare_freezing': False,
    'traceable_tensor_subclasses': set(),
    'nontraceable_tensor_subclasses': set(),
    'suppress_errors': False,
    'replay_record_enabled': False,
    'rewrite_assert_with_torch_assert': True,
    'disable': False,
    'cprofile': False,
    'dynamo_profiler': False,
    'skipfiles_inline_module_allowlist': {},
    'allowed_functions_module_string_ignorelist': {'torch.distributions', 'torch._decomp', 'torch._refs', 'torch._prims', 'torch.testing'},
    'repro_after': None,
    'repro_level': 2,
    'repro_forward_only': False,
    'repro_tolerance': 0.001,
    'repro_ignore_non_fp': False,
    'same_two_models_use_fp64': True,
    'capture_scalar_outputs': False,
    'capture_dynamic_output_shape_ops': False,
    'prefer_deferred_runtime_asserts_over_guards': False,
    'force_unspec_int_unbacked_size_like_on_torchrec_kjt': False,
    'allow_unspec_int_on_nn_module': False,
    'optimize_ddp': True,
    'do_not_emit_runtime_asserts': False,
    'skip_torchrec': True,
    'dont_skip_tracing': False,
    'optimize_ddp_lazy_compile': False,
    'use_lamba_guard_for_object_aliasing': True,
    'skip_fsdp_guards': True,
    'skip_nnmodule_hook_guards': True,
    'skip_no_tensor_aliasing_guards_on_parameters': True,
    'skip_tensor_guards_with_matching_dict_tags': True,
    'skip_guards_on_constant_func_defaults': False,
    'assume_dunder_attributes_remain_unchanged': True,
    'use_recursive_dict_tags_for_guards': False,
    'max_saved_pointers_for_recursive_dict_tags_check': 256,
    'raise_on_ctx_manager_usage': True,
    'raise_on_unsafe_aot_autograd': False,
    'error_on_nested_jit_trace': True,
    'error_on_nested_fx_trace': True,
    'force_compile_during_fx_trace': False,
    'allow_rnn': False,
    'capture_sparse_compute': True,
    'error_on_recompile': False,
    'report_guard_failures': True,
    'base_dir': _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))),
    'trace_numpy': True,
    'trace_autograd_ops': False,
    'numpy_default_float': 'float64',
    'numpy_default_complex': 'complex128',
    'numpy_default_int': 'int64',
    'use_numpy_random_stream': False,
    'enable_cpp_guard_manager': True,
    'enable_cpp_symbolic_shape_guards': False,
    'enable_trace_contextlib': True,
    'enable_trace_unittest': False,
    'enable_trace_load_build_class': False,
    'enable_faithful_generator_behavior': True,
    'inline_inbuilt_nn_modules': True,
    'nested_graph_breaks': False,
    'error_on_dynamo_callback_in_fullgraph_compiled_code': False,
    'install_free_tensors': False,
    'install_free_tensors_for_export': True,
    'enable_cpp_framelocals_guard_eval': True,
    'use_graph_deduplication': False,
    'track_nodes_for_deduplication': False,
    'graph_deduplication_lint': False,
    'issue_3_13_0_warning': True,
    'allow_empty_graphs': False,
    'debug_force_nested_calls': False,
    'debug_force_graph_break_on_leaf_return': False,
    'debug_disable_compile_counter': False,
    'record_compile_time_instruction_count': False,
    'debug_dir_root': _os.path.join(_os.getcwd(), "torch_compile_debug"),
    'cudagraph_backend_keep_input_mutation': False,
    'cudagraph_backend_support_input_mutation': False,
    'only_allow_pt2_compliant_ops': False,
    'capture_autograd_function': True,
    'capture_func_transforms': True,
    'capture_profiler_record_function': False,
    'log_compilation_metrics': True,
    'reorderable_logging_functions': set(),
    'ignore_logging_functions': set(),
    'inject_BUILD_SET_unimplemented_TESTING_ONLY': False,
    'fake_tensor_cache_enabled': True,
    'fake_tensor_cache_crosscheck_enabled': False,
    'fake_tensor_disable_inference_mode': True,
    'caching_precompile': False,
    'strict_precompile': False,
    'compiled_autograd': False,
    'enable_dynamo_decompositions': True,
    'graph_break_on_nn_param_ctor': True,
    'inline_torch_dispatch_torch_compile': True,
    'skip_fwd_side_effects_in_bwd_under_checkpoint': False,
    'compiled_autograd_kwargs_override': {},
    'enable_compiler_collectives': False,
    'enable_p2p_compilation': False,
    'automatic_dynamic_local_pgo': True,
    'automatic_dynamic_remote_pgo': None,
    'pt2_compile_id_prefix': None,
    'run_gc_after_compile': True,
    'constant_fold_autograd_profiler_enabled': False,
    'wrap_top_frame': False,
    'record_runtime_overhead': True,
    'enable_aot_compile': True,
    'enable_invoke_subgraph_regional_compile': False,
    'inline_invoke_subgraph': False,
    'inline_single_use_invoke_subgraph': True,
    'invalidate_compile_context_weakrefs': None,
}
_ALIASES = {"cache_size_limit": "recompile_limit"}


class _Config:
    """``torch._dynamo.config``: attribute access to the keys above; an unknown key is torch's
    AttributeError. ``recompile_limit`` (``cache_size_limit``) is leafgrad's capture limit."""

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})

    def _key(self, name: str) -> str:
        name = _ALIASES.get(name, name)
        if name not in _DEFAULTS:
            raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        return name

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        key = self._key(name)
        if key == "recompile_limit":
            return _api.cache_size_limit
        return self._values.get(key, _DEFAULTS[key])

    def __setattr__(self, name: str, value) -> None:
        key = self._key(name)
        if key == "recompile_limit":
            _api.cache_size_limit = value
        else:
            self._values[key] = value

    def __delattr__(self, name: str) -> None:
        """Back to the default (torch's deletes the key: reading it then raises)."""
        key = self._key(name)
        if key == "recompile_limit":
            _api.cache_size_limit = _DEFAULTS[key]
        else:
            self._values.pop(key, None)

    def __dir__(self):
        return sorted(set(_DEFAULTS) | set(_ALIASES))

    def get_config_copy(self) -> dict:
        return {key: getattr(self, key) for key in _DEFAULTS}

    def patch(self, arg1=None, arg2=None, **changes):
        """``with config.patch(key=value):`` / ``config.patch("key", value)``: set, then restore
        (usable as a decorator too)."""
        if isinstance(arg1, dict):
            changes.update(arg1)
        elif arg1 is not None:
            changes[arg1] = arg2
        return _Patch(self, changes)


class _Patch:
    def __init__(self, config: _Config, changes: dict) -> None:
        self._config, self._changes, self._saved = config, changes, []

    def __enter__(self):
        for name, value in self._changes.items():
            self._saved.append((name, getattr(self._config, name)))
            setattr(self._config, name, value)
        return self

    def __exit__(self, *exc) -> None:
        for name, value in reversed(self._saved):
            setattr(self._config, name, value)
        self._saved.clear()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def patched(*args, **kwargs):
            with _Patch(self._config, self._changes):
                return fn(*args, **kwargs)
        return patched


config = _Config()
