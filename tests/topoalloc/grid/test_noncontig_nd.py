"""Non-contiguous allocators on meshes and tori of any dimension (topoalloc.grid: Random, MBS, Curve,
MC1x1, MM): the whole allocator surface through the stateful machine, brute-force oracles of the
centre-based rules, the 2D equivalences, the curves and the bad input."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import mesh as mesh2d
from topoalloc._memory import MachineTooLargeError
from topoalloc.errors import AllocatorParameterError, UnknownOptionError, UnsupportedTopologyError
from topoalloc.grid import noncontig
from topoalloc.grid.curves import Curve, grid_curve_order, hilbert_order, snake_order
from topoalloc.grid.mbs import MBS, cube_decomposition
from topoalloc.grid.mc import MC1x1
from topoalloc.grid.mm import MM
from topoalloc.grid.noncontig import PairSums, Random, neighbour_table
from topoalloc.testing import allocator_machine, any_free, meshes_nd, tori
from topologies import Hypercube, Mesh, RequestSizeError, RequestTypeError, Torus


# -- brute force ------------------------------------------------------------------------------------
def _geometry(topo):
    return np.array(topo.dims), np.array(topo.ring), np.array(topo.weights if topo.weights else (1,) * topo.ndim)


def _hops(topo, a, b):
    """Weighted hop distance and L-infinity shell (unweighted) between nodes a and b, by coordinates."""
    dims, ring, w = _geometry(topo)
    ca, cb = np.array(topo.coords(a)), np.array(topo.coords(b))
    d = np.abs(ca - cb)
    d = np.where(ring, np.minimum(d, dims - d), d)
    return float(d @ w), int(d.max())


def _pair_sum(topo, nodes):
    return sum(_hops(topo, a, b)[0] for a, b in itertools.combinations(nodes, 2))


def _brute_mm(topo, free, n):
    """MM by brute force: every candidate (a point whose every coordinate is one of a free node), its
    n nearest free nodes by (distance, id), the first candidate of least pairwise sum."""
    free_ids = np.flatnonzero(free).tolist()
    coords = [topo.coords(v) for v in free_ids]
    axes = [sorted({c[j] for c in coords}) for j in range(topo.ndim)]
    best = None
    for point in sorted(itertools.product(*axes), key=lambda p: topo.node_id(*p)):
        c = topo.node_id(*point)
        near = sorted(free_ids, key=lambda v: (_hops(topo, c, v)[0], v))[:n]
        cost = _pair_sum(topo, near)
        if best is None or cost < best[0] - 1e-9:
            best = (cost, sorted(near))
    return best


def _brute_mc(topo, free, n):
    """MC1x1 by brute force: every free centre, its n nearest free nodes by (shell, distance, id), the
    first centre of least total shell."""
    free_ids = np.flatnonzero(free).tolist()
    best = None
    for c in free_ids:
        key = {v: (_hops(topo, c, v)[1], _hops(topo, c, v)[0], v) for v in free_ids}
        near = sorted(free_ids, key=key.get)[:n]
        cost = sum(key[v][0] for v in near)
        if best is None or cost < best[0]:
            best = (cost, sorted(near))
    return best


def _choice_checker(brute):
    def check(allocator, free, request, allocation):
        n = allocator.request_size(request)
        cost, nodes = brute(allocator.topology, np.asarray(free).ravel(), n)
        assert allocation.nodes.tolist() == nodes, (
            f"{allocation!r}: expected {nodes} (cost {cost}) on free {np.flatnonzero(free).tolist()}")

    def oracle(allocator, free, request):
        return any_free(allocator, free, request)

    oracle.check_choice = check
    return oracle


# -- the stateful machine: the whole surface, what-if methods included ----------------------------------
def _named(factory, name):
    factory.__name__ = name
    return factory


def _curve(curve, fit):
    return _named(lambda t: Curve(t, curve=curve, fit=fit), f"Curve_{curve}_{fit}")


TestRandomMachine = allocator_machine(Random, meshes_nd(max_size=48), max_examples=12).TestCase
TestRandomTorusMachine = allocator_machine(Random, tori(min_dims=3, max_size=48), max_examples=6).TestCase
TestMBSMachine = allocator_machine(MBS, meshes_nd(max_dims=4, max_size=64), max_examples=15).TestCase
TestMBSTorusMachine = allocator_machine(MBS, tori(min_dims=3, max_size=64), max_examples=10).TestCase
TestCurveHilbertBestMachine = allocator_machine(_curve("hilbert", "best"), tori(min_dims=3, max_size=64),
                                                max_examples=10).TestCase
TestCurveHilbertFirstMachine = allocator_machine(_curve("hilbert", "first"), meshes_nd(min_dims=3, max_size=64),
                                                 max_examples=10).TestCase
TestCurveSnakeSquaresMachine = allocator_machine(_curve("snake", "sum_of_squares"), meshes_nd(max_size=48),
                                                 max_examples=10).TestCase
TestCurveFreeListMachine = allocator_machine(_curve("snake", "free_list"), tori(min_dims=2, max_size=48),
                                             max_examples=10).TestCase
TestMC1x1Machine = allocator_machine(MC1x1, meshes_nd(min_dims=2, max_dims=3, max_size=36),
                                     oracle=_choice_checker(_brute_mc), max_examples=15, steps=25).TestCase
TestMMMachine = allocator_machine(MM, meshes_nd(min_dims=2, max_dims=3, max_size=36),
                                  oracle=_choice_checker(_brute_mm), max_examples=15, steps=25).TestCase
TestMMTorusMachine = allocator_machine(MM, tori(min_dims=3, max_dims=3, max_side=4, max_size=36),
                                       oracle=_choice_checker(_brute_mm), max_examples=8, steps=20).TestCase


# -- the centre-based rules against brute force -------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_mm_and_mc1x1_match_brute_force_on_random_free_sets(data):
    """On random machines of 1-4 dimensions (mesh, torus or mixed, some with link weights) and random
    free sets, MM's and MC1x1's what-if choices equal the brute-force rules (candidates, nearest nodes
    by distance then id, least cost, first candidate). (The stateful machines check allocate's own
    choices against the same brute force.)"""
    topo = data.draw(meshes_nd(min_dims=1, max_dims=4, max_side=4, max_size=40), label="machine")
    if data.draw(st.booleans(), label="weighted"):
        topo = Mesh(*topo.dims, wrap=topo.wrap, weights=tuple(data.draw(st.sampled_from([1, 2, 3]), label="w")
                                                                for _ in topo.dims))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    free = rng.random(topo.size) < data.draw(st.sampled_from([0.3, 0.6, 1.0]), label="density")
    if not free.any():
        free[0] = True
    n = data.draw(st.integers(1, int(free.sum())), label="n")
    for cls, brute in ((MM, _brute_mm), (MC1x1, _brute_mc)):
        a = cls(topo)
        got = a.place_in(n, free)
        cost, nodes = brute(topo, free, n)
        assert got.tolist() == nodes, f"{cls.__name__} on {topo!r}: {got.tolist()} vs brute force {nodes}"


def test_mm_candidates_include_busy_points():
    """The candidate centres are the grid points whose coordinates are those of free processors,
    busy or not (Bender et al.): around a busy node ringed by free ones, MM centres on the busy node."""
    m = MM(Mesh(5, 5))
    free = np.zeros(25, dtype=bool)
    free[[1, 5, 7, 11, 24]] = True
    cands = m.candidates(free)
    assert 6 in cands.tolist() and len(cands) == 16
    centres, costs = m.candidate_costs(4, free)
    assert costs[centres.tolist().index(6)] == costs.min() == 12  # the ring of four: six pairs at 2 hops
    assert m.place_in(4, free).tolist() == [1, 5, 7, 11]


def test_mc1x1_on_a_2d_mesh_matches_the_2d_allocator_centre_costs():
    """MC1x1's centre costs on a 2D mesh equal those of topoalloc.mesh.MC1x1 (where finite)."""
    rng = np.random.default_rng(2)
    m = Mesh(7, 6)
    free = rng.random(m.size) < 0.55
    a, b = MC1x1(m), mesh2d.MC1x1(m)
    b.busy[:] = ~free.reshape(b.busy.shape)
    b._free = int(free.sum())
    centres, costs = a.centre_costs(6, free)
    theirs = b.centre_costs(6).ravel()
    finite = np.isfinite(theirs[centres])
    assert np.array_equal(costs[finite], theirs[centres][finite]) and finite.any()
    assert costs.min() == theirs.min()


# -- 2D equivalences ------------------------------------------------------------------------------------
@pytest.mark.parametrize("pair", [
    (mesh2d.MBS, MBS), (mesh2d.MC1x1, MC1x1),
    (lambda t: mesh2d.Random(t, seed=5), lambda t: Random(t, seed=5)),
    (lambda t: mesh2d.Curve(t, "hilbert", "best"), lambda t: Curve(t, "hilbert", "best")),
    (lambda t: mesh2d.Curve(t, "snake", "first"), lambda t: Curve(t, "snake", "first")),
    (lambda t: mesh2d.Curve(t, "hilbert", "sum_of_squares"), lambda t: Curve(t, "hilbert", "sum_of_squares")),
], ids=["MBS", "MC1x1", "Random", "HilbertBest", "SnakeFirst", "HilbertSquares"])
def test_on_a_plain_2d_mesh_the_grants_are_those_of_the_2d_allocators(pair):
    """The same random requests (counts and shapes) and releases on the 2D allocator of topoalloc.mesh
    and on its d-dimensional form over 9 x 7 and 8 x 8 meshes: the same grants, step by step."""
    rng = np.random.default_rng(11)
    for m in (Mesh(9, 7), Mesh(8, 8)):
        a, b = pair[0](m), pair[1](m)
        live = []
        for _ in range(250):
            if live and rng.random() < 0.45:
                x, y = live.pop(int(rng.integers(len(live))))
                a.release(x)
                b.release(y)
                continue
            req = int(rng.integers(1, 20)) if rng.random() < 0.5 else (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
            x, y = a.allocate(req), b.allocate(req)
            assert (x is None) == (y is None)
            if x is not None:
                assert x.nodes.tolist() == y.nodes.tolist(), f"{req}: {x.nodes.tolist()} vs {y.nodes.tolist()}"
                live.append((x, y))


# -- what-if: place_in is the rule's own choice ----------------------------------------------------------
@pytest.mark.parametrize("factory", [MBS, MC1x1, MM, lambda t: Curve(t, "hilbert", "best"),
                                     lambda t: Curve(t, "snake", "free_list"), lambda t: Curve(t, "hilbert", "first")],
                         ids=["MBS", "MC1x1", "MM", "HilbertBest", "SnakeFreeList", "HilbertFirst"])
def test_place_in_on_the_free_nodes_is_the_next_grant(factory):
    """For the allocators whose choice depends only on the free nodes (MBS's records are always the
    maximal free buddy blocks), place_in on the present free mask returns exactly what allocate
    grants next, on a 3D torus and a 3D mesh, along a random churn."""
    rng = np.random.default_rng(7)
    for topo in (Torus(4, 4, 4), Mesh(5, 3, 4)):
        a = factory(topo)
        live = []
        for _ in range(120):
            if live and rng.random() < 0.4:
                a.release(live.pop(int(rng.integers(len(live)))))
                continue
            n = int(rng.integers(1, 12))
            want = a.place_in(n, ~a.busy)
            got = a.allocate(n)
            assert (want is None) == (got is None)
            if got is not None:
                assert want.tolist() == got.nodes.tolist()
                live.append(got)


def test_random_place_in_does_not_draw():
    """Random's what-if gives the lowest free ids and leaves its stream where it was: the next grants
    are those of a twin that was never asked."""
    a, b = Random(Torus(4, 4, 4), seed=9), Random(Torus(4, 4, 4), seed=9)
    free = np.ones(64, dtype=bool)
    free[:3] = False
    assert a.place_in(4, free).tolist() == [3, 4, 5, 6]
    assert a.allocate(10).nodes.tolist() == b.allocate(10).nodes.tolist()


def test_covers_counts_only():
    """A count that failed covers every request of at least as many nodes (shape or count)."""
    a = MC1x1(Mesh(4, 4, 2))
    assert a.covers(5, 6) and a.covers(5, (2, 3, 1)) and not a.covers(6, 5) and a.covers((2, 2, 2), 9)


def test_fold_halves_the_longest_side_first_on_ties():
    """The generalised 2D fold: the longest side halved, rounding up, the first such side on ties."""
    a = Random(Mesh(8, 8, 8))
    assert a.fold((5, 5, 3)) == (3, 5, 3)
    assert a.fold((2, 7, 7)) == (2, 4, 7)
    assert a.fold((1, 1, 1)) is None and a.fold(7) == 4 and a.fold(1) is None
    assert a.validate([2, 3]) == (2, 3, 1)  # a shorter shape is padded with 1s, as the box allocators do


def test_clone_shares_the_tables_and_copies_the_state():
    """The fast clone shares MM's read-only table and copies busy; grants diverge independently."""
    a = MM(Torus(4, 4, 4))
    x = a.allocate(5)
    twin = a.clone()
    assert twin._table is a._table and twin.busy is not a.busy
    twin.release(x)
    assert a.free == 59 and twin.free == 64


# -- MBS ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [(8, 8, 8), (5, 3, 6), (3, 3, 3, 2), (7,), (6, 10)])
def test_cube_decomposition_tiles_the_machine_with_power_of_two_cubes(dims):
    """The initial blocks cover every node once, are power-of-two cubes, largest first."""
    roots = cube_decomposition(dims)
    seen = np.zeros(math.prod(dims), dtype=int)
    for b in roots:
        assert len(set(b.shape)) == 1 and b.shape[0] & (b.shape[0] - 1) == 0
        seen[b.node_ids(dims)] += 1
    assert (seen == 1).all()
    sides = [b.shape[0] for b in roots]
    assert sides == sorted(sides, reverse=True)
    if len(dims) == 2:
        assert [(b.origin, b.shape[0]) for b in roots] == [((q.x, q.y), q.width)
                                                            for q in mesh2d.square_decomposition(*dims)]


def test_mbs_grants_are_octets_by_base_eight_digits():
    """On an 8x8x8 torus a request of 8^2 + 3 * 8 + 2 = 90 nodes takes one 4x4x4 block, three 2x2x2
    octets and two single nodes (Lo et al.'s base-4 factoring, in base 8 in 3D); all blocks are
    aligned cubes and free blocks merge back into the whole machine on release."""
    m = MBS(Torus(8, 8, 8))
    a = m.allocate(90)
    sides = [b.shape[0] for b in m.blocks(a)]
    assert sides == [4, 2, 2, 2, 1, 1]
    for b in m.blocks(a):
        assert all(o % b.shape[0] == 0 for o in b.origin)
    assert sorted(np.concatenate([b.node_ids(m.dims) for b in m.blocks(a)]).tolist()) == a.nodes.tolist()
    m.release(a)
    assert [(b.origin, b.shape) for b in m.free_blocks()] == [((0, 0, 0), (8, 8, 8))]
    with pytest.raises(KeyError):
        m.blocks(a)


# -- curves -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [(2, 2, 2), (4, 4, 4), (8, 8, 8), (4, 4, 4, 4), (16, 16)])
def test_hilbert_order_is_a_hilbert_curve_on_power_of_two_cubes(dims):
    """Skilling's transform: every node once, consecutive nodes are neighbours, every aligned run of
    2^(d j) positions is an aligned cube of side 2^j (the Hilbert curve's defining recursion)."""
    order = hilbert_order(dims)
    assert sorted(order.tolist()) == list(range(math.prod(dims)))
    c = np.stack(np.unravel_index(order, dims[::-1])[::-1], axis=1)
    assert (np.abs(np.diff(c, axis=0)).sum(axis=1) == 1).all()
    d = len(dims)
    for j in range(1, dims[0].bit_length() - 1):
        runs = c.reshape(-1, 1 << (d * j), d)
        assert ((runs.max(axis=1) - runs.min(axis=1)) == (1 << j) - 1).all()
        assert (runs.min(axis=1) % (1 << j) == 0).all()


@pytest.mark.parametrize("dims", [(3, 4, 5), (4, 3, 2), (5, 5, 5), (2, 3, 2, 3)])
def test_snake_order_steps_between_neighbours(dims):
    """The boustrophedon lists every node once and steps between neighbours; in 2D it is the 2D snake."""
    order = snake_order(dims)
    assert sorted(order.tolist()) == list(range(math.prod(dims)))
    c = np.stack(np.unravel_index(order, dims[::-1])[::-1], axis=1)
    assert (np.abs(np.diff(c, axis=0)).sum(axis=1) == 1).all()
    assert snake_order((5, 4)).tolist() == mesh2d.curve_order(5, 4, "snake").tolist()
    assert grid_curve_order((6, 5)).tolist() == mesh2d.curve_order(6, 5).tolist()


def test_a_closed_curve_on_a_torus_wraps_its_intervals():
    """On an 8x8x8 torus the Hilbert curve ends next to its start (cyclic); a free interval over the
    end is used as one interval, and on a mesh it is not."""
    t = Curve(Torus(8, 8, 8), "hilbert", "best")
    assert t.cyclic and not Curve(Mesh(8, 8, 8), "hilbert", "best").cyclic
    free = np.zeros(512, dtype=bool)
    free[t.order[-3:]] = True
    free[t.order[:3]] = True
    free[t.order[100:105]] = True  # a 5-run in the middle: best fit would take it on a line
    got = t.place_in(6, free)
    assert sorted(got.tolist()) == sorted(t.order[[-3, -2, -1, 0, 1, 2]].tolist())
    starts, lengths = Curve(Torus(8, 8, 8), "hilbert", "first").intervals()
    assert starts.tolist() == [0] and lengths.tolist() == [512]
    line = Curve(Mesh(8, 8, 8), "hilbert", "best")
    assert sorted(line.place_in(5, free).tolist()) == sorted(t.order[100:105].tolist())


def test_free_list_takes_the_first_free_nodes_along_the_curve():
    """The sorted free list (SST's SortedFreeListAllocator): the first n free nodes in curve order."""
    c = Curve(Mesh(4, 4, 4), "snake", "free_list")
    free = np.ones(64, dtype=bool)
    free[c.order[[1, 3, 4]]] = False
    assert sorted(c.place_in(4, free).tolist()) == sorted(c.order[[0, 2, 5, 6]].tolist())


# -- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [Random, MBS, MC1x1, MM, Curve])
def test_bad_requests_name_the_value(cls):
    """More sides than the machine, a zero or negative side, a side too long, junk, a count out of
    range: the documented RequestError naming the request."""
    a = cls(Torus(4, 4, 2))
    with pytest.raises(RequestTypeError, match=r"\(1, 1, 1, 1\)"):
        a.allocate((1, 1, 1, 1))
    with pytest.raises(RequestSizeError, match=r"\(2, 0, 1\)"):
        a.allocate((2, 0, 1))
    with pytest.raises(RequestSizeError, match=r"\(1, 1, 3\)"):
        a.allocate((1, 1, 3))
    with pytest.raises(RequestSizeError, match="33"):
        a.allocate(33)
    with pytest.raises(RequestSizeError, match="-2"):
        a.allocate(-2)
    for junk in ("4", 2.5, None, True):
        with pytest.raises(RequestTypeError, match=repr(junk) if not isinstance(junk, str) else "'4'"):
            a.allocate(junk)
    with pytest.raises(AllocatorParameterError, match="63"):
        a.place_in(2, np.ones(63, dtype=bool))


def test_bad_parameters_name_the_value():
    """Unknown curves and fits, non-mesh topologies, a machine too large for the neighbour table."""
    with pytest.raises(UnknownOptionError, match="'peano'"):
        Curve(Mesh(4, 4, 4), curve="peano")
    with pytest.raises(UnknownOptionError, match="'worst'"):
        Curve(Mesh(4, 4, 4), fit="worst")
    with pytest.raises(UnsupportedTopologyError, match="Hypercube"):
        MM(Hypercube(3))
    old = noncontig.MAX_TABLE_BYTES
    try:
        noncontig.MAX_TABLE_BYTES = 1000
        with pytest.raises(MachineTooLargeError, match="4x4x4|4, 4, 4"):
            MM(Torus(4, 4, 4))
    finally:
        noncontig.MAX_TABLE_BYTES = old


def test_neighbour_table_and_pair_sums_by_hand():
    """Small cases worked by hand: the L1 order around the centre of a 3x3 mesh; the L-infinity order
    (shell, then hops, then id) around a corner; pair sums of a square and of a ring's antipodes."""
    assert neighbour_table((3, 3), (False, False), None, "l1").rows[4].tolist() == [4, 1, 3, 5, 7, 0, 2, 6, 8]
    assert neighbour_table((3, 3), (False, False), None, "linf").rows[0].tolist() == [0, 1, 3, 4, 2, 6, 5, 7, 8]
    ps = PairSums((4, 4), (True, False), None)
    assert ps(np.array([[0, 1, 4, 5], [0, 2, 8, 10]])).tolist() == [8.0, 16.0]
    assert PairSums((4,), (True,), (3,))(np.array([[0, 3]])).tolist() == [3.0]
