"""Workloads: synthetic job streams and their distributions; topology constraints attached by rule
(:mod:`.constraints`) and the switch-tree workloads (:mod:`.trees`). SWF traces are read and
written by :mod:`scheduling.formats`; their names (``load_swf``, ``SWFTrace``, ``write_swf``,
``trace_path``, ...) are exported here too.

Each name is imported from its module on first access (PEP 562): replaying a trace does not
import the synthetic distributions, and the reverse.
"""

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:
    from ..formats.placements import PlacementFileError, read_placements, write_placements
    from ..formats.swf_load import SWFTrace, load_swf
    from ..formats.swf_read import read_swf
    from ..formats.swf_records import SkippedLine, SWFError, SWFHeader, SWFReadError, SWFRecord, SWFReport, SWFWarning
    from ..formats.swf_write import write_records, write_swf
    from ..formats.trace_files import TraceNotFoundError, trace_path, traces_dir
    from .constraints import (
        Constrained,
        LevelBySize,
        SizeThreshold,
        Switches,
        WithProbability,
        parse_rule,
        rule_from_json,
    )
    from .distributions import (
        MISP,
        SEED002_NORMAL_DIMS,
        BoxSides,
        CountsOn,
        CubeDims,
        CubeDiscreteNormal,
        Exponential,
        HeroMix,
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
    from .synthetic import STREAMS, Synthetic, arrival_rate, offered_load, streams
    from .trees import KUEUE_4634_LEVELS, KUEUE_4634_NAMES, hero_mix, kueue_tree

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
    "BoxSides",
    "Squares",
    "CubeDims",
    "CubeDiscreteNormal",
    "SEED002_NORMAL_DIMS",
    "UniformCount",
    "TruncatedExponentialCount",
    "HeroMix",
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
    "Constrained",
    "SizeThreshold",
    "WithProbability",
    "LevelBySize",
    "Switches",
    "rule_from_json",
    "parse_rule",
    "hero_mix",
    "kueue_tree",
    "KUEUE_4634_LEVELS",
    "KUEUE_4634_NAMES",
]

#: Where each public name is defined: name -> module of this package.
_LAZY_ATTRS = {
    **dict.fromkeys((
        "MISP", "SEED002_NORMAL_DIMS", "CountsOn", "CubeDims", "CubeDiscreteNormal", "Exponential", "LinearSpeedup",
        "MeshSides", "Squares", "TruncatedExponential", "TruncatedExponentialCount", "TruncatedNormal", "Uniform",
        "UniformCount", "HeroMix", "BoxSides"
    ), "distributions"),
    **dict.fromkeys(("Constrained", "SizeThreshold", "WithProbability", "LevelBySize", "Switches", "rule_from_json",
                     "parse_rule"), "constraints"),
    **dict.fromkeys(("hero_mix", "kueue_tree", "KUEUE_4634_LEVELS", "KUEUE_4634_NAMES"), "trees"),
    "Downey": "downey",
    **dict.fromkeys(("ISMAIL_DYNAMIC_EXECUTION", "Labelled", "ismail_dynamic"), "ismail_dynamic"),
    **dict.fromkeys(("LOAD_BASES", "granted_ratio", "mean_granted_size"), "offered"),
    **dict.fromkeys(("PlacementFileError", "read_placements", "write_placements"), "..formats.placements"),
    **dict.fromkeys(("SkippedLine", "SWFError", "SWFHeader", "SWFReadError", "SWFRecord", "SWFReport", "SWFWarning"),
                    "..formats.swf_records"),
    "read_swf": "..formats.swf_read",
    **dict.fromkeys(("SWFTrace", "load_swf"), "..formats.swf_load"),
    **dict.fromkeys(("write_records", "write_swf"), "..formats.swf_write"),
    **dict.fromkeys(("TraceNotFoundError", "trace_path", "traces_dir"), "..formats.trace_files"),
    **dict.fromkeys(("STREAMS", "Synthetic", "arrival_rate", "offered_load", "streams"), "synthetic"),
}
__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS, modules={*_LAZY_ATTRS.values(), "ismail"},
                               shadowed="ismail_dynamic")
