"""MM's vectorised search (row prefixes of the neighbour table, pair sums from histograms, the
one-node closed form) makes the placements of the rule itself: checked against a direct reference
under churn, and against placement digests recorded from an earlier implementation."""

import hashlib

import numpy as np
import pytest

from topoalloc.grid.mc import MC1x1
from topoalloc.grid.mm import MM
from topologies import Mesh, Torus


def _coords(topo):
    return np.array([topo.coords(v) for v in range(topo.size)])


def _distances(topo):
    """``(P, P)`` machine distances (weighted hops, the shorter way round a ring), by coordinates."""
    coords = _coords(topo)
    dims, ring = np.array(topo.dims), np.array(topo.ring)
    w = np.array(topo.weights if topo.weights else (1,) * topo.ndim, dtype=float)
    d = np.abs(coords[:, None, :] - coords[None, :, :])
    d = np.where(ring, np.minimum(d, dims - d), d)
    return d @ w


def _reference(coords, dist, free, n):
    """MM directly from its statement: candidates are the grid points of the free nodes'
    coordinates; each takes its ``n`` nearest free nodes by (distance, id); the first candidate (by
    id) of least pairwise sum wins."""
    ids = np.flatnonzero(free)
    ok = np.ones(len(coords), dtype=bool)
    for j in range(coords.shape[1]):
        ok &= np.isin(coords[:, j], coords[ids, j])
    cands = np.flatnonzero(ok)
    rows = dist[np.ix_(cands, ids)]
    order = np.argsort(rows, axis=1, kind="stable")[:, :n]  # ids ascending, so ties go to the lowest id
    sel = ids[order]
    costs = dist[sel[:, :, None], sel[:, None, :]].sum(axis=(1, 2)) / 2
    return np.sort(sel[int(np.argmin(costs))])


def _churn(alloc, seed, steps, hi, check=None):
    """Allocate random counts while at least half the machine is free, else release a random grant;
    the sha256 of the granted node ids in order (first 16 hex digits)."""
    rng = np.random.default_rng(seed)
    live, digest = [], hashlib.sha256()
    for _ in range(steps):
        if alloc.free > alloc.size // 2 or not live:
            n = int(rng.integers(1, hi + 1))
            expected = None if check is None or n > alloc.free else check(~alloc.busy, n)
            a = alloc.allocate(n)
            if a is not None:
                if expected is not None:
                    assert a.nodes.tolist() == expected.tolist(), f"n={n}"
                live.append(a)
                digest.update(a.nodes.astype(np.int64).tobytes())
        else:
            j = int(rng.integers(len(live)))
            live[j], live[-1] = live[-1], live[j]
            alloc.release(live.pop())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("topo", [Torus(8, 8, 8), Mesh(6, 5, 4), Mesh(6, 5, 4, wrap=(True, False, True)),
                                  Torus(6, 4, 5, weights=(1, 2, 3)), Mesh(9, 7)],
                         ids=["torus8", "mesh654", "mixed-wrap", "weighted", "mesh2d"])
def test_mm_under_churn_equals_the_rule_stated_directly(topo):
    """Every grant of a churn (counts 1 to 24 at about half occupancy, so short prefix rows, second
    passes and candidate subsets all occur) equals the direct reference."""
    coords, dist = _coords(topo), _distances(topo)
    _churn(MM(topo), 3, 120 if topo.size > 300 else 300, 24, lambda free, n: _reference(coords, dist, free, n))


# Digests of 1,500 churn steps (counts 1 to 32, seed 5), recorded from MM and MC1x1 as of commit
# ca0b98f (before the one-node closed form): any change of placement, tie rule or candidate set shows.
GOLDEN = {
    "torus8": (lambda: MM(Torus(8, 8, 8)), "038322b13e22c61e"),
    "mesh654": (lambda: MM(Mesh(6, 5, 4)), "041d33aaa0bec2fa"),
    "weighted": (lambda: MM(Torus(6, 4, 5, weights=(1, 2, 3))), "57fa807f5895cfd3"),
    "mesh2d": (lambda: MM(Mesh(9, 7)), "fc499c56b344227a"),
    "mixed-wrap": (lambda: MM(Mesh(6, 5, 4, wrap=(True, False, True))), "235ec57240be3472"),
    "mc1x1-torus8": (lambda: MC1x1(Torus(8, 8, 8)), "a122f3213238fad8"),
}


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_placements_are_those_recorded_from_the_earlier_implementation(case):
    """Same grants, in the same order, as the earlier implementation (digests above)."""
    make, digest = GOLDEN[case]
    assert _churn(make(), 5, 1500, 32) == digest
