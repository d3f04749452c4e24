"""Allocators on switch trees (:class:`~topologies.SwitchTree`): fat trees, racks and blocks.

One module per algorithm; every allocator takes node counts and
:class:`~topologies.TreeRequest` constraints, grants sorted node-id arrays, and answers the what-if
questions backfilling asks (:class:`TreeAllocator`).
"""

from .base import TreeAllocator, free_per_domain
from .first_free import FirstFree
from .fluxion import FluxHigh, FluxLocality, FluxLow
from .isolating import Isolating
from .kueue import KueueTAS
from .slurm_block import BlockSizesError, SlurmBlock, SlurmBlockOracle
from .slurm_tree import SlurmTree, slurm_tree_oracle

__all__ = [
    "TreeAllocator",
    "free_per_domain",
    "FirstFree",
    "SlurmTree",
    "slurm_tree_oracle",
    "SlurmBlock",
    "SlurmBlockOracle",
    "BlockSizesError",
    "KueueTAS",
    "Isolating",
    "FluxLow",
    "FluxHigh",
    "FluxLocality",
]
