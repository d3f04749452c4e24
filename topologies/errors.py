"""Exceptions raised by machine models and, through them, by every allocator.

They live in the bottom layer so that :mod:`topoalloc` and :mod:`scheduling` can raise and catch
the same classes without importing upward.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ParameterError", "TopologyError", "RequestError", "RequestSizeError", "RequestTypeError",
           "FileLineError"]


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


class FileLineError(ValueError):
    """A file that cannot be read (or a value that cannot be written): the message names the file,
    the line (when there is one) and the problem; ``file``, ``line`` and ``problem`` hold the parts,
    and the error pickles with them (so it crosses process pools whole). The base of the topology
    files' :class:`~topologies.TreeFileError` and of the trace readers' errors.

    >>> e = FileLineError("site.sacct", 3, "NNodes 'x' is not a number"); str(e), e.line
    ("site.sacct, line 3: NNodes 'x' is not a number", 3)
    """

    def __init__(self, file: str, line: int | None, problem: str) -> None:
        self.file = file
        self.line = line
        self.problem = problem
        where = f"{file}, line {line}" if line is not None else file
        super().__init__(f"{where}: {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.file, self.line, self.problem))
