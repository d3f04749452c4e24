"""Allocators: free-processor state and placement on a machine model.

Every allocator is built from a topology and shares one surface::

    alloc = FirstFit(Mesh(32, 32)).allocate((4, 3))   # Allocation | None
    allocator.release(alloc); allocator.free; allocator.fold((4, 3)) -> (2, 3)

See :class:`Allocator` and :class:`Allocation`; :mod:`topoalloc.testing` checks any allocator.
"""

from topologies._version import __version__

from . import locality
from .base import Allocation, Allocator
from .dhc import DHCTree, TreeNode, TreeWeights
from .errors import (
    DoubleReleaseError,
    ForeignAllocationError,
    MetricNotApplicableError,
    NodeSetError,
    ParameterError,
    ReleaseError,
    RequestError,
    RequestSizeError,
    RequestTypeError,
    TopologyError,
    UnsupportedTopologyError,
)
from .flat import FlatPool
from .hypercube import Buddy, CubeAllocator, FreeList, GrayCode
from .mesh import BestFit, Buddy2D, FirstFit, FrameSliding, MeshAllocator

__all__ = [
    "__version__",
    "Allocation",
    "Allocator",
    "CubeAllocator",
    "Buddy",
    "GrayCode",
    "FreeList",
    "FlatPool",
    "DHCTree",
    "TreeNode",
    "TreeWeights",
    "MeshAllocator",
    "Buddy2D",
    "FrameSliding",
    "FirstFit",
    "BestFit",
    "locality",
    "MetricNotApplicableError",
    "NodeSetError",
    "ReleaseError",
    "DoubleReleaseError",
    "ForeignAllocationError",
    "UnsupportedTopologyError",
    "ParameterError",
    "RequestError",
    "RequestSizeError",
    "RequestTypeError",
    "TopologyError",
]
