"""Allocators by name: topoalloc.get / names / register."""

import pytest

import topoalloc
from topoalloc import registry
from topologies import Flat, Hypercube, Mesh


@pytest.fixture
def scratch(monkeypatch):
    monkeypatch.setattr(registry, "_ALLOCATORS", dict(registry._ALLOCATORS))
    monkeypatch.setattr(registry, "_ALIASES", dict(registry._ALIASES))


def test_get_builds_with_parameters_and_normalised_names():
    ff = topoalloc.get("first-fit", Mesh(8, 8), rotate=True)
    assert isinstance(ff, topoalloc.FirstFit) and ff.rotate
    assert isinstance(topoalloc.get("TDB", Mesh(8, 8)), topoalloc.Buddy2D)
    assert isinstance(topoalloc.get("gc", Hypercube(4)), topoalloc.GrayCode)
    assert isinstance(topoalloc.get("DHC", Flat(8)), topoalloc.DHCTree)
    p = topoalloc.get("Paging", Mesh(8, 8), size_index=1, order="snake")
    assert (p.page_side, p.order) == (2, "snake")
    c = topoalloc.get("hilbert_best_fit", Mesh(8, 8))
    assert (c.curve, c.fit) == ("hilbert", "best")
    assert topoalloc.get("SnakeSumOfSquares", Mesh(8, 8)).fit == "sum_of_squares"
    assert topoalloc.get("Random", Mesh(4, 4), seed=5).seed == 5
    assert topoalloc.get("FirstFit", Mesh(8, 8)) is not topoalloc.get("FirstFit", Mesh(8, 8))  # fresh


def test_names_by_kind_include_every_allocator():
    mesh = topoalloc.names("mesh")
    for name in ["Buddy2D", "FrameSliding", "FirstFit", "BestFit", "Random", "Naive", "Paging", "MBS", "Curve",
                 "HilbertFirstFit", "HilbertBestFit", "HilbertSumOfSquares", "MC1x1"]:
        assert name in mesh
    assert topoalloc.names("cube") == ["Buddy", "GrayCode", "FreeList"]
    assert topoalloc.names("flat") == ["DHCTree", "FlatPool"]
    tree = ["FirstFree", "SlurmTree", "KueueTAS", "Isolating", "FluxLow", "FluxHigh", "FluxLocality", "SlurmBlock"]
    assert topoalloc.names("tree") == tree
    assert set(topoalloc.names()) == set(mesh) | {"Buddy", "GrayCode", "FreeList", "DHCTree", "FlatPool"} | set(tree)
    assert all(topoalloc.describe()[n] for n in topoalloc.names())
    with pytest.raises(ValueError, match="'torus'"):
        topoalloc.names("torus")


def test_unknown_names_list_the_known_ones_and_suggest_the_closest():
    with pytest.raises(topoalloc.UnknownAllocatorError) as e:
        topoalloc.get("FirstFti", Mesh(8, 8))
    msg = str(e.value)
    assert "unknown allocator 'FirstFti'" in msg and "did you mean FirstFit?" in msg and "known: Buddy2D" in msg
    assert isinstance(e.value, KeyError)
    with pytest.raises(topoalloc.UnknownAllocatorError, match="did you mean MBS"):
        registry.canonical("mbss")
    with pytest.raises(topoalloc.UnknownAllocatorError) as e:
        registry.canonical("zzzzzz")
    assert "did you mean" not in str(e.value)
    with pytest.raises(TypeError, match="string"):
        registry.canonical(3)


def test_a_users_allocator_registers_with_one_call(scratch):
    class Mine(topoalloc.Naive):
        """Row-major free nodes under another name."""

    topoalloc.register("Mine", Mine, help="mine")
    assert registry.kind_of("mine") == "mesh"  # from the class's topology types
    assert isinstance(topoalloc.get("MINE", Mesh(4, 4)), Mine)
    topoalloc.register("Twice", lambda topo, k=2: FlatPoolTwice(topo, k), kind="flat", aliases=("x2",))
    assert topoalloc.get("x2", Flat(4)).k == 2 and "Twice" in topoalloc.names("flat")
    registry.unregister("twice")
    assert "Twice" not in topoalloc.names() and "x2" not in registry._ALIASES
    with pytest.raises(ValueError, match="give kind="):
        topoalloc.register("Anon", lambda topo: None)
    with pytest.raises(ValueError, match="'ring'"):
        topoalloc.register("Ring", Mine, kind="ring")
    with pytest.raises(TypeError, match="callable"):
        topoalloc.register("Nothing", 42, kind="mesh")


class FlatPoolTwice(topoalloc.FlatPool):
    def __init__(self, topology, k):
        super().__init__(topology)
        self.k = k


def test_the_experiments_use_the_same_registry(scratch):
    from scheduling.experiments import registry as experiments

    topoalloc.register("Mine2", topoalloc.MBS)
    assert experiments.canonical_allocator("mine-2") == "Mine2"
    assert isinstance(experiments.make_allocator("Mine2", Mesh(4, 4)), topoalloc.MBS)
    assert experiments.allocator_names("mesh") == topoalloc.names("mesh")
