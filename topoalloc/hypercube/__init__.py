"""Subcube allocators for hypercubes."""

from .base import CubeAllocator
from .buddy import Buddy

__all__ = ["CubeAllocator", "Buddy"]
