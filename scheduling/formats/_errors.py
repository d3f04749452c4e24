"""The error of a trace file that cannot be read, shared by the Batsim and sacct readers: the
bottom layer's :class:`topologies.FileLineError`, which the topology files' errors share."""

from __future__ import annotations

from topologies.errors import FileLineError

__all__ = ["FileLineError"]
