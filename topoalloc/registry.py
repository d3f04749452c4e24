"""Allocators by name: ``get("FirstFit", Mesh(32, 32), rotate=True)``.

One registry for the library, the experiments and the command line (it mirrors
:mod:`scheduling.policies`' ``get`` / ``names`` / ``register``). Every allocator of this package is
registered with the topology *kind* it runs on (``"mesh"``, ``"cube"``, ``"flat"`` or ``"tree"``) and a
one-line description. Kind ``"mesh"`` is every :class:`~topologies.Mesh`: any dimension, wrapped or
not (a :class:`~topologies.Torus`); a name whose algorithm has a 2D form and a d-dimensional one
(``FirstFit``, ``BestFit``) builds the 2D allocator of :mod:`topoalloc.mesh` on a plain 2D mesh and the
one of :mod:`topoalloc.grid` on any other (:func:`by_topology`), and an allocator that needs a plain
2D mesh (``Buddy2D``, ``Paging``, ...) refuses the others when built, as ``Buddy2D`` refuses a mesh
that is not a power-of-two square; a user's own allocator is one :func:`register` call away. Names are matched
ignoring case, ``-``, ``_`` and spaces (``"first-fit"`` is ``FirstFit``), and a few aliases the
papers use are accepted (``TDB`` for the two-dimensional buddy, ``GC`` for Gray code, ``DHC``).
An unknown name raises :class:`~topoalloc.errors.UnknownAllocatorError` (a :class:`KeyError`) that
lists the known names and suggests the closest.

>>> from topologies import Mesh
>>> get("first-fit", Mesh(8, 8), rotate=True)
FirstFit(Mesh(width=8, height=8), rotate=True)
>>> canonical("TDB"), kind_of("GC"), "MBS" in names("mesh")
('Buddy2D', 'cube', True)
>>> from topologies import Torus
>>> get("first-fit", Torus(8, 8, 8), permute=True)
FirstFit(Torus(8, 8, 8), permute=True)
>>> get("FirstFti", Mesh(8, 8))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
topoalloc.errors.UnknownAllocatorError: unknown allocator 'FirstFti' (did you mean FirstFit?); known: ...
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from topologies import Flat, Hypercube, Mesh, SwitchTree

from .base import Allocator
from .dhc import DHCTree
from .errors import AllocatorParameterError, UnknownAllocatorError
from .flat import FlatPool
from .grid import MBS as GridMBS
from .grid import MM, Partitions, SizeClass
from .grid import BestFit as GridBestFit
from .grid import Curve as GridCurve
from .grid import FirstFit as GridFirstFit
from .grid import MC1x1 as GridMC1x1
from .grid import Random as GridRandom
from .hypercube import Buddy, FreeList, GrayCode
from .mesh import MBS, BestFit, Buddy2D, Curve, FirstFit, FrameSliding, MC1x1, Naive, Paging, Random
from .mesh.base import is_plain_2d
from .tree import FirstFree, FluxHigh, FluxLocality, FluxLow, Isolating, KueueTAS, SlurmBlock, SlurmTree

__all__ = [
    "KINDS",
    "AllocatorEntry",
    "register",
    "unregister",
    "get",
    "names",
    "describe",
    "entry",
    "canonical",
    "kind_of",
    "factory",
    "by_topology",
]

#: Topology kinds, as written in configuration files and on the command line.
KINDS = ("mesh", "cube", "flat", "tree")
_KIND_OF_TOPOLOGY = {Mesh: "mesh", Hypercube: "cube", Flat: "flat", SwitchTree: "tree"}


@dataclass(frozen=True, slots=True)
class AllocatorEntry:
    """A registered allocator: its ``name``, the topology ``kind`` it runs on, the ``factory``
    (a class or any callable ``factory(topology, **params)``) and a one-line ``help``."""

    name: str
    kind: str
    factory: Callable[..., Allocator]
    help: str = ""


_ALLOCATORS: dict[str, AllocatorEntry] = {}
_ALIASES: dict[str, str] = {}


def _norm(name: str) -> str:
    return re.sub(r"[-_\s]", "", name).lower()


def _infer_kind(factory: Callable[..., Any]) -> str | None:
    cls = factory.func if isinstance(factory, functools.partial) else factory
    for t in getattr(cls, "topology_types", ()) or ():
        for base in getattr(t, "__mro__", ()):
            if base in _KIND_OF_TOPOLOGY:
                return _KIND_OF_TOPOLOGY[base]
    return None


def register(
    name: str,
    factory: Callable[..., Allocator],
    *,
    kind: str | None = None,
    help: str = "",
    aliases: tuple[str, ...] = (),
) -> None:
    """Register ``factory`` (an :class:`~topoalloc.Allocator` subclass or any callable
    ``factory(topology, **params)`` returning one) under ``name``.

    ``kind`` is the topology kind it runs on (``"mesh"``, ``"cube"``, ``"flat"`` or ``"tree"``); for an
    allocator class it defaults to the kind of its ``topology_types``. Re-registering a name
    replaces it. Allocators registered this way are seen by worker processes started with ``fork``
    (the Linux default); with ``spawn`` or on a Dask cluster, register them in a module the workers
    import.

    >>> from topoalloc.mesh import Naive
    >>> register("MyNaive", Naive, help="row-major free nodes, under my name")
    >>> kind_of("my-naive")
    'mesh'
    >>> unregister("MyNaive")
    """
    if not isinstance(name, str) or not _norm(name):
        raise ValueError(f"an allocator name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(f"allocator {name!r}: the factory must be a class or a callable, got {factory!r}")
    if kind is None:
        kind = _infer_kind(factory)
        if kind is None:
            raise ValueError(f"allocator {name!r}: give kind= (one of {', '.join(KINDS)}); it cannot be inferred "
                             f"from {factory!r}")
    if kind not in KINDS:
        raise ValueError(f"allocator kind must be one of {', '.join(KINDS)}, got {kind!r}")
    key = _norm(name)
    _ALIASES.pop(key, None)
    _ALLOCATORS[key] = AllocatorEntry(name, kind, factory, help)
    for alias in aliases:
        _ALIASES[_norm(alias)] = key


def unregister(name: str) -> None:
    """Remove ``name`` (and the aliases pointing to it) from the registry."""
    key = _norm(entry(name).name)
    del _ALLOCATORS[key]
    for alias in [a for a, k in _ALIASES.items() if k == key]:
        del _ALIASES[alias]


def names(kind: str | None = None) -> list[str]:
    """Registered allocator names (of topology ``kind`` if given), in registration order."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"allocator kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return [e.name for e in _ALLOCATORS.values() if kind is None or e.kind == kind]


def describe(kind: str | None = None) -> dict[str, str]:
    """Name -> one-line description (of topology ``kind`` if given)."""
    return {e.name: e.help for e in _ALLOCATORS.values() if kind is None or e.kind == kind}


def entry(name: str) -> AllocatorEntry:
    """The :class:`AllocatorEntry` registered under ``name`` (or an alias)."""
    if not isinstance(name, str):
        raise TypeError(f"an allocator name must be a string, got {name!r}")
    key = _norm(name)
    found = _ALLOCATORS.get(_ALIASES.get(key, key))
    if found is None:
        spelled = {k: e.name for k, e in _ALLOCATORS.items()}
        spelled.update({a: _ALLOCATORS[k].name for a, k in _ALIASES.items() if k in _ALLOCATORS})
        close = difflib.get_close_matches(key, list(spelled), n=1, cutoff=0.6)
        hint = f" (did you mean {spelled[close[0]]}?)" if close else ""
        raise UnknownAllocatorError(f"unknown allocator {name!r}{hint}; known: {', '.join(names())}")
    return found


def canonical(name: str) -> str:
    """The registered spelling of ``name`` (raises :class:`~topoalloc.errors.UnknownAllocatorError`)."""
    return entry(name).name


def kind_of(name: str) -> str:
    """The topology kind allocator ``name`` runs on."""
    return entry(name).kind


def factory(name: str) -> Callable[..., Allocator]:
    """The class (or factory) registered under ``name``."""
    return entry(name).factory


def get(name: str, topology: Any, **params: Any) -> Allocator:
    """A fresh allocator ``name`` on ``topology``, built with keyword ``params``
    (``get("Paging", Mesh(32, 32), size_index=1)``)."""
    return entry(name).factory(topology, **params)


def by_topology(plain: Callable[..., Allocator], general: Callable[..., Allocator]) -> Callable[..., Allocator]:
    """A factory that builds ``plain`` (an allocator of :mod:`topoalloc.mesh`, with its 2D fast paths) on a
    plain 2D mesh (two dimensions, no ring: :func:`~topoalloc.mesh.base.is_plain_2d`) and ``general``
    (its d-dimensional form in :mod:`topoalloc.grid`) on any other :class:`~topologies.Mesh` or
    :class:`~topologies.Torus`; any other topology goes to ``plain``, which refuses it. It takes
    ``general``'s parameters (its signature is ``general``'s), and ``permute`` reaches the 2D
    allocator as its ``rotate`` (the 2D name of an axis permutation). O(1) per call.

    >>> make = by_topology(FirstFit, GridFirstFit)
    >>> make(Mesh(8, 8), permute=True), make(Mesh(4, 4, 4))
    (FirstFit(Mesh(width=8, height=8), rotate=True), FirstFit(Mesh(4, 4, 4)))
    """
    plain_params = inspect.signature(plain).parameters

    def make(topology: Any, **params: Any) -> Allocator:
        if isinstance(topology, Mesh) and not is_plain_2d(topology):
            return general(topology, **params)
        if "permute" in params and "permute" not in plain_params:
            permute = params.pop("permute")
            if not isinstance(permute, bool):
                raise AllocatorParameterError(f"{getattr(plain, '__name__', plain)} permute must be true or "
                                              f"false, got {permute!r}")
            if permute and params.get("rotate", None) is False:
                raise AllocatorParameterError(f"permute={permute} and rotate=False disagree (rotate is the 2D "
                                              f"name of permute)")
            rotate = params.get("rotate")
            params["rotate"] = rotate if (rotate is not None and not permute) else permute
        elif params.get("rotate", False) is None:
            params.pop("rotate")
        return plain(topology, **params)

    make.__signature__ = inspect.signature(general)  # type: ignore[attr-defined]
    make.__name__ = make.__qualname__ = getattr(general, "__name__", "make")
    make.__doc__ = (f"{make.__name__} on any mesh: {getattr(plain, '__module__', '')}.{make.__name__} on a plain 2D "
                    f"mesh, {getattr(general, '__module__', '')}.{make.__name__} on any other mesh or torus.")
    make.topology_types = (Mesh,)  # type: ignore[attr-defined]
    make.plain, make.general = plain, general  # type: ignore[attr-defined]
    return make


# -- the library's allocators -----------------------------------------------------------------------
_LO = "Lo, Windisch, Liu & Nitzberg 1997"
_CPLANT = "Leung et al. 2002"
for _name, _factory, _help, _aliases in [
    ("Buddy2D", Buddy2D, "two-dimensional buddy, square power-of-two blocks (Li & Cheng; seed 002 §2.1.1)",
     ("TDB", "2DBuddy")),
    ("FrameSliding", FrameSliding, "frame sliding (Chuang & Tzeng; seed 002 §2.1.1)", ()),
    ("FirstFit", by_topology(FirstFit, GridFirstFit), "Zhu's first fit, perfect submesh recognition (seed 002 §4.3); "
     "boxes in d dimensions, wrapping on a torus; rotate / permute the request's axes", ()),
    ("BestFit", by_topology(BestFit, GridBestFit), "Zhu's best fit, perfect submesh recognition; boxes in d "
     "dimensions, wrapping on a torus; rotate / permute the request's axes", ()),
    ("Random", by_topology(Random, GridRandom), f"non-contiguous: free nodes uniformly at random ({_LO})", ()),
    ("Naive", Naive, f"non-contiguous: the first free nodes in row-major order ({_LO})", ()),
    ("Paging", Paging, f"non-contiguous: whole 2^i x 2^i pages in a page order, size_index, order ({_LO})", ()),
    ("MBS", by_topology(MBS, GridMBS), f"non-contiguous: multiple buddy strategy, base-4 digits as buddy squares "
     f"({_LO}); 2^d-ary buddy blocks in d dimensions (octets in 3D)",
     ("MultipleBuddy",)),
    ("Curve", by_topology(Curve, GridCurve), f"non-contiguous: free intervals along a curve, curve = hilbert|snake, "
     f"fit = first|best|sum_of_squares ({_CPLANT})", ()),
]:
    register(_name, _factory, kind="mesh", help=_help, aliases=_aliases)
for _curve in ("Hilbert", "Snake"):
    for _fit, _label in (("first", "FirstFit"), ("best", "BestFit"), ("sum_of_squares", "SumOfSquares")):
        register(f"{_curve}{_label}", functools.partial(by_topology(Curve, GridCurve), curve=_curve.lower(), fit=_fit),
                 kind="mesh",
                 help=f"non-contiguous: Curve(curve={_curve.lower()!r}, fit={_fit!r}) ({_CPLANT})")
register("MC1x1", by_topology(MC1x1, GridMC1x1), kind="mesh", help="non-contiguous: the centre whose nearest free "
         "nodes (L-infinity shells) are closest (Mache, Lo & Windisch 1997)")
register("Partitions", Partitions, kind="mesh", help="predefined partitions (Blue Gene, Slurm topology/torus3d): "
         "placement grids of shape, anchor, spacing; placements, permute, tile")
for _curve in ("Hilbert", "Snake"):
    register(f"{_curve}FreeList", functools.partial(GridCurve, curve=_curve.lower(), fit="free_list"), kind="mesh",
             help=f"non-contiguous: the first n free nodes along the {_curve.lower()} curve ({_CPLANT}), any dimension")
register("MM", MM, kind="mesh", help="non-contiguous: the centre whose k nearest free nodes (L1) have the least "
         "average pairwise distance (Bender et al., Algorithmica 2008), any dimension")
register("SizeClass", SizeClass, kind="mesh", help="Fugaku's size classes: non-contiguous below a size, a box "
         "above; threshold, small, large")
register("Buddy", Buddy, kind="cube", help="hypercube buddy (seed 002 §2.1.2)")
register("GrayCode", GrayCode, kind="cube", help="Gray-code subcube allocation (Chen & Shin)", aliases=("GC",))
register("FreeList", FreeList, kind="cube", help="free-list subcube allocation, complete recognition (Kim & Das)")
register("DHCTree", DHCTree, kind="flat", help="distributed hierarchical control tree (Feitelson & Rudolph; "
         "seed 004 §2.6)", aliases=("DHC",))
register("FlatPool", FlatPool, kind="flat", help="any free processors, no topology")
register("FirstFree", FirstFree, kind="tree", help="the first n free nodes, wherever they lie (the topology-unaware "
         "baseline; ExaDigiT RAPS's rule)")
register("SlurmTree", SlurmTree, kind="tree", help="Slurm topology/tree: the top switch that holds the job, then "
         "leaf switches by best fit (tightest, then nearest); switches=N refused beyond N leaf switches",
         aliases=("TopologyTree",))
register("KueueTAS", KueueTAS, kind="tree", help="Kubernetes Kueue's topology-aware scheduling (KEP 2724): "
         "required / preferred levels, profile = BestFit | LeastFreeCapacity | Mixed", aliases=("Kueue", "TAS"))
register("Isolating", Isolating, kind="tree", help="interference-free (Pollard et al., SC18): one leaf switch, or "
         "whole free leaf switches whose uplinks up to the job's top switch are its own; strict=False lends idle "
         "nodes to one-leaf jobs")
register("FluxLow", FluxLow, kind="tree", help="Flux Fluxion's low match policy: lowest free node ids; a required "
         "level's lowest-id domain")
register("FluxHigh", FluxHigh, kind="tree", help="Flux Fluxion's high match policy: highest free node ids; a required "
         "level's highest-id domain")
register("FluxLocality", FluxLocality, kind="tree", help="Flux Fluxion's locality policy: runs of consecutive free "
         "ids, highest run first")
register("SlurmBlock", SlurmBlock, kind="tree", help="Slurm topology/block: the smallest aggregated block level that "
         "holds the job, best-fit block and base blocks, segments; block_sizes (base blocks), base_size (nodes)",
         aliases=("Block", "TopologyBlock"))
del _name, _factory, _help, _aliases, _curve, _fit, _label
