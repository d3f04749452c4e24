"""Exceptions of the allocation layer (request errors come from :mod:`topologies`)."""

from __future__ import annotations

from topologies.errors import ParameterError, RequestError, RequestSizeError, RequestTypeError, TopologyError

__all__ = [
    "ReleaseError",
    "DoubleReleaseError",
    "ForeignAllocationError",
    "UnsupportedTopologyError",
    "MetricNotApplicableError",
    "NodeSetError",
    "ParameterError",
    "RequestError",
    "RequestSizeError",
    "RequestTypeError",
    "TopologyError",
    "AllocatorParameterError",
    "PageSizeError",
    "UnknownOptionError",
    "UnknownAllocatorError",
]


class ReleaseError(ValueError):
    """Base class: ``release`` was given something it cannot release."""


class DoubleReleaseError(ReleaseError):
    """The allocation was already released."""


class ForeignAllocationError(ReleaseError):
    """The allocation was made by another allocator (or is not an :class:`Allocation`)."""


class UnsupportedTopologyError(TopologyError, TypeError):
    """The allocator cannot manage this topology (wrong kind, or a size the algorithm excludes)."""


class MetricNotApplicableError(TopologyError, TypeError):
    """A locality or contention measure was asked of a topology it does not apply to (hops on a
    :class:`~topologies.Flat` machine, a bounding box on a cube)."""


class NodeSetError(ParameterError):
    """A node set given to a measure is empty, has duplicates or ids outside the machine."""


class AllocatorParameterError(ParameterError):
    """Base class: an allocator was given a parameter value it cannot use (the message names it)."""


class PageSizeError(AllocatorParameterError):
    """A page size that cannot be used: a negative ``size_index`` or pages larger than the mesh."""


class UnknownOptionError(AllocatorParameterError):
    """An unknown choice for an allocator option (a curve, a fit rule, a page order); the message
    names the value and the choices."""


class UnknownAllocatorError(KeyError):
    """No allocator is registered under this name; the message lists the known ones and suggests the
    closest."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])
