"""Per job: where a job's nodes lie and what that costs it (hops, pieces, the compact baseline).

The measures the :class:`~topologies.Network` protocol answers ask the topology (``hop_sum``,
``compact_nodes``, and ``distances`` where it has one). The others are measures of one geometry
and say so: :func:`bbox` (a mesh), :func:`leaf_switches` and :func:`common_level` (a switch
tree), and the pieces of :func:`components` (adjacent nodes on a mesh or a cube, leaf switches on
a tree, the links joining two nodes on any other network).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from topologies import Box, Hypercube, Mesh, Subcube, Submesh, SwitchTree
from topologies.grid import axis_pair_sum

from ._common import need_kind, need_network, node_count, node_set

__all__ = [
    "mean_hops",
    "components",
    "bbox",
    "compact_nodes",
    "compact_mean_hops",
    "submesh_mean_hops",
    "box_mean_hops",
    "subcube_mean_hops",
    "allocation_mean_hops",
    "allocation_locality",
    "pattern_hops",
    "PATTERNS",
    "leaf_switches",
    "common_level",
]

#: Communication patterns :func:`pattern_hops` knows.
PATTERNS = ("all-to-all", "nearest-neighbour")


def mean_hops(topology: Any, nodes: Any) -> float:
    """Average hop distance over the unordered pairs of ``nodes`` (0 for a single node): the
    topology's ``hop_sum`` over the number of pairs.

    Mesh: Manhattan distance (the hop count of a shortest, e.g. XY, route), O(n log n); cube:
    Hamming distance, O(n log P); switch tree: up to the lowest common switch and down,
    O(S log n). No pairwise loop on any of them.

    >>> from topologies import Hypercube
    >>> mean_hops(Hypercube(3), range(8))    # 3 * 2^2 / (2^3 - 1)
    1.7142857142857142
    """
    need_network(topology, "mean_hops")
    return _mean_hops(topology, node_set(topology, nodes))


def _mean_hops(topology: Any, a: np.ndarray) -> float:
    """:func:`mean_hops` of a valid node array (no checks)."""
    n = len(a)
    if n < 2:
        return 0.0
    hops: float = topology.hop_sum(a)
    return hops / (n * (n - 1) / 2)


def _edges(topology: Hypercube, a: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Machine links between members of ``a`` on a cube: pairs of positions in ``a``."""
    pos = np.full(topology.size, -1, dtype=np.int64)
    pos[a] = np.arange(len(a))
    us, vs = [], []
    for i in range(topology.dim):
        low = a[(a >> i) & 1 == 0]
        low = low[member[low | (1 << i)]]
        us.append(low)
        vs.append(low | (1 << i))
    u = np.concatenate(us) if us else np.empty(0, np.int64)
    v = np.concatenate(vs) if vs else np.empty(0, np.int64)
    return pos[u], pos[v]


def _count_components(n: int, u: np.ndarray, v: np.ndarray) -> int:
    """Connected components of ``n`` vertices with edges ``(u, v)``: minimum-label propagation
    along the edges with pointer jumping (each round O(n + edges) vectorised; rounds grow with
    the logarithm of the components' diameters in practice)."""
    if n == 0:
        return 0
    lab = np.arange(n)
    if len(u) == 0:
        return n
    while True:
        m = np.minimum(lab[u], lab[v])
        new = lab.copy()
        np.minimum.at(new, u, m)
        np.minimum.at(new, v, m)
        while True:  # pointer jumping: a vertex takes its label's label
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, lab):
            return int(np.count_nonzero(lab == np.arange(n)))
        lab = new


def components(topology: Any, nodes: Any) -> int:
    """Pieces of ``nodes``, a measure of each geometry. Mesh and cube: connected pieces in the
    machine graph (4-neighbour in 2D, ``2d``-neighbour in d dimensions, round the wrap links of a
    torus; one bit apart), 1 for a contiguous grant, O((n + edges) rounds) vectorised. Switch tree:
    the leaf switches spanned -- nodes under one leaf switch talk through it alone, and a grant over
    ``k`` leaf switches is ``k`` pieces joined by uplinks (interpretation: a tree has no node-to-node
    links, so the graph's pieces would be every node); O(n). Any other :class:`~topologies.Network`:
    connected pieces over its links that join two of the nodes (the definition of a direct
    network), O(links) per round.

    >>> from topologies import Hypercube
    >>> components(Hypercube(4), [0b0000, 0b0001, 0b0011, 0b1100])
    2
    """
    need_network(topology, "components")
    return _components(topology, node_set(topology, nodes))


def _components(topology: Any, a: np.ndarray) -> int:
    """:func:`components` of a valid node array (no checks)."""
    if isinstance(topology, SwitchTree):
        return topology.leaf_switches_spanned(a)
    member = np.zeros(topology.size, dtype=bool)
    member[a] = True
    if isinstance(topology, Mesh):
        if topology.ndim == 2 and not any(topology.ring):
            return _mesh_components(topology.dims[0], np.sort(a), member)
        u, v = _grid_edges(topology, a, member)
    elif isinstance(topology, Hypercube):
        u, v = _edges(topology, a, member)
    else:  # a direct network: the links joining two members
        ends = np.asarray(topology.links(), dtype=np.int64)
        ends = ends[(ends < topology.size).all(axis=1)]
        ends = ends[member[ends].all(axis=1)]
        pos = np.full(topology.size, -1, dtype=np.int64)
        pos[a] = np.arange(len(a))
        u, v = pos[ends[:, 0]], pos[ends[:, 1]]
    return _count_components(len(a), u, v)


def _grid_edges(topology: Mesh, a: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Machine links between members of ``a`` on a mesh or torus of any dimension: for each dimension,
    the members whose next node along it (round a ring from ``L - 1`` to ``0``) is a member too, as
    pairs of positions in ``a``. O(n d) vectorised."""
    pos = np.full(topology.size, -1, dtype=np.int64)
    pos[a] = np.arange(len(a))
    us, vs = [], []
    stride = 1
    for L, ring in zip(topology.dims, topology.ring, strict=True):
        c = (a // stride) % L
        inner = c < L - 1
        nxt = np.where(inner, a + stride, a - (L - 1) * stride)
        ok = (inner | ring) & (L > 1)
        src, dst = a[ok], nxt[ok]
        keep = member[dst]
        us.append(pos[src[keep]])
        vs.append(pos[dst[keep]])
        stride *= L
    return np.concatenate(us), np.concatenate(vs)


def _mesh_components(W: int, a: np.ndarray, member: np.ndarray) -> int:
    """Pieces of the sorted node ids ``a`` of a mesh: the maximal runs of consecutive nodes in a row
    (found vectorised), joined when a node of one run is right below a node of another; a union-find
    over the runs, whose number is small next to the nodes'. O(n) vectorised plus O(runs + joins)."""
    n = len(a)
    x = a % W
    brk = np.ones(n, dtype=bool)
    brk[1:] = (a[1:] != a[:-1] + 1) | (x[1:] == 0)  # a new run: a gap, or a new row
    run = np.cumsum(brk) - 1
    runs = int(run[-1]) + 1
    if runs == 1:
        return 1
    pos = np.full(len(member), -1, dtype=np.int64)
    pos[a] = run
    up = a + W
    ok = up < len(member)
    below, above = a[ok], up[ok]
    joined = member[above]
    pairs = np.unique(pos[below[joined]] * runs + pos[above[joined]])
    parent = list(range(runs))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pieces = runs
    for code in pairs.tolist():
        r1, r2 = find(code // runs), find(code % runs)
        if r1 != r2:
            parent[r1] = r2
            pieces -= 1
    return pieces


def bbox(topology: Mesh, nodes: Any) -> tuple[int, ...]:
    """The sides of the smallest box containing ``nodes``: ``(width, height)`` on a 2D mesh, one side per
    dimension in general (x first). Along a ring the box may wrap, and the side is the ring's length
    less its longest run of positions holding no node (the smallest arc covering the nodes'
    coordinates). A measure of a mesh's geometry. O(n) (O(n log n) along a ring: a sort).

    >>> from topologies import Torus
    >>> bbox(Mesh(8, 8), [0, 9, 2]), bbox(Torus(8, 8), [0, 7, 56]), bbox(Mesh(4, 4, 4), [0, 63])
    ((3, 2), (2, 2), (4, 4, 4))
    """
    need_kind(topology, "bbox", (Mesh,), "a bounding box of a grid")
    a = node_set(topology, nodes)
    if topology.ndim == 2 and not any(topology.ring):
        y, x = np.divmod(a, topology.dims[0])
        return int(x.max() - x.min() + 1), int(y.max() - y.min() + 1)
    out = []
    stride = 1
    for L, ring in zip(topology.dims, topology.ring, strict=True):
        c = (a // stride) % L
        stride *= L
        if not ring:
            out.append(int(c.max() - c.min() + 1))
            continue
        u = np.unique(c)
        gaps = np.diff(np.concatenate([u, [u[0] + L]])) - 1  # empty positions after each occupied one
        out.append(int(L - gaps.max()))
    return tuple(out)


def compact_nodes(topology: Any, n: int) -> np.ndarray:
    """The most compact placement of ``n`` nodes, the baseline a placement is compared with: the
    topology's own ``compact_nodes`` (its least-``hop_sum`` placement, or its documented
    baseline).

    Mesh: a rounded shape of least total pairwise distance from the corner (the rounded optimal
    point sets of Bender et al., Algorithmica 50(2), 2008, and Demaine et al., Comput. Geom.
    44(2), 2011, found by a search that reaches their published optimum for ``n <= 49`` and is
    never less compact than a row-by-row near-square; see
    :meth:`~topologies.Mesh.compact_nodes`; a shaped request's run-time baseline is its own box,
    :mod:`scheduling.models.runtime`). Cube: the first ``n`` addresses, a subcube when ``n`` is a power of two (the
    initial segment of the binary order has the fewest distant pairs, Harper 1964). Switch tree:
    inside the smallest subtree holding ``n`` nodes, whole child subtrees largest first
    (:meth:`~topologies.SwitchTree.compact_nodes`).

    >>> compact_nodes(Mesh(8, 8), 4).tolist()
    [0, 1, 8, 9]
    >>> mean_hops(Mesh(8, 8), compact_nodes(Mesh(8, 8), 7)) < mean_hops(Mesh(8, 8), [0, 1, 2, 8, 9, 10, 16])
    True
    """
    need_network(topology, "compact_nodes")
    return np.asarray(topology.compact_nodes(node_count(topology, n)), dtype=np.int64)


def compact_mean_hops(topology: Any, n: int) -> float:
    """:func:`mean_hops` of :func:`compact_nodes` ``(topology, n)``."""
    return mean_hops(topology, compact_nodes(topology, n))


def submesh_mean_hops(width: int, height: int) -> float:
    """:func:`mean_hops` of a ``width x height`` submesh in closed form, O(1):
    ``(h (w^2 - 1) + w (h^2 - 1)) / (3 (w h - 1))`` (0 for one node).

    >>> submesh_mean_hops(2, 2)
    1.3333333333333333
    """
    n = width * height
    return 0.0 if n < 2 else (height * (width * width - 1) + width * (height * height - 1)) / (3 * (n - 1))


def box_mean_hops(topology: Mesh, shape: tuple[int, ...]) -> float:
    """:func:`mean_hops` of a box of sides ``shape`` (x first; placed anywhere: a box's pairwise
    distances do not depend on where it lies, even wrapped) on ``topology``, in closed form: the
    pairs that differ along dimension ``i`` number ``(N / s_i)^2`` per pair of coordinates, so the hop
    sum is ``sum_i w_i (N / s_i)^2 P(s_i)``, with ``P(s) = (s^3 - s) / 6`` the pair sum of ``s``
    consecutive positions of a line (of a ring too while ``s <= L / 2 + 1``; a longer stretch of a
    ring is summed by :func:`topologies.grid.axis_pair_sum`, O(s)) and ``w_i`` the dimension's
    weight; over ``N (N - 1) / 2`` pairs. O(d).

    >>> from topologies import Torus
    >>> box_mean_hops(Mesh(8, 8), (2, 2)) == submesh_mean_hops(2, 2), box_mean_hops(Torus(4), (4,))
    (True, 1.3333333333333333)
    """
    n = 1
    for s in shape:
        n *= s
    if n < 2:
        return 0.0
    total = 0.0
    weights = topology.weights
    for i, (s, L, ring) in enumerate(zip(shape, topology.dims, topology.ring, strict=True)):
        pairs = (s * s * s - s) / 6 if not ring or s <= L // 2 + 1 else axis_pair_sum(np.arange(s), L, True)
        total += (n // s) ** 2 * pairs * (weights[i] if weights is not None else 1)
    return total / (n * (n - 1) / 2)


def subcube_mean_hops(k: int) -> float:
    """:func:`mean_hops` of a ``k``-subcube in closed form, O(1): ``k 2^(k-1) / (2^k - 1)``."""
    return 0.0 if k < 1 else k * (1 << (k - 1)) / ((1 << k) - 1)


def allocation_mean_hops(topology: Any, allocation: Any) -> float:
    """:func:`mean_hops` of a grant (an :class:`~topoalloc.Allocation`, whose node ids are valid by
    construction, so they are not checked again): O(1) for a :class:`~topologies.Submesh`, a
    :class:`~topologies.Box` or a :class:`~topologies.Subcube` (closed form), the general measure on
    its node ids otherwise."""
    placement = getattr(allocation, "placement", None)
    if isinstance(placement, Submesh):
        if getattr(topology, "weights", None) is not None:
            return box_mean_hops(topology, placement.shape)
        return submesh_mean_hops(placement.width, placement.height)
    if isinstance(placement, Box) and isinstance(topology, Mesh):
        return box_mean_hops(topology, placement.shape)
    if isinstance(placement, Subcube):
        return subcube_mean_hops(placement.mask.bit_count())
    need_network(topology, "allocation_mean_hops")
    return _mean_hops(topology, np.asarray(allocation.nodes, dtype=np.int64))


def allocation_locality(topology: Any, allocation: Any) -> tuple[float, int]:
    """``(mean_hops, components)`` of a grant: O(1) for a contiguous placement (a
    :class:`~topologies.Submesh`, :class:`~topologies.Box` or :class:`~topologies.Subcube`: one piece,
    closed-form hops),
    the general measures on its node ids otherwise (not checked again: an
    :class:`~topoalloc.Allocation`'s are valid by construction). On a switch tree the pieces are
    the leaf switches spanned (:func:`components`).

    >>> from topologies import SwitchTree
    >>> from topoalloc import FirstFree
    >>> ff = FirstFree(SwitchTree.uniform((2, 4)))
    >>> ff.allocate(3) is not None
    True
    >>> allocation_locality(ff.topology, ff.allocate(3))    # nodes 3, 4, 5: leaf switches 0 and 1
    (3.3333333333333335, 2)
    """
    placement = getattr(allocation, "placement", None)
    if isinstance(placement, Submesh | Subcube) or (isinstance(placement, Box) and isinstance(topology, Mesh)):
        return allocation_mean_hops(topology, allocation), 1
    need_network(topology, "allocation_locality")
    nodes = np.asarray(allocation.nodes, dtype=np.int64)
    return _mean_hops(topology, nodes), _components(topology, nodes)


def _grid(n: int) -> tuple[int, int]:
    cols = math.isqrt(n - 1) + 1
    return cols, -(-n // cols)


@functools.lru_cache(maxsize=64)
def _neighbour_ranks(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rank pairs ``(src, dst)`` of the nearest-neighbour pattern on ``n`` ranks (each
    neighbour pair once): right then up neighbours on the near-square virtual grid. Read-only,
    cached (a workload's job sizes repeat)."""
    cols, _ = _grid(n)
    r = np.arange(n)
    right = r[(r % cols != cols - 1) & (r + 1 < n)]
    up = r[r + cols < n]
    src = np.concatenate([right, up])
    dst = np.concatenate([right + 1, up + cols])
    src.flags.writeable = dst.flags.writeable = False
    return src, dst


def _pair_distances(topology: Any, s: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Hops between ``s[i]`` and ``d[i]`` (valid ids): the topology's vectorised ``distances`` when it
    has one (mesh, cube); on a switch tree, which has none yet, :func:`_tree_distances`; else its
    ``distance`` pair by pair (O(pairs) Python calls)."""
    vectorised = getattr(topology, "distances", None)
    if vectorised is not None:
        return np.asarray(vectorised(s, d), dtype=np.int64)
    if isinstance(topology, SwitchTree):
        return _tree_distances(topology, s, d)
    pair = topology.distance
    return np.fromiter((pair(u, v) for u, v in zip(s.tolist(), d.tolist(), strict=True)), np.int64, len(s))


def _tree_distances(tree: SwitchTree, s: np.ndarray, d: np.ndarray) -> np.ndarray:
    """:meth:`~topologies.SwitchTree.distance` of every pair ``(s[i], d[i])`` at once: from the lower
    id's leaf switch, climb while the switch's id range ends at or before the higher id (the
    lowest common switch is the first whose range holds both), then count the hops up and down.
    O(pairs x depth) vectorised."""
    lo, hi = np.minimum(s, d), np.maximum(s, d)
    top = tree.leaf_of[lo]
    out = tree.stop[top] <= hi
    while out.any():
        top = np.where(out, tree.parent[top], top)
        out = tree.stop[top] <= hi
    hops = tree.node_depth[lo] + tree.node_depth[hi] - 2 * tree.depth[top]
    return np.where(lo == hi, 0, hops)


def pattern_hops(topology: Any, nodes: Any, pattern: str = "all-to-all") -> float:
    """Hops travelled by one round of ``pattern`` among ``nodes`` (one message per ordered pair
    of communicating ranks; hop-bytes with one byte per message).

    * ``"all-to-all"``: every rank sends to every other: ``2 * mean_hops * n (n - 1) / 2`` (from
      the topology's ``hop_sum``; O(n log n) on a mesh).
    * ``"nearest-neighbour"``: ranks on a near-square virtual grid (``ceil(sqrt(n))`` columns,
      row-major, the last row partly filled), rank ``r`` on the ``r``-th smallest node id; every
      rank sends to its up to four grid neighbours. Interpretation of the usual stencil mapping
      (Bunde, Leung & Mache 2004 map ranks in allocation order). The ``2 n`` neighbour distances
      come from the topology's vectorised ``distances`` (mesh, cube: O(n)), on a switch tree from
      a vectorised climb to the lowest common switches (O(n depth)); any other network is asked
      ``distance`` pair by pair, O(n) Python calls.
    """
    if pattern not in PATTERNS:
        raise ValueError(f"unknown communication pattern {pattern!r}; known: {', '.join(PATTERNS)}")
    need_network(topology, "pattern_hops")
    a = node_set(topology, nodes, ascending=True)
    n = len(a)
    if n < 2:
        return 0.0
    if pattern == "all-to-all":
        return _mean_hops(topology, a) * n * (n - 1)
    src, dst = _neighbour_ranks(n)
    return float(2 * _pair_distances(topology, a[src], a[dst]).sum())  # both directions of every pair


# -- switch trees --------------------------------------------------------------------------------
def leaf_switches(topology: SwitchTree, nodes: Any) -> int:
    """How many leaf switches ``nodes`` span on a switch tree (1: the job's messages cross no
    uplink). O(n).

    >>> from topologies import SwitchTree
    >>> leaf_switches(SwitchTree.uniform((3, 4)), [2, 3, 4])
    2
    """
    need_kind(topology, "leaf_switches", (SwitchTree,), "nodes under switches")
    return topology.leaf_switches_spanned(node_set(topology, nodes))


def common_level(topology: SwitchTree, nodes: Any) -> str:
    """The name of the level (depth) of the lowest switch above every node of ``nodes`` on a switch
    tree; the nodes' level, the last, for a single node. (In an unbalanced tree a leaf switch above
    the deepest switch level is a domain of the levels below it too; this is its own level.)
    O(n + depth).

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    >>> common_level(t, [0, 3]), common_level(t, [0, 4]), common_level(t, [0, 12]), common_level(t, [5])
    ('rack', 'block', 'cluster', 'host')
    """
    need_kind(topology, "common_level", (SwitchTree,), "nodes under switches")
    return topology.common_level(node_set(topology, nodes))
