"""Links and contention: which links a job's all-to-all messages cross, and how many jobs, or how
much traffic, share each link.

Every measure here asks the topology through the :class:`~topologies.Network` protocol
(``links``, ``link_traffic``, ``capacity``), so each machine routes by its own rule: dimension
ordered on a mesh (x first, then y, ...; the shorter way round a ring, the positive way when both
are as long; Dally & Seitz 1987), e-cube on a cube (the lowest differing bit first;
Sullivan & Bashkow 1977), up to the lowest common switch and down on a switch tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import need_network, node_set

__all__ = ["links", "job_links", "link_load", "max_link_load", "flow_load", "busiest_link"]


def links(topology: Any) -> np.ndarray:
    """Every link as a row of its two ends, in link-id order: the topology's ``links()``. Mesh: the
    horizontal links ``(x, y)-(x + 1, y)`` row by row (index ``y (W - 1) + x``), then the vertical
    ones ``(x, y)-(x, y + 1)`` (index ``H (W - 1) + y W + x``); in d dimensions and on a torus, dimension
    by dimension, wrap links included (:meth:`~topologies.Mesh.links`). Cube: for each dimension ``i``, the
    links ``(w, w + 2^i)`` with bit ``i`` of ``w`` clear, ordered by ``w`` with bit ``i`` removed
    (index ``i 2^(dim - 1) + that``). Switch tree: the node links, then the switches' uplinks
    (:meth:`~topologies.SwitchTree.links`; switch ``s`` is vertex ``N + s``)."""
    need_network(topology, "links")
    return np.asarray(topology.links(), dtype=np.int64)


def job_links(topology: Any, nodes: Any) -> np.ndarray:
    """Boolean mask over :func:`links`: the links crossed by some message of an all-to-all among
    ``nodes`` under the machine's routing -- those the topology's ``link_traffic`` loads --
    computed without enumerating the ``n^2`` pairs.

    Mesh, XY routing: the horizontal link ``x..x+1`` of row ``y`` is crossed iff row ``y`` holds a
    node on one side and the job has a node on the other; the vertical link ``y..y+1`` of column
    ``x`` iff column ``x`` holds a node on one side and the job has one on the other. O(W H). Any
    dimension and rings: the links the mesh's own count loads (:meth:`~topologies.Mesh.link_traffic`),
    O(d size).
    Cube, e-cube routing: the link across bit ``i`` at ``w`` is crossed iff a source ``s`` and a
    destination ``d`` with ``s_i != d_i`` have ``d``'s bits below ``i`` and ``s``'s bits above ``i``
    equal to ``w``'s. O(dim P). Switch tree: a member's node link, and the uplink of every switch
    with some but not all members below it. O(N + S log n).

    >>> from topologies import Mesh
    >>> job_links(Mesh(3, 2), [0, 4]).astype(int).tolist()    # (0, 0) -> (1, 1): x then y, and back
    [1, 0, 1, 0, 1, 1, 0]
    """
    need_network(topology, "job_links")
    return np.asarray(topology.link_traffic(node_set(topology, nodes))) > 0


def link_load(topology: Any, jobs: Sequence[Any]) -> np.ndarray:
    """For each link (:func:`links` order), the number of ``jobs`` (node sets) whose all-to-all
    messages cross it (:func:`job_links`): the contention measure of Mache & Lo (1997), on any
    network. See :func:`flow_load` for the traffic over capacity."""
    need_network(topology, "link_load")
    load = np.zeros(topology.n_links, dtype=np.int64)
    for nodes in jobs:
        load += job_links(topology, nodes)
    return load


def max_link_load(topology: Any, jobs: Sequence[Any]) -> np.ndarray:
    """Per job of ``jobs``, the load (:func:`link_load`) of the busiest link its own messages
    cross: 1 when it shares no link with another job, 0 for a single node."""
    need_network(topology, "max_link_load")
    masks = [job_links(topology, nodes) for nodes in jobs]
    if not masks:
        return np.zeros(0, dtype=np.int64)
    load = np.sum(masks, axis=0)
    return np.array([int(load[m].max()) if m.any() else 0 for m in masks], dtype=np.int64)


def flow_load(topology: Any, jobs: Sequence[Any]) -> np.ndarray:
    """Flow-level load of each link (:func:`links` order): the messages of one all-to-all round of
    every job of ``jobs`` that cross it (the topology's ``link_traffic``, one message per ordered
    pair of a job's nodes, both directions together), summed over the jobs and divided by the
    link's ``capacity``.

    The measure for a switch tree, whose uplinks are bundles of many links (a fat tree's): two
    jobs sharing a bundle contend only when their traffic exceeds its capacity, which job counts
    (:func:`link_load`) cannot tell. On a mesh or a cube every capacity is 1 and the load is the
    messages themselves. Interpretations: all jobs send at once at the same rate, a message
    loads every link of its route fully, and traffic is split evenly over a bundle's parallel
    links. O(jobs x links) vectorised.

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 2))                  # uplinks of capacity 2
    >>> flow_load(t, [[0, 2], [1, 3]]).tolist()         # 2 messages per node link, 4 per uplink
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    """
    need_network(topology, "flow_load")
    traffic = np.zeros(topology.n_links, dtype=np.float64)
    for nodes in jobs:
        traffic += topology.link_traffic(node_set(topology, nodes))
    return traffic / np.asarray(topology.capacity, dtype=np.float64)


def busiest_link(topology: Any, jobs: Sequence[Any]) -> np.ndarray:
    """Per job of ``jobs`` (the running jobs' node sets), the :func:`flow_load` of the most loaded
    link its own messages cross, given every job's traffic: its traffic over the link's capacity.
    Above 1, the job's all-to-all rounds queue on that link; 0 for a single node. Any network; on a
    switch tree the measure that counts a bundle's capacity. O(jobs x links) vectorised.

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 2), oversubscription=2)  # uplinks of capacity 1
    >>> busiest_link(t, [[0, 2], [1, 3]]).tolist()          # both cross both uplinks: 4 messages each
    [4.0, 4.0]
    """
    need_network(topology, "busiest_link")
    traffic = [np.asarray(topology.link_traffic(node_set(topology, nodes)), dtype=np.float64) for nodes in jobs]
    if not traffic:
        return np.zeros(0, dtype=np.float64)
    load = np.sum(traffic, axis=0) / np.asarray(topology.capacity, dtype=np.float64)
    return np.array([float(load[t > 0].max()) if (t > 0).any() else 0.0 for t in traffic], dtype=np.float64)
