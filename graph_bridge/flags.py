"""PyTensor config flags read on the paths that build nodes, without the config's descriptor.

``config.floatX`` calls a Python ``__get__`` (about 0.1 us); building one
node reads four flags.  Every write of a flag (``config.change_flags``,
assignment) goes through the flag's ``ConfigParam.__set__``, which stores
the value as the param's ``val``; reading ``val`` directly gives the same
value, with flags changed by tests honoured.

    >>> from graph_bridge.flags import FLOATX
    >>> from pytensor import config
    >>> with config.change_flags(floatX="float32"):
    ...     FLOATX.val
    'float32'
"""

from __future__ import annotations

from typing import Any

from pytensor import config

__all__ = ["CAST_POLICY", "FLOATX", "TRACEBACK_LIMIT", "WARN_FLOAT64", "flag"]


class _Read:
    """A flag read through ``config`` (when the param is not where :func:`flag` looks)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def val(self) -> Any:
        return getattr(config, self.name)


def flag(name: str) -> Any:
    """An object whose ``val`` is ``getattr(config, name)`` at the time it is read."""
    getattr(config, name)  # the param reads its value from the environment on first use
    param = getattr(config, "_config_var_dict", {}).get(name)
    if param is None or type(config).__dict__.get(name) is not param or not hasattr(param, "val"):
        return _Read(name)
    return param


FLOATX = flag("floatX")
CAST_POLICY = flag("cast_policy")
TRACEBACK_LIMIT = flag("traceback__limit")
WARN_FLOAT64 = flag("warn_float64")
