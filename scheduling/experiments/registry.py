"""Allocators and workload distributions by name, for configuration files and the command line.

Allocator classes are imported **lazily**, the first time a name is used, from the modules listed
for them; a name whose class is not (yet) in this installation is *missing*, not an error at import
time: :func:`missing_allocators` lists such names with the reason, and :func:`allocator_class`
raises :class:`AllocatorUnavailableError` naming the modules tried. Names are matched ignoring case,
``-``, ``_`` and spaces (``"first-fit"`` is ``FirstFit``), and a few aliases the papers use are
accepted (``TDB`` for the two-dimensional buddy, ``GC`` for Gray code).

>>> canonical_allocator("first-fit"), canonical_allocator("TDB"), allocator_kind("Buddy")
('FirstFit', 'Buddy2D', 'cube')
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import workloads as _wl

__all__ = [
    "AllocatorEntry",
    "UnknownAllocatorError",
    "AllocatorUnavailableError",
    "UnknownDistributionError",
    "register_allocator",
    "allocator_names",
    "canonical_allocator",
    "allocator_kind",
    "allocator_class",
    "allocator_available",
    "missing_allocators",
    "make_allocator",
    "DISTRIBUTIONS",
    "distribution_names",
    "distribution_params",
    "make_distribution",
    "KINDS",
]

#: Topology kinds, as written in configuration files.
KINDS = ("mesh", "cube", "flat")


class UnknownAllocatorError(KeyError):
    """No allocator is registered under this name; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


class AllocatorUnavailableError(ImportError):
    """The name is known but its class cannot be imported in this installation."""


class UnknownDistributionError(KeyError):
    """No workload distribution has this name; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class AllocatorEntry:
    """A registered allocator: its ``name``, the topology ``kind`` it runs on, where to import it
    from (``modules``, tried in order, each must have attribute ``attr``) or a ready ``factory``,
    and a one-line ``help``."""

    name: str
    kind: str
    modules: tuple[str, ...] = ()
    attr: str = ""
    factory: Callable[..., Any] | None = None
    help: str = ""


def _norm(name: str) -> str:
    return re.sub(r"[-_\s]", "", name).lower()


_ALLOCATORS: dict[str, AllocatorEntry] = {}
_ALIASES: dict[str, str] = {}


def register_allocator(
    name: str,
    kind: str,
    *,
    modules: tuple[str, ...] = (),
    attr: str | None = None,
    factory: Callable[..., Any] | None = None,
    help: str = "",
    aliases: tuple[str, ...] = (),
) -> None:
    """Register an allocator under ``name`` for topologies of ``kind`` (``"mesh"``, ``"cube"`` or
    ``"flat"``). Give either ``factory`` (called as ``factory(topology, **params)``) or
    ``modules`` to import class ``attr`` (default ``name``) from lazily. Re-registering replaces.

    User allocators registered this way are seen by worker processes started with ``fork`` (the
    Linux default); with ``spawn`` or on a Dask cluster, register them in a module the workers
    import.
    """
    if kind not in KINDS:
        raise ValueError(f"allocator kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if factory is None and not modules:
        raise ValueError(f"allocator {name!r}: give a factory or the modules to import it from")
    _ALLOCATORS[_norm(name)] = AllocatorEntry(name, kind, tuple(modules), attr or name, factory, help)
    for alias in aliases:
        _ALIASES[_norm(alias)] = _norm(name)


_MESH = ("topoalloc", "topoalloc.mesh")
register_allocator("Buddy2D", "mesh", modules=(*_MESH, "topoalloc.mesh.buddy2d"), aliases=("TDB", "2DBuddy"),
                   help="two-dimensional buddy, square power-of-two blocks (Li & Cheng; seed 002 §2.1.1)")
register_allocator("FrameSliding", "mesh", modules=(*_MESH, "topoalloc.mesh.frame_sliding"),
                   help="frame sliding (Chuang & Tzeng; seed 002 §2.1.1)")
register_allocator("FirstFit", "mesh", modules=(*_MESH, "topoalloc.mesh.first_fit"),
                   help="Zhu's first fit, perfect submesh recognition (seed 002 §4.3)")
register_allocator("BestFit", "mesh", modules=(*_MESH, "topoalloc.mesh.best_fit"),
                   help="Zhu's best fit, perfect submesh recognition")
_CUBE = ("topoalloc", "topoalloc.hypercube")
register_allocator("Buddy", "cube", modules=(*_CUBE, "topoalloc.hypercube.buddy"),
                   help="hypercube buddy (seed 002 §2.1.2)")
register_allocator("GrayCode", "cube", modules=(*_CUBE, "topoalloc.hypercube.gray_code"), aliases=("GC",),
                   help="Gray-code subcube allocation (Chen & Shin)")
register_allocator("FreeList", "cube", modules=(*_CUBE, "topoalloc.hypercube.free_list"),
                   help="free-list subcube allocation, complete recognition (Kim & Das)")
register_allocator("DHCTree", "flat", modules=("topoalloc", "topoalloc.dhc"), aliases=("DHC",),
                   help="distributed hierarchical control tree (Feitelson & Rudolph; seed 004 §2.6)")
register_allocator("FlatPool", "flat", modules=("topoalloc", "topoalloc.flat"),
                   help="any free processors, no topology")


def allocator_names(kind: str | None = None) -> list[str]:
    """Registered allocator names (of topology ``kind`` if given), in registration order."""
    return [e.name for e in _ALLOCATORS.values() if kind is None or e.kind == kind]


def _entry(name: str) -> AllocatorEntry:
    if not isinstance(name, str):
        raise TypeError(f"an allocator name must be a string, got {name!r}")
    key = _norm(name)
    key = _ALIASES.get(key, key)
    entry = _ALLOCATORS.get(key)
    if entry is None:
        raise UnknownAllocatorError(f"unknown allocator {name!r}; known: {', '.join(allocator_names())}")
    return entry


def canonical_allocator(name: str) -> str:
    """The registered spelling of ``name`` (raises :class:`UnknownAllocatorError`)."""
    return _entry(name).name


def allocator_kind(name: str) -> str:
    """The topology kind ``name`` runs on."""
    return _entry(name).kind


def allocator_class(name: str) -> Callable[..., Any]:
    """The class (or factory) for ``name``, imported on first use.

    Raises :class:`UnknownAllocatorError` for a name nobody registered and
    :class:`AllocatorUnavailableError` when none of its modules provides it.
    """
    entry = _entry(name)
    if entry.factory is not None:
        return entry.factory
    tried = []
    for mod in entry.modules:
        try:
            module = importlib.import_module(mod)
        except ImportError as exc:
            tried.append(f"{mod} ({exc})")
            continue
        obj = getattr(module, entry.attr, None)
        if obj is not None:
            return obj
        tried.append(f"{mod} (no {entry.attr})")
    raise AllocatorUnavailableError(
        f"allocator {entry.name!r} is not available in this installation; tried {'; '.join(tried)}"
    )


def allocator_available(name: str) -> bool:
    """Whether ``name``'s class can be imported."""
    try:
        allocator_class(name)
    except AllocatorUnavailableError:
        return False
    return True


def missing_allocators(kind: str | None = None) -> dict[str, str]:
    """``{name: reason}`` for registered allocators (of ``kind``) that cannot be imported."""
    out = {}
    for name in allocator_names(kind):
        try:
            allocator_class(name)
        except AllocatorUnavailableError as exc:
            out[name] = str(exc)
    return out


def make_allocator(name: str, topology: Any, params: dict[str, Any] | None = None) -> Any:
    """A fresh allocator ``name`` on ``topology`` with keyword ``params``."""
    return allocator_class(name)(topology, **(params or {}))


# -- workload distributions -----------------------------------------------------------------------
#: Distribution name -> (constructor, role). Roles: ``sizes`` (requests), ``service`` (run times),
#: ``speedup``.
DISTRIBUTIONS: dict[str, tuple[Callable[..., Any], str]] = {
    "MeshSides": (_wl.MeshSides, "sizes"),
    "Squares": (_wl.Squares, "sizes"),
    "CubeDims": (_wl.CubeDims, "sizes"),
    "CubeDiscreteNormal": (_wl.CubeDiscreteNormal, "sizes"),
    "UniformCount": (_wl.UniformCount, "sizes"),
    "TruncatedExponentialCount": (_wl.TruncatedExponentialCount, "sizes"),
    "Exponential": (_wl.Exponential, "service"),
    "TruncatedNormal": (_wl.TruncatedNormal, "service"),
    "Uniform": (_wl.Uniform, "service"),
    "TruncatedExponential": (_wl.TruncatedExponential, "service"),
    "Linear": (_wl.LinearSpeedup, "speedup"),
    "MISP": (_wl.MISP, "speedup"),
}


def distribution_names(role: str | None = None) -> list[str]:
    """Distribution names (for ``role`` if given)."""
    return [n for n, (_, r) in DISTRIBUTIONS.items() if role is None or r == role]


def _dist(name: str, role: str | None) -> Callable[..., Any]:
    for n, (ctor, r) in DISTRIBUTIONS.items():
        if n.lower() == str(name).lower() and (role is None or r == role):
            return ctor
    raise UnknownDistributionError(
        f"unknown {role or 'workload'} distribution {name!r}; known: {', '.join(distribution_names(role))}"
    )


def distribution_params(name: str, role: str | None = None) -> list[str]:
    """The keyword parameters distribution ``name`` takes."""
    return [p for p in inspect.signature(_dist(name, role)).parameters if p != "self"]


def make_distribution(name: str, params: dict[str, Any] | None = None, role: str | None = None) -> Any:
    """Construct distribution ``name`` with keyword ``params``; an unknown parameter raises
    :class:`TypeError` naming it and the allowed ones, a bad value the constructor's
    :class:`ValueError`."""
    ctor = _dist(name, role)
    params = dict(params or {})
    allowed = distribution_params(name, role)
    bad = [k for k in params if k not in allowed]
    if bad:
        raise TypeError(f"{name} has no parameter {bad[0]!r}; allowed: {', '.join(allowed) or '(none)'}")
    if "probs" in params and isinstance(params["probs"], list):
        params["probs"] = tuple(params["probs"])
    return ctor(**params)
