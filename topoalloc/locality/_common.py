"""What every measure checks first: that it applies to the topology, and its node set or free mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from topologies import Flat, Network

from ..errors import MetricNotApplicableError, NodeSetError

#: Per topology class: whether it is a :class:`~topologies.Network` (the runtime protocol check
#: costs tens of microseconds; a class's answer never changes).
_IS_NETWORK: dict[type, bool] = {}


def applies(topology: Any) -> bool:
    """Whether the locality measures apply to ``topology``: it is a :class:`~topologies.Network`, a
    machine with links (a :class:`~topologies.Mesh`, a :class:`~topologies.Hypercube`, a
    :class:`~topologies.SwitchTree`, or any class answering that protocol), not a
    :class:`~topologies.Flat` machine. O(1).

    >>> from topologies import Flat, Mesh, SwitchTree
    >>> applies(Mesh(4, 4)), applies(SwitchTree.uniform((2, 4))), applies(Flat(8))
    (True, True, False)
    """
    cls = type(topology)
    known = _IS_NETWORK.get(cls)
    if known is None:
        known = _IS_NETWORK[cls] = isinstance(topology, Network)
    return known


def need_network(topology: Any, what: str) -> None:
    """:class:`~topoalloc.errors.MetricNotApplicableError` unless the measure ``what`` applies."""
    if not applies(topology):
        raise MetricNotApplicableError(
            f"{what} needs a topologies.Network (a machine with links: Mesh, Hypercube, SwitchTree), "
            f"not {topology!r}" + ("; a Flat machine has no distances" if isinstance(topology, Flat) else ""))


def need_kind(topology: Any, what: str, kinds: tuple[type, ...], why: str) -> None:
    """:class:`~topoalloc.errors.MetricNotApplicableError` unless ``topology`` is one of ``kinds``:
    for the measures of one geometry (``why`` says which)."""
    if not isinstance(topology, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise MetricNotApplicableError(f"{what} needs a {names} ({why}), not {topology!r}"
                                       + ("; a Flat machine has no distances" if isinstance(topology, Flat) else ""))


def node_set(topology: Any, nodes: Any, *, allow_empty: bool = False, ascending: bool = False) -> np.ndarray:
    """``nodes`` as a 1D int64 array, checked: inside the machine, no duplicates, not empty;
    sorted with ``ascending`` (the checks sort them anyway). O(n log n)."""
    a = np.asarray(nodes)
    if a.dtype == bool or not (a.dtype.kind in "iu" or (a.size == 0 and a.dtype.kind == "f")):
        raise NodeSetError(f"node ids must be integers, got {a.dtype} values {a.ravel()[:4].tolist()!r}")
    a = a.astype(np.int64, copy=False).ravel()
    if a.size == 0:
        if allow_empty:
            return a
        raise NodeSetError("the node set is empty")
    s = np.sort(a) if a.size > 1 else a  # its ends are the extremes, its neighbours the duplicates
    lo, hi = int(s[0]), int(s[-1])
    if lo < 0 or hi >= topology.size:
        bad = lo if lo < 0 else hi
        raise NodeSetError(f"node id {bad} is outside {topology!r} (ids 0..{topology.size - 1})")
    if a.size > 1:
        dup = s[1:] == s[:-1]
        if dup.any():
            raise NodeSetError(f"node id {int(s[1:][dup][0])} appears more than once")
    return s if ascending else a


def free_mask(topology: Any, free: Any) -> np.ndarray:
    """A machine-wide boolean mask (``(height, width)`` on a mesh accepted too), flattened."""
    m = np.asarray(free, dtype=bool).ravel()
    if m.size != topology.size:
        raise NodeSetError(f"the free mask has {m.size} entries; {topology!r} has {topology.size} nodes")
    return m


def node_count(topology: Any, n: Any) -> int:
    """``n`` as an int in ``1 .. size``, or :class:`~topoalloc.errors.NodeSetError` naming it."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= topology.size:
        raise NodeSetError(f"n must be an integer in 1..{topology.size} for {topology!r}, got {n!r}")
    return int(n)
