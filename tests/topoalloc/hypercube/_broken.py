"""The check the cube allocators' place_in_bits tests share: a deliberately broken subclass is told
apart from the default path (``topoalloc.testing.place_in_bits_differs``) on some drawn case."""

import pytest
from hypothesis import find, settings
from hypothesis.errors import NoSuchExample

from topoalloc.testing import place_in_bits_differs


def assert_caught(cases, broken):
    """Some ``(allocator, request, free bits)`` of the strategy ``cases``, given ``broken``'s
    method on the same state, answers otherwise than the default."""

    def fails(case):
        alloc, k, free = case
        alloc.__class__ = broken  # the same state, the broken method
        return place_in_bits_differs(alloc, k, free, broken.place_in_bits) is not None

    try:
        find(cases, fails, settings=settings(max_examples=2000, database=None))
    except NoSuchExample:  # pragma: no cover - the failure this test exists to report
        pytest.fail(f"{broken.__name__} was not caught")
