"""Property-test any allocator: hypothesis strategies, brute-force oracles and a stateful machine.

This module is public API (it needs the ``test`` extra: ``pip install topoalloc[test]``). The
library's own allocator tests use exactly this machinery; checking a new allocator is a few lines::

    from topologies import Mesh
    from topoalloc.testing import allocator_machine, meshes

    class MyAllocator(topoalloc.Allocator): ...

    TestMyAllocator = allocator_machine(MyAllocator, meshes(max_side=8), oracle="perfect").TestCase

The machine draws a machine from the given strategy, then runs random ``allocate`` / ``release`` /
``fold`` sequences (plus bad requests and bad releases) and checks after every step that

* every grant lies inside the machine and grants are pairwise disjoint;
* a grant's node set is exactly its region: a submesh of the granted width and height, a box of
  the granted shape on a mesh or torus of any dimension (wrapping only along a ring), a subcube
  of the granted dimension, a tree partition, a constrained set of switch-tree nodes, or (flat,
  and non-contiguous allocators on a mesh)
  the granted number of distinct nodes;
* ``free`` equals the machine size minus the granted nodes, and the allocator's own idea of its
  free nodes (``free_nodes()``, when it has one) is exactly the complement of the grants — so a
  released grant's nodes are free again;
* ``allocate`` returns ``None`` only when the oracle, a brute-force search of the occupancy before
  the call, finds no placement the algorithm promises to recognise;
* ``fold`` returns ``None`` or a valid, strictly smaller request;
* bad input raises the documented exceptions;
* ``clone()`` (the allocator's own, usually a fast override) and the generic
  :meth:`Allocator.clone <topoalloc.Allocator.clone>` give copies that, run through the same random
  operations as the original, make exactly the same grants and end in the same state, and
  operations on a clone leave the original untouched;
* ``allocate_avoiding`` (on a clone) makes the same placement, and leaves the same free nodes, as
  the generic :meth:`Allocator.allocate_avoiding <topoalloc.Allocator.allocate_avoiding>`, and
  touches no avoided node;
* ``place_in`` on a random free mask changes nothing, returns a placement exactly when the oracle
  finds one on that mask (and when the generic default does), and what it returns is a region the
  oracle recognises, inside the mask, of the request's size; an allocator's own ``place_in_bits``
  answers on the mask's bits exactly as the default does (:func:`place_in_bits_differs`);
* ``covers(failed, request)``: when it says so, ``request`` finds no placement on a free mask on
  which ``failed`` found none.

Machines of any dimension: :func:`meshes_nd` and :func:`tori` draw them, and the requests drawn for
them are shapes of up to ``ndim`` sides (padded with 1s by the mesh). The brute-force box oracle
:func:`perfect_box` checks every base of every allowed order of the request's sides, cell by cell.

Oracles are callables ``oracle(allocator, free, request) -> bool`` ("a placement exists"), where
``free`` is the boolean free mask (``topology.shape`` on a mesh: ``(height, width)`` in 2D, the last
dimension first in general; 1D otherwise) taken before the call. An oracle may also have a
``check_choice(allocator, free, request, allocation)`` method that asserts the chosen placement is
right (``BestFit`` uses it). It is called *after* the allocation:
``free`` is the state before it, but ``allocator.allocations`` already includes the new grant.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from topologies import Box, Flat, Hypercube, Mesh, RequestError, Subcube, Submesh, SwitchTree, Torus

from .base import Allocation, Allocator
from .errors import DoubleReleaseError, ForeignAllocationError
from .testing_answers import place_in_bits_differs
from .testing_trees import (
    bad_tree_requests,
    switch_trees,
    tree_any,
    tree_constraint_met,
    tree_leaf_counts,
    tree_requests,
)

__all__ = [
    "meshes",
    "meshes_nd",
    "tori",
    "square_power_of_two_meshes",
    "hypercubes",
    "flats",
    "requests",
    "bad_requests",
    "free_mask",
    "check_region",
    "place_in_bits_differs",
    "perfect_submesh",
    "perfect_box",
    "first_box",
    "partition_boxes",
    "buddy_2d",
    "frame_positions",
    "perfect_subcube",
    "buddy_subcube",
    "any_free",
    "whole_pages",
    "gray_code_blocks",
    "tree_partitions",
    "switch_trees",
    "tree_requests",
    "bad_tree_requests",
    "tree_any",
    "tree_constraint_met",
    "tree_leaf_counts",
    "ORACLES",
    "NONCONTIGUOUS",
    "oracle_for",
    "AllocatorMachine",
    "allocator_machine",
]


# ---------------------------------------------------------------------------------------------
# strategies
def meshes(min_side: int = 1, max_side: int = 10) -> st.SearchStrategy[Mesh]:
    """Meshes of any sides in ``[min_side, max_side]`` (not only powers of two)."""
    side = st.integers(min_side, max_side)
    return st.builds(Mesh, side, side)


def meshes_nd(min_dims: int = 1, max_dims: int = 3, max_side: int = 5, max_size: int = 64,
              wrap: bool | None = None) -> st.SearchStrategy[Mesh]:
    """Meshes of ``min_dims..max_dims`` dimensions with sides in ``1..max_side`` and at most
    ``max_size`` nodes, each dimension wrapped or not at random (``wrap=None``), or all wrapped
    (``True``: tori) or none (``False``)."""

    @st.composite
    def build(draw: Any) -> Mesh:
        nd = draw(st.integers(min_dims, max_dims), label="dimensions")
        dims: list[int] = []
        for _ in range(nd):
            room = max_size // max(1, int(np.prod(dims)) if dims else 1)
            dims.append(draw(st.integers(1, max(1, min(max_side, room))), label="side"))
        flags = tuple(draw(st.booleans(), label="wrap") for _ in range(nd)) if wrap is None else (wrap,) * nd
        return Mesh(*dims, wrap=flags)

    return build()


def tori(min_dims: int = 1, max_dims: int = 3, max_side: int = 5, max_size: int = 64) -> st.SearchStrategy[Torus]:
    """Tori (every dimension wraps) of ``min_dims..max_dims`` dimensions, sides in ``1..max_side``, at most
    ``max_size`` nodes: :func:`meshes_nd` with ``wrap=True``."""
    return meshes_nd(min_dims, max_dims, max_side, max_size, wrap=True)  # type: ignore[return-value]


def square_power_of_two_meshes(max_exp: int = 4) -> st.SearchStrategy[Mesh]:
    """Square meshes of side ``2**e``, ``0 <= e <= max_exp`` (what 2D buddy accepts)."""
    return st.integers(0, max_exp).map(lambda e: Mesh(1 << e, 1 << e))


def hypercubes(min_dim: int = 0, max_dim: int = 6) -> st.SearchStrategy[Hypercube]:
    """Hypercubes of dimension ``min_dim..max_dim``."""
    return st.integers(min_dim, max_dim).map(Hypercube)


def flats(min_size: int = 1, max_size: int = 64) -> st.SearchStrategy[Flat]:
    """Flat machines of ``min_size..max_size`` processors."""
    return st.integers(min_size, max_size).map(Flat)


def requests(allocator: Allocator) -> st.SearchStrategy[Any]:
    """Valid requests for ``allocator``'s machine, biased towards small ones.

    An allocator may cap its requests below the machine size with a ``max_request`` attribute
    (a DHC forest of 320 processors places at most 256).
    """
    topo = allocator.topology
    if isinstance(topo, SwitchTree):
        return tree_requests(allocator)
    if isinstance(topo, Mesh) and getattr(allocator, "grids", None):
        return _grid_requests(allocator)
    if isinstance(topo, Mesh) and topo.ndim != 2:
        wide = getattr(allocator, "rotate", False)
        top = max(topo.dims)

        def fits_nd(r: Any) -> bool:
            try:
                allocator.validate(r)
                return True
            except RequestError:
                return False

        full = st.tuples(*[st.integers(1, top if wide else L) for L in topo.dims])
        short = st.integers(1, topo.ndim).flatmap(lambda k: st.tuples(*[st.integers(1, top) for _ in range(k)]))
        shapes_nd = st.one_of(full, short)
        if getattr(allocator, "accepts_counts", False):
            shapes_nd = st.one_of(shapes_nd, st.integers(1, min(topo.size, 4)), st.integers(1, topo.size))
        return shapes_nd.filter(fits_nd)
    if isinstance(topo, Mesh):
        wide = getattr(allocator, "rotate", False)
        w = st.integers(1, max(topo.width, topo.height) if wide else topo.width)
        h = st.integers(1, max(topo.width, topo.height) if wide else topo.height)

        def fits(r: Any) -> bool:
            try:
                allocator.validate(r)
                return True
            except RequestError:
                return False

        shapes = st.tuples(w, h)
        if getattr(allocator, "accepts_counts", False):  # a non-contiguous allocator: counts too
            shapes = st.one_of(shapes, st.integers(1, min(topo.size, 4)), st.integers(1, topo.size))
        return shapes.filter(fits)
    if isinstance(topo, Hypercube):
        return st.integers(0, getattr(allocator, "max_request", topo.dim))
    cap = getattr(allocator, "max_request", topo.size)
    return st.one_of(st.integers(1, min(cap, 4)), st.integers(1, cap))


def _grid_requests(allocator: Any) -> st.SearchStrategy[Any]:
    """Requests for an allocator of predefined partitions (``allocator.grids``, each with a
    ``shape`` of ``ndim`` sides, as :class:`~topoalloc.grid.Partitions` has), valid by construction:
    a grid's shape, then each side in ``1..`` that grid's side, in a random order of the sides when
    the allocator may ``rotate`` (some order of a shape fits a box exactly when its sorted sides fit
    the box's sorted sides, so this reaches every valid shape); on more than two dimensions also a
    leading part of such a shape (the mesh pads it with 1s); with ``accepts_counts``, counts too.
    Drawing shapes up to the machine's sides and filtering instead rejects most of them when the
    largest partition is much smaller than the machine (hypothesis' ``filter_too_much``)."""
    topo = allocator.topology
    bounds = sorted({tuple(int(x) for x in g.shape) for g in allocator.grids})
    rotate = bool(getattr(allocator, "rotate", False))

    def within(bound: tuple[int, ...]) -> st.SearchStrategy[tuple[int, ...]]:
        sides = st.tuples(*[st.integers(1, b) for b in bound])
        return sides.flatmap(st.permutations).map(tuple) if rotate else sides

    full = st.sampled_from(bounds).flatmap(within)
    shapes: st.SearchStrategy[Any] = full
    if topo.ndim != 2:
        shapes = st.one_of(full, st.tuples(full, st.integers(1, topo.ndim)).map(lambda fk: fk[0][: fk[1]]))
    if getattr(allocator, "accepts_counts", False):
        capacity: int = getattr(allocator, "capacity", topo.size)
        shapes = st.one_of(shapes, st.integers(1, min(capacity, 4)), st.integers(1, capacity))
    return shapes


def bad_requests(topology: Any, allocator: Allocator | None = None) -> st.SearchStrategy[Any]:
    """Requests every allocator on ``topology`` must reject with a :class:`RequestError`; with
    ``allocator``, also counts between its ``max_request`` and the machine size (a 320-processor
    DHC forest rejects 300)."""
    if isinstance(topology, SwitchTree):
        return bad_tree_requests(topology)
    cap = getattr(allocator, "max_request", None)
    if cap is not None and not isinstance(topology, (Mesh, Hypercube)) and cap < topology.size:
        return st.one_of(bad_requests(topology), st.integers(cap + 1, topology.size))
    if cap is not None and isinstance(topology, Hypercube) and cap < topology.dim:
        return st.one_of(bad_requests(topology), st.integers(cap + 1, topology.dim))
    junk = st.sampled_from(["4", 2.5, None, True, object()])
    if isinstance(topology, Mesh) and topology.ndim != 2:
        if getattr(allocator, "accepts_counts", False):
            capacity: int = getattr(allocator, "capacity", topology.size)
            counts = st.one_of(st.integers(-3, 0), st.just(capacity + 1))
        else:
            counts = st.integers(1, 4)
        nd = topology.ndim
        return st.one_of(
            junk,
            counts,
            st.tuples(*([st.integers(-3, 0)] + [st.integers(1, 2)] * (nd - 1))),
            st.tuples(*([st.integers(1, 2)] * (nd - 1) + [st.integers(-3, 0)])),
            st.just(tuple(L + 1 for L in topology.dims)),
            st.just((1,) * (nd + 1)),
            st.just(()),
        )
    if isinstance(topology, Mesh):
        if getattr(allocator, "accepts_counts", False):  # counts are requests: only bad counts are bad
            capacity = getattr(allocator, "capacity", topology.size)
            counts = st.one_of(st.integers(-3, 0), st.just(capacity + 1))
        else:
            counts = st.integers(1, 4)
        return st.one_of(
            junk,
            counts,
            st.tuples(st.integers(-3, 0), st.integers(1, 3)),
            st.tuples(st.integers(1, 3), st.integers(-3, 0)),
            st.just((topology.width + 1, topology.height + 1)),
            st.just((1, 2, 3)),
        )
    if isinstance(topology, Hypercube):
        return st.one_of(junk, st.integers(-5, -1), st.just(topology.dim + 1), st.just((1, 1)))
    return st.one_of(junk, st.integers(-5, 0), st.just(topology.size + 1), st.just((1, 1)))


# ---------------------------------------------------------------------------------------------
# region checks
def free_mask(allocator: Allocator) -> np.ndarray:
    """Boolean free mask from the allocator's occupancy view (2D on a mesh)."""
    free: np.ndarray = np.asarray(allocator.occupancy) == 0
    return free


def check_region(allocator: Allocator, allocation: Allocation) -> None:
    """Assert that ``allocation``'s nodes are exactly the region its placement and granted request
    describe, inside the machine."""
    topo = allocator.topology
    nodes = np.asarray(allocation.nodes)
    assert nodes.ndim == 1, f"{allocation!r}: nodes must be a 1D array"
    assert len(nodes) > 0, f"{allocation!r} holds no nodes"
    assert np.all(np.diff(nodes) > 0), f"{allocation!r}: nodes are not sorted and distinct"
    assert nodes[0] >= 0 and nodes[-1] < topo.size, f"{allocation!r} leaves the machine"
    assert len(nodes) == allocator.request_size(allocation.request), (
        f"{allocation!r}: {len(nodes)} nodes for granted request {allocation.request!r}"
    )
    place = allocation.placement
    if isinstance(topo, Mesh) and getattr(allocator, "recognition", "") in NONCONTIGUOUS:
        assert isinstance(place, np.ndarray), f"{allocation!r}: a non-contiguous placement is a node-id array"
        expected = place
    elif isinstance(place, Box):
        assert isinstance(topo, Mesh) and place.ndim == topo.ndim, f"{allocation!r}: a box of the wrong dimension"
        assert place.shape == tuple(allocation.request), f"{allocation!r}: shape differs from grant"
        for o, side, L, ring in zip(place.origin, place.shape, topo.dims, topo.ring, strict=True):
            assert 0 <= o < L and side <= L, f"{allocation!r} leaves the machine"
            assert ring or o + side <= L, f"{allocation!r} wraps along a dimension that is no ring"
        expected = place.node_ids(topo.dims)
    elif isinstance(topo, Mesh):
        assert isinstance(place, Submesh), f"{allocation!r}: a mesh placement must be a Submesh"
        assert place.shape == tuple(allocation.request), f"{allocation!r}: shape differs from grant"
        assert 0 <= place.x and place.x_end <= topo.width and 0 <= place.y and place.y_end <= topo.height
        expected = place.node_ids(topo.width)
    elif isinstance(place, Subcube):
        assert place.dim == allocation.request, f"{allocation!r}: subcube dimension differs from grant"
        expected = place.node_ids()
    elif hasattr(place, "node_ids"):
        expected = np.asarray(place.node_ids())
    else:
        expected = np.asarray(place)
    assert np.array_equal(np.sort(expected), nodes), f"{allocation!r}: nodes are not its region"


#: Recognition rules of the non-contiguous mesh allocators: their placements are sorted node-id
#: arrays, not submeshes.
NONCONTIGUOUS = ("any", "page", "size-class")


# ---------------------------------------------------------------------------------------------
# oracles
def _window_free(free: np.ndarray, w: int, h: int) -> np.ndarray:
    """Boolean array over bases (row y, column x): is the w x h window there entirely free?"""
    H, W = free.shape
    if w > W or h > H:
        return np.zeros((0, 0), dtype=bool)
    busy = (~free).astype(np.int64)
    sat = np.zeros((H + 1, W + 1), dtype=np.int64)
    sat[1:, 1:] = busy.cumsum(0).cumsum(1)
    win = sat[h:, w:] - sat[:-h, w:] - sat[h:, :-w] + sat[:-h, :-w]
    clear: np.ndarray = win == 0
    return clear


def perfect_submesh(allocator: Allocator, free: np.ndarray, request: tuple[int, int]) -> bool:
    """Any free ``w x h`` submesh anywhere (both orientations if the allocator has ``rotate``)."""
    w, h = request
    if _window_free(free, w, h).any():
        return True
    return bool(getattr(allocator, "rotate", False) and _window_free(free, h, w).any())


def _box_shapes(allocator: Allocator, request: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The request, then (with ``rotate``/``permute``) its other orders, each once, that fit the machine."""
    dims = allocator.topology.dims
    orders = itertools.permutations(request) if getattr(allocator, "rotate", False) else [request]
    out: list[tuple[int, ...]] = []
    for shape in [tuple(request), *orders]:
        if shape not in out and all(s <= L for s, L in zip(shape, dims, strict=True)):
            out.append(shape)
    return out


def perfect_box(allocator: Allocator, free: np.ndarray, request: Any) -> bool:
    """Brute force: any free box of the request's shape (in any order of its sides with ``rotate``)
    anywhere on a mesh or torus of any dimension, wrapping boxes included along a ring: every base
    of every shape checked cell by cell (:func:`topoalloc.grid.boxes.free_box_exists`)."""
    from .grid.boxes import free_box_exists

    topo = allocator.topology
    request = allocator.validate(request)
    return bool(free_box_exists(np.asarray(free).reshape(topo.shape), topo.dims, topo.ring,
                                _box_shapes(allocator, request)))


def _first_box_check_choice(allocator: Allocator, free: np.ndarray, request: Any, allocation: Allocation) -> None:
    """First fit's choice: the first orientation (the request's own first) that has a free box, and
    in it the first base in node-id order."""
    from .grid.boxes import free_box_exists

    topo = allocator.topology
    found = free_box_exists(np.asarray(free).reshape(topo.shape), topo.dims, topo.ring,
                            _box_shapes(allocator, allocator.validate(request)))
    assert found, f"{allocation!r} granted but no free box existed"
    origin, shape = found[0]
    assert allocation.placement == Box(origin, shape) and allocation.request == shape, (
        f"first fit for {request!r} chose {allocation.placement!r}, expected {Box(origin, shape)!r}")


class _FirstBox:
    """:func:`perfect_box`, plus :func:`_first_box_check_choice`: the oracle of first fit of boxes."""

    def __call__(self, allocator: Allocator, free: np.ndarray, request: Any) -> bool:
        return perfect_box(allocator, free, request)

    check_choice = staticmethod(_first_box_check_choice)


#: The oracle of :class:`topoalloc.grid.FirstFit`: a free box exists, and the grant is the first one.
first_box = _FirstBox()


def _partition_choice(allocator: Any, free: np.ndarray, request: Any) -> tuple[Any, tuple[int, ...]] | None:
    """Brute force of :class:`~topoalloc.grid.Partitions`' rule on the free mask: the grids of the
    least size that hold the request, in order; the first with a wholly free box; in it the free box
    overlapping the fewest wholly free boxes of the next larger grid, then the first."""
    free = np.asarray(free).ravel()
    grids = allocator.grids
    request = allocator.validate(request)

    def holds(g: Any) -> bool:
        if isinstance(request, int):
            return bool(g.size >= request)
        if all(a >= b for a, b in zip(g.shape, request, strict=True)):
            return True
        rotate: bool = allocator.rotate
        return rotate and all(a >= b for a, b in zip(sorted(g.shape), sorted(request), strict=True))

    holding = [i for i, g in enumerate(grids) if holds(g)]
    least = min(grids[i].size for i in holding)
    for i in (i for i in holding if grids[i].size == least):
        g = grids[i]
        boxes = [k for k in range(len(g.origins)) if all(free[v] for v in g.members[k].tolist())]
        if not boxes:
            continue
        nxt = next((j for j in range(i + 1, len(grids)) if grids[j].size > least), None)
        big = [] if nxt is None else [set(m.tolist()) for m in grids[nxt].members if all(free[v] for v in m.tolist())]
        cost = [sum(1 for b in big if b & set(g.members[k].tolist())) for k in boxes]
        k = boxes[cost.index(min(cost))]
        return g, g.origins[k]
    return None


def partition_boxes(allocator: Allocator, free: np.ndarray, request: Any) -> bool:
    """A wholly free partition of a grid of the least size that holds the request (Partitions, in the
    manner of Slurm's torus3d), by brute force. ``check_choice`` asserts the grant is the one the
    rule picks (first grid with a free box, least fragmentation cost, first box)."""
    return _partition_choice(allocator, free, request) is not None


def _partition_check_choice(allocator: Any, free: np.ndarray, request: Any, allocation: Allocation) -> None:
    got = _partition_choice(allocator, free, request)
    assert got is not None, f"{allocation!r} granted but no free partition existed"
    g, origin = got
    assert allocation.placement == Box(origin, g.shape), (
        f"partitions for {request!r} chose {allocation.placement!r}, expected {Box(origin, g.shape)!r}")


partition_boxes.check_choice = _partition_check_choice  # type: ignore[attr-defined]


def buddy_2d(allocator: Allocator, free: np.ndarray, request: tuple[int, int]) -> bool:
    """A free aligned ``s x s`` block, ``s`` the power of two at or above the longer side."""
    s = 1 << (max(request) - 1).bit_length()
    H, W = free.shape
    if s > min(H, W):
        return False
    blocks = free.reshape(H // s, s, W // s, s)
    return bool(blocks.all(axis=(1, 3)).any())


def frame_positions(allocator: Allocator, free: np.ndarray, request: tuple[int, int]) -> bool:
    """A free ``w x h`` frame at a stride position ``(i w, j h)`` (Chuang & Tzeng's frame sliding)."""
    w, h = request
    win = _window_free(free, w, h)
    return bool(win.size and win[::h, ::w].any())


def perfect_subcube(allocator: Allocator, free: np.ndarray, k: int) -> bool:
    """Any free ``k``-subcube, buddy or not: for every choice of ``k`` free dimensions, group the
    addresses by their fixed bits and look for a group with no busy node."""
    n = allocator.topology.dim
    addr = np.arange(1 << n)
    busy = ~free
    for dims in itertools.combinations(range(n), k):
        mask = sum(1 << d for d in dims)
        keys = addr & ~mask
        busy_per_group = np.bincount(keys, weights=busy, minlength=1 << n)
        present = np.bincount(keys, minlength=1 << n) > 0
        if np.any(present & (busy_per_group == 0)):
            return True
    return False


def buddy_subcube(allocator: Allocator, free: np.ndarray, k: int) -> bool:
    """A free aligned block ``[m 2^k, (m+1) 2^k)``."""
    return bool(free.reshape(-1, 1 << k).all(axis=1).any())


def _least_buddy_choice(allocator: Allocator, free: np.ndarray, k: int, allocation: Allocation) -> None:
    """Seed 002 §2.1.2: the grant is the block with the least ``m``."""
    m = int(np.flatnonzero(free.reshape(-1, 1 << k).all(axis=1))[0])
    got = allocation.placement
    assert (got.base, got.mask) == (m << k, (1 << k) - 1), f"took {got.pattern(allocator.topology.dim)}, least m={m}"


buddy_subcube.check_choice = _least_buddy_choice  # type: ignore[attr-defined]


def any_free(allocator: Allocator, free: np.ndarray, n: Any) -> bool:
    """At least ``request_size(n)`` free processors anywhere (a count on a flat machine; a count or
    a ``(w, h)`` request for the non-contiguous mesh allocators)."""
    return int(free.sum()) >= allocator.request_size(n)


def _free_page_positions(allocator: Allocator, free: np.ndarray) -> np.ndarray:
    """Positions, in the allocator's page order (``allocator.pages``: node ids per page), of the
    pages whose nodes are all free."""
    pages = np.asarray(allocator.pages)  # type: ignore[attr-defined]
    return np.flatnonzero(free.ravel()[pages].all(axis=1))


def whole_pages(allocator: Allocator, free: np.ndarray, request: Any) -> bool:
    """Enough whole free pages for ``request`` (Paging, Lo et al. 1997): ``request_size(request) /
    page_size`` pages of ``allocator.pages`` entirely free. The pages must tile full squares of the
    mesh and be disjoint. ``check_choice`` asserts the grant is the first free pages in page order."""
    pages = np.asarray(allocator.pages)  # type: ignore[attr-defined]
    assert len(np.unique(pages)) == pages.size, "pages overlap"
    need: int = allocator.request_size(request) // pages.shape[1]
    return len(_free_page_positions(allocator, free)) >= need


def _pages_check_choice(allocator: Allocator, free: np.ndarray, request: Any, allocation: Allocation) -> None:
    pages = np.asarray(allocator.pages)  # type: ignore[attr-defined]
    need = allocator.request_size(request) // pages.shape[1]
    expected = np.sort(pages[_free_page_positions(allocator, free)[:need]].ravel())
    assert np.array_equal(expected, allocation.nodes), (
        f"{allocation!r}: expected the first {need} free pages in page order, {expected.tolist()}"
    )


whole_pages.check_choice = _pages_check_choice  # type: ignore[attr-defined]


# ---- Gray-code and DHC-tree oracles (GrayCode, DHCTree) -------------------------------------
def _gray_blocks(order: np.ndarray, free: np.ndarray, k: int) -> list[np.ndarray]:
    """The node ids of every free Gray-code block for a ``k``-cube in one code, in block order."""
    size = len(order)
    starts = range(size) if k == 0 else range(0, size, 1 << (k - 1))
    out = []
    for s in starts:
        nodes = order[[(s + j) % size for j in range(1 << k)]]
        if free[nodes].all():
            out.append(nodes)
    return out


def gray_code_blocks(allocator: Allocator, free: np.ndarray, k: int) -> bool:
    """A free Gray-code block in some code the allocator uses: ``2^k`` cyclically consecutive
    positions of a code (``allocator.orders``, node ids in code order) starting at a multiple of
    ``2^(k-1)`` (any position for ``k == 0``). ``check_choice`` asserts the first free block of the
    first code that has one was taken (Chen & Shin's GC strategy)."""
    size = 1 << allocator.topology.dim
    for order in allocator.orders:  # type: ignore[attr-defined]  # a Gray-code allocator's codes
        order = np.asarray(order)
        assert sorted(order.tolist()) == list(range(size)), "a Gray code must list every node once"
        if _gray_blocks(order, free, k):
            return True
    return False


def _gray_check_choice(allocator: Allocator, free: np.ndarray, k: int, allocation: Allocation) -> None:
    for order in allocator.orders:  # type: ignore[attr-defined]  # a Gray-code allocator's codes
        blocks = _gray_blocks(np.asarray(order), free, k)
        if blocks:
            expected = np.sort(blocks[0])
            assert np.array_equal(expected, allocation.nodes), (
                f"{allocation!r}: expected the first free Gray block {expected.tolist()}"
            )
            return
    raise AssertionError(f"{allocation!r} granted, but no free Gray block existed")


gray_code_blocks.check_choice = _gray_check_choice  # type: ignore[attr-defined]


def _forest(size: int) -> list[tuple[int, int]]:
    """(offset, size) of each power-of-two tree of a ``size``-processor DHC forest, largest first."""
    out, offset = [], 0
    for b in range(size.bit_length() - 1, -1, -1):
        if size >> b & 1:
            out.append((offset, 1 << b))
            offset += 1 << b
    return out


def _free_partitions(free: np.ndarray, p: int) -> list[int]:
    """Start ids of every fully free aligned partition of size ``2^ceil(log2 p)``, in forest order."""
    s = 1 << (p - 1).bit_length()
    starts = []
    for offset, size in _forest(len(free)):
        if size >= s:
            ok = free[offset : offset + size].reshape(-1, s).all(axis=1)
            starts.extend((offset + np.flatnonzero(ok) * s).tolist())
    return starts


def tree_partitions(allocator: Allocator, free: np.ndarray, p: int) -> bool:
    """A fully free aligned partition of ``2^ceil(log2 p)`` processors in some tree of the DHC
    forest (the binary expansion of the machine size, largest tree first). ``check_choice``
    asserts the leftmost one was taken under ``assignment == "first_fit"`` and, under ``"weight"``
    (with private weights), the one the lightest-branch descent of seed 004 §3 reaches, with
    weights recomputed from the live grants."""
    return bool(_free_partitions(free, p))


def _tree_check_choice(allocator: Allocator, free: np.ndarray, p: int, allocation: Allocation) -> None:
    start = int(allocation.nodes[0])
    rule = getattr(allocator, "assignment", None)
    if rule == "first_fit":
        expected = _free_partitions(free, p)[0]
    elif rule == "weight" and not getattr(allocator, "shared_weights", False):
        s = 1 << (p - 1).bit_length()
        others = [int(a.nodes[0]) for a in allocator.allocations if a != allocation]
        free_starts = set(_free_partitions(free, p))

        def weight(lo: int, n: int) -> int:
            return sum(lo <= x < lo + n for x in others)

        def has_free(lo: int, n: int) -> bool:
            return any(lo <= x < lo + n for x in free_starts)

        trees = [(o, n) for o, n in _forest(len(free)) if n >= s and has_free(o, n)]
        lo, n = min(trees, key=lambda t: (weight(*t), t[0]))
        while n > s:
            half = n // 2
            kids = [(c, half) for c in (lo, lo + half) if has_free(c, half)]
            lo, n = min(kids, key=lambda t: (weight(*t), t[0]))
        expected = lo
    else:
        return
    assert start == expected, f"{allocation!r}: expected the partition starting at {expected}"


tree_partitions.check_choice = _tree_check_choice  # type: ignore[attr-defined]
# ---- end of Gray-code and DHC-tree oracles ---------------------------------------------------


#: Oracles by ``(recognition, topology class)``; allocators of other packages may add entries.
ORACLES: dict[tuple[str, type], Callable[..., bool]] = {
    ("perfect", Mesh): perfect_submesh,
    ("box", Mesh): perfect_box,
    ("partition", Mesh): partition_boxes,
    ("buddy", Mesh): buddy_2d,
    ("frame", Mesh): frame_positions,
    ("perfect", Hypercube): perfect_subcube,
    ("buddy", Hypercube): buddy_subcube,
    ("any", Flat): any_free,
    ("any", Mesh): any_free,
    ("page", Mesh): whole_pages,
    ("gray", Hypercube): gray_code_blocks,
    ("tree", Flat): tree_partitions,
    ("tree-any", SwitchTree): tree_any,
}


def oracle_for(allocator: Allocator) -> Callable[..., bool] | None:
    """The oracle for ``allocator``: its class attribute ``oracle`` if set, otherwise the entry of
    :data:`ORACLES` for its ``recognition`` and topology, otherwise ``None``."""
    own: Callable[..., bool] | None = getattr(type(allocator), "oracle", None)
    if own is not None:
        return own
    for cls in type(allocator.topology).__mro__:  # a subclass of Mesh/Hypercube/Flat gets its base's
        found = ORACLES.get((allocator.recognition, cls))
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------------------------------------
# the state machine
def _observable(allocator: Allocator) -> tuple[Any, ...]:
    """What an allocator's surface shows of its state: free count, occupancy, live grants, and its
    own free nodes (when it has ``free_nodes``)."""
    own = getattr(allocator, "free_nodes", None)
    return (
        allocator.free,
        np.asarray(allocator.occupancy).tobytes(),
        tuple(a.id for a in allocator.allocations),
        np.sort(np.asarray(own())).tobytes() if own is not None else None,
    )

class AllocatorMachine(RuleBasedStateMachine):
    """Random allocate / release / fold sequences against one allocator, invariants after each step.

    Subclass it through :func:`allocator_machine`, which fixes the allocator factory, the machine
    strategy and the oracle.
    """

    factory: Callable[[Any], Allocator]
    machines: st.SearchStrategy[Any]
    oracle: Any = "auto"

    def __init__(self) -> None:
        super().__init__()
        self.allocator: Allocator | None = None
        self.live: dict[int, Allocation] = {}
        self.released: list[Allocation] = []

    @property
    def _under_test(self) -> Allocator:
        """The allocator, built by the initialize rule (which runs before every other rule)."""
        assert self.allocator is not None, "the initialize rule has not run"
        return self.allocator

    @initialize(data=st.data())
    def build(self, data: st.DataObject) -> None:
        topo = data.draw(type(self).machines, label="machine")
        self.allocator = allocator = type(self).factory(topo)
        oracle = type(self).oracle
        if oracle == "auto":
            oracle = oracle_for(allocator)
        elif isinstance(oracle, str):
            oracle = ORACLES[(oracle, type(topo))]
        self._oracle = oracle
        self._other = type(self).factory(topo)

    @rule(data=st.data())
    def allocate(self, data: st.DataObject) -> None:
        a = self._under_test
        request = data.draw(requests(a), label="request")
        before = free_mask(a) if self._oracle else None
        free_before = a.free
        got = a.allocate(request)
        if got is None:
            assert a.free == free_before, "a failed allocate changed the free count"
            if self._oracle is not None:
                assert not self._oracle(a, before, request), (
                    f"allocate({request!r}) returned None but a placement exists:\n{a.occupancy}"
                )
            return
        assert isinstance(got, Allocation)
        assert got.id not in self.live
        assert a.free == free_before - len(got.nodes), "free did not drop by the grant's size"
        check_region(a, got)
        check = getattr(self._oracle, "check_choice", None)
        if check is not None:
            check(a, before, request, got)
        self.live[got.id] = got

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def release(self, data: st.DataObject) -> None:
        aid = data.draw(st.sampled_from(sorted(self.live)), label="release")
        alloc = self.live.pop(aid)
        self._under_test.release(alloc)
        self.released.append(alloc)
        occ = np.asarray(self._under_test.occupancy).ravel()
        assert np.all(occ[alloc.nodes] == 0), "released nodes are not free"

    @precondition(lambda self: self.released)
    @rule()
    def release_twice(self) -> None:
        try:
            self._under_test.release(self.released[-1])
        except DoubleReleaseError:
            return
        raise AssertionError("a second release did not raise DoubleReleaseError")

    @rule(data=st.data())
    def release_foreign(self, data: st.DataObject) -> None:
        other = self._other
        alloc = other.allocate(data.draw(requests(other), label="foreign request"))
        if alloc is None:
            return
        try:
            self._under_test.release(alloc)
        except ForeignAllocationError:
            return
        finally:
            other.release(alloc)
        raise AssertionError("releasing another allocator's grant did not raise ForeignAllocationError")

    @rule(data=st.data())
    def bad_request(self, data: st.DataObject) -> None:
        bad = data.draw(bad_requests(self._under_test.topology, self._under_test), label="bad request")
        try:
            self._under_test.allocate(bad)
        except RequestError:
            return
        raise AssertionError(f"allocate({bad!r}) did not raise a RequestError")

    @rule(data=st.data())
    def clone_behaves_identically(self, data: st.DataObject) -> None:
        a = self._under_test
        state = _observable(a)
        fast, generic, solo = a.clone(), Allocator.clone(a), a.clone()
        assert type(fast) is type(a) and type(generic) is type(a)
        for twin in (fast, generic, solo):
            assert _observable(twin) == state, "a clone differs from the original"
        # operations on one clone reach neither the original nor the other clones
        live = list(self.live.values())
        for req in data.draw(st.lists(requests(solo), max_size=4), label="clone-only requests"):
            solo.allocate(req)
        for alloc in live[: data.draw(st.integers(0, len(live)), label="clone-only releases")]:
            solo.release(alloc)
        for other in (a, fast, generic):
            assert _observable(other) == state, "operations on a clone changed another copy"
        # the same operations on the original and both clones: the same grants, the same state
        ops = data.draw(
            st.lists(st.one_of(st.tuples(st.just("allocate"), requests(a)),
                               st.tuples(st.just("release"), st.integers(0, 1 << 16))), max_size=8),
            label="operations on original and clones",
        )
        for kind, arg in ops:
            if kind == "allocate":
                got = [x.allocate(arg) for x in (a, fast, generic)]
                if got[0] is None:
                    assert got[1] is None and got[2] is None, f"allocate({arg!r}): a clone placed it, the original not"
                    continue
                for g in got[1:]:
                    assert g is not None and g.id == got[0].id and g.request == got[0].request, (
                        f"allocate({arg!r}): {g!r} on a clone, {got[0]!r} on the original"
                    )
                    assert np.array_equal(g.nodes, got[0].nodes), f"allocate({arg!r}): clones placed it elsewhere"
                check_region(a, got[0])
                self.live[got[0].id] = got[0]
            elif self.live:
                alloc = self.live.pop(sorted(self.live)[arg % len(self.live)])
                for x in (a, fast, generic):
                    x.release(alloc)
                self.released.append(alloc)
            state = _observable(a)
            assert _observable(fast) == state and _observable(generic) == state, f"after {kind} {arg!r}"

    def _random_mask(self, data: st.DataObject, label: str) -> np.ndarray:
        """A random node mask: independent nodes at a drawn density, or the allocator's free nodes
        (its fragmentation is what placements meet), possibly thinned or with busy nodes added."""
        a = self._under_test
        seed = data.draw(st.integers(0, 2**32 - 1), label=f"{label} seed")
        density = data.draw(st.sampled_from([0.0, 0.2, 0.5, 0.8, 0.95, 1.0]), label=f"{label} density")
        rng = np.random.default_rng(seed)
        mask = rng.random(a.size) < density
        mode = data.draw(st.sampled_from(["random", "free", "free minus", "free plus"]), label=f"{label} mode")
        if mode == "random":
            return mask
        free: np.ndarray = np.asarray(a.occupancy).ravel() == 0
        return free if mode == "free" else free & mask if mode == "free minus" else free | ~mask

    @rule(data=st.data())
    def allocate_avoiding_matches_the_generic(self, data: st.DataObject) -> None:
        a = self._under_test
        request = data.draw(requests(a), label="request")
        avoid = self._random_mask(data, "avoid")
        fast, generic = a.clone(), a.clone()
        got = fast.allocate_avoiding(request, avoid)
        want = Allocator.allocate_avoiding(generic, request, avoid)
        assert (got is None) == (want is None), f"allocate_avoiding({request!r}): {got!r}, generic {want!r}"
        if got is not None:
            assert want is not None
            assert np.array_equal(got.nodes, want.nodes) and got.request == want.request, (
                f"allocate_avoiding({request!r}) took {got.nodes.tolist()}, the generic default {want.nodes.tolist()}"
            )
            assert not avoid[got.nodes].any(), f"{got!r} touches an avoided node"
            check_region(fast, got)
        assert np.array_equal(np.asarray(fast.occupancy) == 0, np.asarray(generic.occupancy) == 0)
        assert fast.free == generic.free
        own = getattr(fast, "free_nodes", None)
        if own is not None:
            generic_own = generic.free_nodes()  # type: ignore[attr-defined]  # the same class as fast
            assert np.array_equal(np.sort(own()), np.sort(generic_own)), "internal free state differs"

    @rule(data=st.data())
    def earliest_in_matches_the_generic(self, data: st.DataObject) -> None:
        a = self._under_test
        request = data.draw(requests(a), label="request")
        seed = data.draw(st.integers(0, 2**32 - 1), label="ready seed")
        rng = np.random.default_rng(seed)
        times = np.array([-np.inf, 0.0, 1.0, 2.5, 4.0, 7.0])
        ready = times[rng.integers(0, data.draw(st.integers(1, len(times)), label="distinct times"), a.size)]
        now = data.draw(st.sampled_from([-np.inf, 0.0, 1.5, 5.0]), label="now")
        state = _observable(a)
        got = a.earliest_in(request, ready, now)
        want = Allocator.earliest_in(a, request, ready, now)
        assert _observable(a) == state, "earliest_in changed the allocator"
        assert (got is None) == (want is None), f"earliest_in({request!r}): {got!r}, generic {want!r}"
        if got is not None:
            assert want is not None
            assert got[0] == want[0] and np.array_equal(got[1], want[1]), (
                f"earliest_in({request!r}) = ({got[0]}, {got[1].tolist()}), generic ({want[0]}, {want[1].tolist()})"
            )

    @rule(data=st.data())
    def place_in_is_exact(self, data: st.DataObject) -> None:
        a = self._under_test
        request = data.draw(requests(a), label="request")
        free = self._random_mask(data, "free")
        state = _observable(a)
        got = a.place_in(request, free)
        assert _observable(a) == state, "place_in changed the allocator"
        generic = Allocator.place_in(a, request, free)
        assert (got is None) == (generic is None), f"place_in({request!r}): {got!r}, generic default {generic!r}"
        shape = np.asarray(a.occupancy).shape
        if self._oracle is not None:
            assert (got is not None) == bool(self._oracle(a, free.reshape(shape), request)), (
                f"place_in({request!r}) = {got!r}, but the oracle says otherwise on\n{free.reshape(shape)}"
            )
        if type(a).place_in_bits is not Allocator.place_in_bits:  # an override answers as the default
            bits = int.from_bytes(np.packbits(free, bitorder="little").tobytes(), "little")
            why = place_in_bits_differs(a, request, bits)
            assert why is None, why
            assert _observable(a) == state, "place_in_bits changed the allocator"
        if got is not None:
            got = np.asarray(got)
            assert np.all(np.diff(got) > 0) and free[got].all(), f"place_in({request!r}) left the mask: {got}"
            assert len(got) == a.request_size(request), f"place_in({request!r}): {len(got)} nodes"
            if self._oracle is not None:
                only = np.zeros(a.size, dtype=bool)
                only[got] = True
                assert self._oracle(a, only.reshape(shape), request), f"{got.tolist()} is not a recognised region"

    @rule(data=st.data())
    def covers_is_sound(self, data: st.DataObject) -> None:
        a = self._under_test
        failed = data.draw(requests(a), label="failed request")
        request = data.draw(requests(a), label="request")
        assert a.covers(failed, failed), f"{failed!r} does not cover itself"
        if not a.covers(failed, request):
            return
        free = self._random_mask(data, "free")
        if a.place_in(failed, free) is None:
            assert a.place_in(request, free) is None, (
                f"{request!r} is covered by {failed!r} but placed where it is not:\n{free.reshape(a.occupancy.shape)}"
            )

    @rule(data=st.data())
    def fold(self, data: st.DataObject) -> None:
        a = self._under_test
        request = data.draw(requests(a), label="fold request")
        smaller = a.fold(request)
        if smaller is None:
            return
        a.validate(smaller)
        assert a.request_size(smaller) < a.request_size(request), (
            f"fold({request!r}) = {smaller!r} is not smaller"
        )

    @invariant()
    def consistent(self) -> None:
        a = self.allocator
        if a is None:
            return
        n = a.size
        occ = np.asarray(a.occupancy).ravel()
        assert occ.shape == (n,)
        expected = np.zeros(n, dtype=np.int64)
        used = 0
        for aid, alloc in self.live.items():
            nodes = alloc.nodes
            assert np.all(expected[nodes] == 0), f"{alloc!r} overlaps another grant"
            expected[nodes] = aid
            used += len(nodes)
        assert np.array_equal(occ, expected), "occupancy differs from the live grants"
        assert a.free == n - used, f"free = {a.free}, expected {n - used}"
        free_nodes = getattr(a, "free_nodes", None)
        if free_nodes is not None:
            own = np.sort(np.asarray(free_nodes()))
            assert np.array_equal(own, np.flatnonzero(expected == 0)), (
                "the allocator's own free nodes differ from the complement of its grants"
            )


def allocator_machine(
    factory: Callable[[Any], Allocator],
    machines: st.SearchStrategy[Any],
    *,
    oracle: Any = "auto",
    max_examples: int = 40,
    steps: int = 40,
) -> type[AllocatorMachine]:
    """A :class:`AllocatorMachine` subclass for ``factory`` (an allocator class or any callable
    taking a topology) on machines drawn from ``machines``.

    ``oracle`` is ``"auto"`` (:func:`oracle_for`), ``None`` (no recognition check), a key of
    :data:`ORACLES` such as ``"perfect"``, or an oracle callable. Use ``.TestCase`` of the result
    as a pytest/unittest test class.
    """
    name = getattr(factory, "__name__", "Allocator")
    cls: type[AllocatorMachine] = type(
        f"{name}Machine",
        (AllocatorMachine,),
        {"factory": staticmethod(factory), "machines": machines, "oracle": oracle},
    )
    cls.TestCase.settings = settings(
        max_examples=max_examples, stateful_step_count=steps, deadline=None
    )
    return cls
