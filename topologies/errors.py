"""Exceptions raised by machine models and, through them, by every allocator.

They live in the bottom layer so that :mod:`topoalloc` and :mod:`scheduling` can raise and catch
the same classes without importing upward.
"""

from __future__ import annotations

__all__ = ["ParameterError", "TopologyError", "RequestError", "RequestSizeError", "RequestTypeError"]


class ParameterError(ValueError):
    """A public parameter is not a value of the kind or range it must have: NaN, an infinity, a
    boolean or a string where a number is needed, a negative count, a fraction above 1. The
    message names the parameter and the value (``load must be a finite number > 0, got nan``)."""


class TopologyError(ParameterError):
    """A machine model was given impossible parameters (``Mesh(0, 4)``, ``Hypercube(30)``) or an
    allocator was given a topology it cannot manage (``Buddy2D(Mesh(24, 24))``)."""


class RequestError(ValueError):
    """Base class of every bad-request error."""


class RequestSizeError(RequestError):
    """A request asks for no processors, or for more than the machine has."""


class RequestTypeError(RequestError, TypeError):
    """A request is of the wrong kind for the topology (a dimension on a mesh, a tuple on a cube)."""
