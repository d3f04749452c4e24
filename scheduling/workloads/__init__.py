"""Workloads: synthetic job streams and their distributions."""

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
from .synthetic import STREAMS, Synthetic, arrival_rate, offered_load, streams

__all__ = [
    "Synthetic",
    "arrival_rate",
    "offered_load",
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
]
