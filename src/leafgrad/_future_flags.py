"""``leafgrad.__future__`` (this file under another name: see leafgrad/__init__.py): switches for behaviour torch plans to change (torch.__future__).

``set_swap_module_params_on_conversion(True)``: ``Module.to()``/``.double()``/... and
``load_state_dict`` swap each parameter's contents with its converted (loaded) version through
``leafgrad.utils.swap_tensors``, keeping the Parameter objects; ``set_overwrite_module_params_
on_conversion(True)``: they put new Parameter objects in the module instead. Neither (the
default): the parameters' data are replaced in place.
"""

_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    return _swap_module_params_on_conversion
