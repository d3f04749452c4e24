"""Allocators for 2D meshes.

Contiguous (submesh) allocators (Chang & Mohapatra, seed 002 §2.1.1, §4):

* :class:`Buddy2D` -- Li & Cheng's two-dimensional buddy: aligned power-of-two squares.
* :class:`FrameSliding` -- Chuang & Tzeng: frames at non-overlapping stride positions.
* :class:`FirstFit`, :class:`BestFit` -- Zhu: perfect recognition with the coverage array.

All share :class:`MeshAllocator`: ``(w, h)`` requests, ``Submesh`` placements, a ``(height, width)``
occupancy view and the longer-side fold.

Non-contiguous and locality-seeking allocators (any free nodes; :class:`NoncontiguousAllocator`):

* :class:`Random`, :class:`Naive`, :class:`Paging`, :class:`MBS` -- Lo, Windisch, Liu & Nitzberg
  (IEEE TPDS 1997): random nodes, row-major free nodes, pages, the multiple buddy strategy.
* :class:`Curve` -- Leung et al. (IEEE Cluster 2002): free intervals along a Hilbert or snake
  curve, chosen by first fit, best fit or sum of squares.
* :class:`MC1x1` -- Mache, Lo & Windisch (1997): the centre whose nearest free nodes are closest.

They take the same ``(w, h)`` requests (or a processor count), grant sorted node-id arrays and fold
like a flat machine.
"""

from .base import MeshAllocator
from .best_fit import BestFit, BestFitOracle
from .buddy2d import Buddy2D
from .curves import Curve, curve_order
from .first_fit import FirstFit
from .frame_sliding import FrameSliding
from .mbs import MBS, square_decomposition
from .mc import MC1x1
from .noncontig import Naive, NoncontiguousAllocator, Random
from .paging import Paging, page_order

__all__ = [
    "MeshAllocator",
    "Buddy2D",
    "FrameSliding",
    "FirstFit",
    "BestFit",
    "BestFitOracle",
    "NoncontiguousAllocator",
    "Random",
    "Naive",
    "Paging",
    "MBS",
    "Curve",
    "MC1x1",
    "page_order",
    "curve_order",
    "square_decomposition",
]
