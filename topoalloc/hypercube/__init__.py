"""Subcube allocators for hypercubes."""

from .base import CubeAllocator
from .buddy import Buddy
from .free_list import FreeList
from .gray_code import GrayCode

__all__ = ["CubeAllocator", "Buddy", "GrayCode", "FreeList"]
