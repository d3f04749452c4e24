"""The up-front memory check of allocators whose state grows with the machine."""

from __future__ import annotations

import os

from .errors import AllocatorParameterError

__all__ = ["MachineTooLargeError", "check_memory", "physical_memory"]


class MachineTooLargeError(AllocatorParameterError, MemoryError):
    """An allocator's per-processor state for this machine would need more memory than the host has.
    Raised by the constructor before anything is allocated; the message names the machine, its size
    and the memory it would need. Both a :class:`~topologies.errors.ParameterError` (a bad value
    given to a constructor) and a :class:`MemoryError`."""


def physical_memory() -> int | None:
    """Bytes of physical memory of the host, or ``None`` where the platform does not say."""
    try:
        pages, page = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return None
    return pages * page if pages > 0 and page > 0 else None


def _bytes(n: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} bytes"


def check_memory(who: str, machine: object, processors: int, bytes_per_processor: int,
                 limit: int | None = None) -> None:
    """Refuse (:class:`MachineTooLargeError`) a machine whose ``processors`` times
    ``bytes_per_processor`` (the state ``who`` keeps per processor, a lower bound) exceed ``limit``
    (default: the host's :func:`physical_memory`; no check where it is unknown). O(1).

    >>> check_memory("FirstFit", "Mesh(4, 4)", 16, 9, limit=1000)
    >>> check_memory("FirstFit", "Mesh(1000, 1000)", 10**6, 9, limit=1000)
    Traceback (most recent call last):
    ...
    topoalloc._memory.MachineTooLargeError: FirstFit on Mesh(1000, 1000) (1,000,000 processors) would need \
at least 9 MB for its per-processor state, more than the 1 kB of memory of this host
    """
    if limit is None:
        limit = physical_memory()
        if limit is None:
            return
    need = processors * bytes_per_processor
    if need > limit:
        raise MachineTooLargeError(
            f"{who} on {machine} ({processors:,} processors) would need at least {_bytes(need)} for its "
            f"per-processor state, more than the {_bytes(limit)} of memory of this host")
