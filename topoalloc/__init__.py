"""Allocators: free-processor state and placement on a machine model.

Every allocator is built from a topology and shares one surface::

    alloc = FirstFit(Mesh(32, 32)).allocate((4, 3))   # Allocation | None
    allocator.release(alloc); allocator.free; allocator.fold((4, 3)) -> (2, 3)

See :class:`Allocator` and :class:`Allocation`; :mod:`topoalloc.testing` checks any allocator.
Meshes and tori of any dimension (``Mesh(8, 8, 8)``, ``Torus(8, 8, 8)``) have the allocators of
:mod:`topoalloc.grid` (boxes by first fit and best fit, predefined :class:`Partitions`); the
names ``FirstFit`` and ``BestFit`` here are the 2D classes, and :func:`get` picks by topology.
Allocators by name: ``topoalloc.get("FirstFit", Mesh(32, 32), rotate=True)``, ``topoalloc.names()``,
``topoalloc.register(name, cls)`` (:mod:`topoalloc.registry`).
"""

from topologies._version import __version__

from . import grid, locality
from ._memory import MachineTooLargeError
from .base import Allocation, Allocator
from .dhc import DHCTree, TreeNode, TreeWeights
from .errors import (
    AllocatorParameterError,
    DoubleReleaseError,
    ForeignAllocationError,
    MetricNotApplicableError,
    NodeSetError,
    PageSizeError,
    ParameterError,
    ReleaseError,
    RequestError,
    RequestSizeError,
    RequestTypeError,
    TopologyError,
    UnknownAllocatorError,
    UnknownOptionError,
    UnsupportedTopologyError,
)
from .flat import FlatPool
from .grid import GridAllocator, Partitions
from .hypercube import Buddy, CubeAllocator, FreeList, GrayCode
from .mesh import (
    MBS,
    BestFit,
    Buddy2D,
    Curve,
    FirstFit,
    FrameSliding,
    MC1x1,
    MeshAllocator,
    Naive,
    NoncontiguousAllocator,
    Paging,
    Random,
)
from .registry import describe, get, names, register
from .tree import (
    FirstFree,
    FluxHigh,
    FluxLocality,
    FluxLow,
    Isolating,
    KueueTAS,
    SlurmBlock,
    SlurmTree,
    TreeAllocator,
)

__all__ = [
    "__version__",
    "Allocation",
    "Allocator",
    "CubeAllocator",
    "Buddy",
    "GrayCode",
    "FreeList",
    "FlatPool",
    "TreeAllocator",
    "FirstFree",
    "SlurmTree",
    "SlurmBlock",
    "KueueTAS",
    "Isolating",
    "FluxLow",
    "FluxHigh",
    "FluxLocality",
    "DHCTree",
    "TreeNode",
    "TreeWeights",
    "MeshAllocator",
    "Buddy2D",
    "FrameSliding",
    "FirstFit",
    "BestFit",
    "grid",
    "GridAllocator",
    "Partitions",
    "locality",
    "MetricNotApplicableError",
    "NodeSetError",
    "NoncontiguousAllocator",
    "Random",
    "Naive",
    "Paging",
    "MBS",
    "Curve",
    "MC1x1",
    "get",
    "names",
    "register",
    "describe",
    "ReleaseError",
    "DoubleReleaseError",
    "ForeignAllocationError",
    "UnsupportedTopologyError",
    "ParameterError",
    "RequestError",
    "RequestSizeError",
    "RequestTypeError",
    "TopologyError",
    "AllocatorParameterError",
    "PageSizeError",
    "UnknownOptionError",
    "UnknownAllocatorError",
    "MachineTooLargeError",
]
