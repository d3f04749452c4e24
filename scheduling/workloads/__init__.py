"""Workloads: synthetic job streams and their distributions; SWF traces (:mod:`.swf`).

Each name is imported from its module on first access (PEP 562): replaying a trace does not
import the synthetic distributions, and the reverse.
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .distributions import (
        MISP,
        SEED002_NORMAL_DIMS,
        CountsOn,
        CubeDims,
        CubeDiscreteNormal,
        Exponential,
        LinearSpeedup,
        MeshSides,
        Squares,
        TruncatedExponential,
        TruncatedExponentialCount,
        TruncatedNormal,
        Uniform,
        UniformCount,
    )
    from .downey import Downey
    from .ismail_dynamic import ISMAIL_DYNAMIC_EXECUTION, Labelled, ismail_dynamic
    from .offered import LOAD_BASES, granted_ratio, mean_granted_size
    from .placements import PlacementFileError, read_placements, write_placements
    from .swf import (
        SkippedLine,
        SWFError,
        SWFHeader,
        SWFReadError,
        SWFRecord,
        SWFReport,
        SWFTrace,
        SWFWarning,
        TraceNotFoundError,
        load_swf,
        read_swf,
        trace_path,
        traces_dir,
        write_records,
        write_swf,
    )
    from .synthetic import STREAMS, Synthetic, arrival_rate, offered_load, streams

__all__ = [
    "Downey",
    "ismail_dynamic",
    "Labelled",
    "ISMAIL_DYNAMIC_EXECUTION",
    "Synthetic",
    "arrival_rate",
    "offered_load",
    "mean_granted_size",
    "granted_ratio",
    "LOAD_BASES",
    "streams",
    "STREAMS",
    "MeshSides",
    "Squares",
    "CubeDims",
    "CubeDiscreteNormal",
    "SEED002_NORMAL_DIMS",
    "UniformCount",
    "TruncatedExponentialCount",
    "CountsOn",
    "Exponential",
    "TruncatedNormal",
    "Uniform",
    "TruncatedExponential",
    "LinearSpeedup",
    "MISP",
    "SWFRecord",
    "SWFHeader",
    "SWFReport",
    "SWFTrace",
    "SkippedLine",
    "SWFError",
    "SWFReadError",
    "SWFWarning",
    "TraceNotFoundError",
    "read_swf",
    "load_swf",
    "write_swf",
    "write_records",
    "write_placements",
    "read_placements",
    "PlacementFileError",
    "trace_path",
    "traces_dir",
]

#: Where each public name is defined: name -> module of this package.
_LAZY_ATTRS = {
    **dict.fromkeys((
        "MISP", "SEED002_NORMAL_DIMS", "CountsOn", "CubeDims", "CubeDiscreteNormal", "Exponential", "LinearSpeedup",
        "MeshSides", "Squares", "TruncatedExponential", "TruncatedExponentialCount", "TruncatedNormal", "Uniform",
        "UniformCount"
    ), "distributions"),
    "Downey": "downey",
    **dict.fromkeys(("ISMAIL_DYNAMIC_EXECUTION", "Labelled", "ismail_dynamic"), "ismail_dynamic"),
    **dict.fromkeys(("LOAD_BASES", "granted_ratio", "mean_granted_size"), "offered"),
    **dict.fromkeys(("PlacementFileError", "read_placements", "write_placements"), "placements"),
    **dict.fromkeys((
        "SkippedLine", "SWFError", "SWFHeader", "SWFReadError", "SWFRecord", "SWFReport", "SWFTrace", "SWFWarning",
        "TraceNotFoundError", "load_swf", "read_swf", "trace_path", "traces_dir", "write_records", "write_swf"
    ), "swf"),
    **dict.fromkeys(("STREAMS", "Synthetic", "arrival_rate", "offered_load", "streams"), "synthetic"),
}
_SUBMODULES = frozenset({*_LAZY_ATTRS.values(), "ismail"})


class _Package(types.ModuleType):
    """This package's module type. The submodule :mod:`.ismail_dynamic` has the name of the
    function it defines; binding the submodule to the package once it is imported (what the import
    system does) keeps the function there instead, as importing the function eagerly did."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "ismail_dynamic" and isinstance(value, types.ModuleType):
            value = value.ismail_dynamic
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in _LAZY_ATTRS:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY_ATTRS[name]}"), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_ATTRS) | _SUBMODULES)
