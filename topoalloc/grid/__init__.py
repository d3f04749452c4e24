"""Allocators for meshes and tori of any dimension (:class:`~topologies.Mesh`, :class:`~topologies.Torus`).

Contiguous (box) allocators, perfect recognition, boxes may wrap round a ring, optional axis
permutation (``permute=True``, Fugaku's shapes):

* :class:`FirstFit`, :class:`BestFit` -- Zhu's first fit and best fit (JPDC 16, 1992) in d dimensions.
* :class:`Partitions` -- predefined partitions in the manner of Blue Gene and Slurm's
  ``topology/torus3d``: placement grids given by shape, anchor and spacing.

Non-contiguous (any free nodes), in d dimensions and wrap-aware:

* :class:`Random`; :class:`MBS` (2^d-ary buddy blocks: octets in 3D, as the SST scheduler had);
  :class:`Curve` (Hilbert and snake orders in d dimensions: first, best, sum-of-squares fit and the
  sorted free list); :class:`MC1x1`; :class:`MM`, the centre-based algorithm of Bender et al.
  (Algorithmica 50(2), 2008).
* :class:`SizeClass` -- Fugaku's rule: non-contiguous below a size, a box above.

They share :class:`GridAllocator`: shape requests (``(a, b, c)``; off 2D a shorter shape is padded with
1s), :class:`~topologies.Box` placements, an occupancy view of ``topology.shape`` and the
longest-side fold. On a plain 2D mesh the allocators of :mod:`topoalloc.mesh` keep their 2D fast
paths; :func:`topoalloc.get` picks by topology.
"""

from .base import BoxAllocator, BoxBits, GridAllocator
from .boxes import BestFit, BestFitOracle, FirstFit
from .curves import Curve, grid_curve_order, hilbert_order, snake_order
from .mbs import MBS, cube_decomposition
from .mc import MC1x1
from .mm import MM
from .noncontig import GridNoncontiguousAllocator, Random
from .partitions import Partitions, Placement
from .size_class import FUGAKU_THRESHOLD, SizeClass

__all__ = [
    "GridAllocator",
    "BoxAllocator",
    "BoxBits",
    "FirstFit",
    "BestFit",
    "BestFitOracle",
    "Partitions",
    "Placement",
    "GridNoncontiguousAllocator",
    "Random",
    "MBS",
    "cube_decomposition",
    "Curve",
    "grid_curve_order",
    "hilbert_order",
    "snake_order",
    "MC1x1",
    "MM",
    "SizeClass",
    "FUGAKU_THRESHOLD",
]
