"""Submesh allocators for 2D meshes (Chang & Mohapatra, seed 002 §2.1.1, §4).

* :class:`Buddy2D` -- Li & Cheng's two-dimensional buddy: aligned power-of-two squares.
* :class:`FrameSliding` -- Chuang & Tzeng: frames at non-overlapping stride positions.
* :class:`FirstFit`, :class:`BestFit` -- Zhu: perfect recognition with the coverage array.

All share :class:`MeshAllocator`: ``(w, h)`` requests, ``Submesh`` placements, a ``(height, width)``
occupancy view and the longer-side fold.
"""

from .base import MeshAllocator
from .best_fit import BestFit, BestFitOracle
from .buddy2d import Buddy2D
from .first_fit import FirstFit
from .frame_sliding import FrameSliding

__all__ = ["MeshAllocator", "Buddy2D", "FrameSliding", "FirstFit", "BestFit", "BestFitOracle"]
