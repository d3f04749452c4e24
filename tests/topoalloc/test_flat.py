import pytest

from topoalloc import FlatPool
from topoalloc.testing import allocator_machine, flats
from topologies import Flat, RequestSizeError

TestFlatPoolMachine = allocator_machine(FlatPool, flats(max_size=40)).TestCase


def test_lowest_ids_first_and_fold_halves():
    p = FlatPool(Flat(10))
    a = p.allocate(4)
    p.allocate(3)
    p.release(a)
    assert p.allocate(5).nodes.tolist() == [0, 1, 2, 3, 7]
    assert p.fold(5) == 3 and p.fold(2) == 1 and p.fold(1) is None
    assert p.allocate(3) is None and p.free == 2


def test_request_larger_than_machine():
    with pytest.raises(RequestSizeError, match="11 processors"):
        FlatPool(Flat(10)).allocate(11)
