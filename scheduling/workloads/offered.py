"""Offered load on the requested and on the granted processors.

Seed 002 §4.1 sets the arrival rate from the load as ``λ = system size / (mean job size × mean
service time) × load`` (:func:`~scheduling.workloads.arrival_rate`). The *mean job size* is the
requested size's mean for every allocator whose grant equals the request. An allocator that rounds
a request up grants more: the two-dimensional buddy grants the power-of-two square at or above the
longer side (``(3, 2)`` gets ``4 x 4``), so with squares of side uniform on 1..32 the mean granted
square is 585.2 processors where the mean request is 357.5 (1.64x), and with seed 002's rectangles
(sides uniform on 1..32) 819.2 where the mean request is 272.25 (3.01x). A rate computed from the
requested mean then offers the buddy 1.64x (or 3.01x) the nominal load in occupied processors.

**Reading of seed 002.** The paper does not say which mean it used for the 2D buddy. §4.1 states
that "the system load is approximately equal to the system utilization before a system gets
saturated" for all its simulations, and §2.1.1 that a 2D-buddy job is given its rounded-up square;
utilisation counts the processors a job occupies, so the sentence holds for the 2D buddy only if its
rate comes from the mean *granted* square. We therefore read the paper's Fig. 1(a) loads as loads on
the granted processors (``load_basis = "granted"`` in ``examples/seed002_fig1_mesh_rsr.toml``). For
comparing allocators on one job stream (``topoalloc compare``) the rate comes from the requested
sizes, identical for every allocator, and tables show the load each allocator is offered on its
granted processors (``offered granted``): what the rounding costs it.

>>> from scheduling.workloads import Squares
>>> from topoalloc import Buddy2D
>>> from topologies import Mesh
>>> round(mean_granted_size(Squares(32), Buddy2D(Mesh(32, 32)).request_size), 2)
585.16
>>> round(granted_ratio(Squares(32), Buddy2D(Mesh(32, 32)).request_size), 4)
1.6368
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["request_distribution", "mean_granted_size", "granted_ratio", "allocator_granted_mean", "LOAD_BASES"]

#: What a workload's ``load`` refers to: the requested processors (seed 002's formula with the
#: mean request) or the processors the allocator grants (the formula with the mean grant).
LOAD_BASES = ("requested", "granted")

_MONTE_CARLO = 1 << 17
_CACHE: dict[tuple[str, str, str], float] = {}


def request_distribution(sizes: Any) -> tuple[list[Any], np.ndarray] | None:
    """Every request ``sizes`` can make and its probability, for the library's size distributions
    (``None`` for others)."""
    from .distributions import (
        CountsOn,
        CubeDims,
        HeroMix,
        MeshSides,
        Squares,
        TruncatedExponentialCount,
        UniformCount,
    )

    reqs: list[Any]
    if isinstance(sizes, MeshSides):
        reqs = [(w, h) for w in range(1, sizes.max_w + 1) for h in range(1, sizes.max_h + 1)]
        return reqs, np.full(len(reqs), 1.0 / len(reqs))
    if isinstance(sizes, Squares):
        reqs = [(s, s) for s in range(1, sizes.max_side + 1)]
        return reqs, np.full(len(reqs), 1.0 / len(reqs))
    if isinstance(sizes, CubeDims):
        return list(range(sizes.max_dim + 1)), sizes._p()
    if isinstance(sizes, UniformCount):
        reqs = list(range(sizes.low, sizes.high + 1))
        return reqs, np.full(len(reqs), 1.0 / len(reqs))
    if isinstance(sizes, TruncatedExponentialCount):
        n, p = sizes._p()
        return n.tolist(), p
    if isinstance(sizes, HeroMix):
        n, p = sizes.pmf()
        return n.tolist(), p
    if isinstance(sizes, CountsOn):
        inner = request_distribution(sizes.counts)
        if inner is None:
            return None
        rf = sizes.topology.request_for
        return [rf(n) for n in inner[0]], inner[1]
    return None


def mean_granted_size(sizes: Any, request_size: Callable[[Any], int]) -> float:
    """The mean of ``request_size(request)`` (an allocator's
    :meth:`~topoalloc.Allocator.request_size`: the processors it grants) over the requests of
    ``sizes``: exact for the library's size distributions, else a Monte Carlo estimate from
    131,072 requests drawn with a fixed seed (the same number on every call)."""
    dist = request_distribution(sizes)
    if dist is not None:
        reqs, p = dist
        return float(np.dot(p, np.array([request_size(r) for r in reqs], dtype=float)))
    rng = np.random.default_rng(0x0FFE7ED)
    reqs = sizes.sample(rng, _MONTE_CARLO)
    return float(np.mean([request_size(r) for r in reqs]))


def granted_ratio(sizes: Any, request_size: Callable[[Any], int]) -> float:
    """Mean granted over mean requested processors (1 when an allocator grants exactly the request)."""
    return mean_granted_size(sizes, request_size) / float(sizes.mean_size)


def allocator_granted_mean(sizes: Any, allocator: Any) -> float:
    """:func:`mean_granted_size` for an allocator instance: the mean request when the allocator
    grants what the topology counts for a request (it does not override ``request_size``),
    otherwise computed once per size distribution, allocator class and topology (cached)."""
    from topoalloc import Allocator

    if type(allocator).request_size is Allocator.request_size:
        return float(sizes.mean_size)
    key = (repr(sizes), type(allocator).__qualname__, repr(allocator.topology))
    if key not in _CACHE:
        _CACHE[key] = mean_granted_size(sizes, allocator.request_size)
    return _CACHE[key]
