"""Topologies as an experiment names them: ``"mesh:32x32"``, ``"mesh:8x8x8"``, ``"torus:16x16x16"``,
``"cube:8"``, ``"flat:128"``, ``"tree:2x10x64:block,rack,host"``, ``"fattree:4,3"``,
``"tree:topology.conf"`` or a table, parsed into a :class:`TopologySpec` that builds the
:mod:`topologies` object and labels results.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._validate import check_int

__all__ = ["TopologySpec", "TOPOLOGY_FORMS"]


#: The topology forms :meth:`TopologySpec.parse` reads, for messages.
TOPOLOGY_FORMS = ("'mesh:WxH', 'mesh:AxBxC' (any dimension; optionally ':wrap=1,0,1' and ':weights=1,1,2', one "
                  "per dimension), 'torus:AxBxC' (every dimension wraps), 'cube:D', 'flat:P', 'tree:AxBx..xN' "
                  "(counts per level, the nodes per leaf switch last; optionally ':name1,name2,..'), 'fattree:K,N' "
                  "(or 'fattree:KxN') or 'tree:FILE' (a Slurm topology.conf / topology.yaml or a node-label .csv), "
                  "or a table with kind and width/height, dim, size, levels (and names), k and n, or file (a mesh "
                  "or torus table: dims, wrap, weights)")


def _number(text: str) -> int | float:
    """``"2"`` -> 2, ``"2.5"`` -> 2.5 (a weight as written); :class:`ValueError` otherwise."""
    text = text.strip()
    return int(text) if re.fullmatch(r"\d+", text) else float(text)


@functools.lru_cache(maxsize=16)
def _tree_file(path: str, _mtime: int) -> Any:
    """The switch tree a topology file describes (cached by path and modification time)."""
    try:
        from topologies.tree_files import read_tree_file
    except ImportError as exc:
        raise ValueError(f"reading the topology file {path!r} needs topologies.tree_files ({exc})") from None
    return read_tree_file(path)


@dataclass(frozen=True, slots=True)
class TopologySpec:
    """``kind`` (``mesh``, ``cube``, ``flat`` or ``tree``) and its ``shape``: a mesh's sides x first
    (``(width, height)`` in 2D, ``(a, b, c)`` in 3D, any number of dimensions) with its ``wrap``
    flags and link ``weights`` (one per dimension; empty: no wrap, unit weights), ``(dim,)``,
    ``(size,)``, or a tree's counts per level (the nodes per leaf switch last) with
    optional level ``names``; a fat tree (``fat``: ``shape = (k, n)``, a k-ary n-tree); or a tree
    read from a topology ``file``. :meth:`parse` reads ``"mesh:32x32"``, ``"mesh:8x8x8"``,
    ``"torus:16x16x16"`` (a mesh whose every dimension wraps: :class:`~topologies.Torus`),
    ``"mesh:8x8x8:wrap=1,1,0"``, ``"torus:8x8x8:weights=1,1,2"``, ``"cube:8"``,
    ``"flat:128"``, ``"tree:2x10x64"``, ``"tree:2x10x64:block,rack,host"``, ``"fattree:4,3"``
    (``"fattree:4x3"`` is read too; the label is ``fattree:4,3``), ``"tree:topology.conf"`` (a
    path, relative to the current directory; read by
    :func:`topologies.tree_files.read_tree_file`, which picks the reader by the suffix ``.conf``,
    ``.yaml`` or ``.csv``) or a table.

    A tree from a file is named by its path: a stored result is not recomputed when the file
    changes under the same name.

    Interpretations, for meshes and tori: a torus is kind ``mesh`` with every ``wrap`` flag set (as
    :class:`~topologies.Torus` is a :class:`~topologies.Mesh` and the allocator registry files both
    under ``"mesh"``), so everything that treats a mesh's requests (counts for the non-contiguous
    allocators of a replayed trace, shapes for the others) treats a torus alike; the label is
    canonical, so two spellings of one machine are one point: ``torus:`` when every dimension wraps
    (``"mesh:8x8x8:wrap=1,1,1"`` is ``torus:8x8x8``), ``:wrap=`` only when some but not all do, and
    ``:weights=`` only when some weight is not 1 (unit weights are the plain machine). ``"mesh:N"``
    is the ``N x N`` mesh, as before; ``"torus:N"`` is refused (a ring, a square or a cube?).

    >>> TopologySpec.parse("mesh:32x16").label, TopologySpec.parse({"kind": "hypercube", "dim": 8}).size
    ('mesh:32x16', 256)
    >>> t = TopologySpec.parse("tree:2x10x64:block,rack,host"); t.label, t.size, t.build().levels
    ('tree:2x10x64:block,rack,host', 1280, ('cluster', 'block', 'rack', 'host'))
    >>> TopologySpec.parse({"kind": "fattree", "k": 4, "n": 3}).label, TopologySpec.parse("fattree:4x3").size
    ('fattree:4,3', 64)
    >>> t = TopologySpec.parse("torus:16x16x16"); t.kind, t.label, t.size, t.build()
    ('mesh', 'torus:16x16x16', 4096, Torus(16, 16, 16))
    >>> TopologySpec.parse({"kind": "mesh", "dims": [8, 8, 4], "wrap": [True, True, False]}).label
    'mesh:8x8x4:wrap=1,1,0'
    >>> TopologySpec.parse("mesh:8x8x8:weights=1,1,2.5").build()
    Mesh(8, 8, 8, weights=(1, 1, 2.5))
    """

    kind: str
    shape: tuple[int, ...]
    #: A tree's level names below the root (the nodes' last); empty: the default names.
    names: tuple[str, ...] = ()
    #: A tree read from this topology file (``shape`` is empty).
    file: str | None = None
    #: A fat tree: ``shape`` is ``(k, n)``.
    fat: bool = False
    #: A mesh's wrap flags, one per dimension; empty: no dimension wraps.
    wrap: tuple[bool, ...] = ()
    #: A mesh's link weights, one per dimension; empty: every weight 1.
    weights: tuple[int | float, ...] = ()

    @property
    def label(self) -> str:
        if self.kind == "mesh":
            sides = "x".join(map(str, self.shape))
            torus = bool(self.wrap) and all(self.wrap)
            text = f"{'torus' if torus else 'mesh'}:{sides}"
            if self.wrap and not torus:
                text += ":wrap=" + ",".join("1" if f else "0" for f in self.wrap)
            if self.weights:
                text += ":weights=" + ",".join(map(repr, self.weights))
            return text
        if self.kind == "tree":
            if self.file is not None:
                return f"tree:{self.file}"
            if self.fat:
                return f"fattree:{self.shape[0]},{self.shape[1]}"
            names = f":{','.join(self.names)}" if self.names else ""
            return "tree:" + "x".join(map(str, self.shape)) + names
        return f"{self.kind}:{self.shape[0]}"

    @property
    def size(self) -> int:
        if self.kind == "mesh":
            return math.prod(self.shape)
        if self.kind == "cube":
            return 1 << self.shape[0]
        if self.kind == "tree":
            if self.file is not None:
                return int(self.build().size)
            return self.shape[0] ** self.shape[1] if self.fat else math.prod(self.shape)
        return self.shape[0]

    def build(self) -> Any:
        """The :mod:`topologies` object."""
        from topologies import Flat, Hypercube, Mesh, SwitchTree

        if self.kind == "mesh":
            return Mesh(*self.shape, wrap=self.wrap or False, weights=self.weights or None)
        if self.kind == "cube":
            return Hypercube(self.shape[0])
        if self.kind == "tree":
            if self.file is not None:
                path = Path(self.file)
                try:
                    mtime = path.stat().st_mtime_ns
                except OSError as exc:
                    raise ValueError(f"topology file {self.file!r}: {exc.strerror or exc} (a tree by its levels is "
                                     "written tree:AxBx..xN)") from None
                return _tree_file(str(path), mtime)
            if self.fat:
                return SwitchTree.fat_tree(*self.shape)
            return SwitchTree.uniform(self.shape, self.names or None)
        return Flat(self.shape[0])

    @classmethod
    def _tree(cls, kind: str, rest: str, value: Any) -> TopologySpec:
        """``tree:...`` and ``fattree:...`` strings."""
        text = rest.strip()
        if kind == "fattree":
            parts = re.split(r"\s*[,x]\s*", text.lower())
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise ValueError(f"bad topology {value!r}; write 'fattree:K,N' (a k-ary n-tree, or 'fattree:KxN')")
            return cls._checked_tree(cls("tree", (int(parts[0]), int(parts[1])), fat=True), value)
        counts, _, names = text.partition(":")
        if re.fullmatch(r"\d+(\s*x\s*\d+)*", counts.strip().lower()):
            shape = tuple(int(c) for c in counts.lower().split("x"))
            level_names = tuple(n.strip() for n in names.split(",")) if names else ()
            return cls._checked_tree(cls("tree", shape, level_names), value)
        if not text:
            raise ValueError(f"bad topology {value!r}; write {TOPOLOGY_FORMS}")
        return cls._checked_tree(cls("tree", (), file=text), value)

    @classmethod
    def _checked_tree(cls, spec: TopologySpec, value: Any) -> TopologySpec:
        from topologies import TopologyError

        try:
            spec.build()
        except (TopologyError, ValueError) as exc:
            raise ValueError(f"bad topology {value!r}: {exc}") from None
        return spec

    @classmethod
    def parse(cls, value: Any) -> TopologySpec:
        """From ``"mesh:WxH"`` / ``"mesh:N"`` (square) / ``"mesh:AxBxC"`` (any dimension) with optional
        ``":wrap=1,0,1"`` and ``":weights=1,1,2"`` / ``"torus:AxBxC"`` (``":weights=..."`` too) /
        ``"cube:D"`` / ``"hypercube:D"`` /
        ``"flat:P"`` / ``"tree:AxBx..xN[:names]"`` / ``"fattree:K,N"`` / ``"tree:FILE"`` or a table
        ``{kind, width, height}`` / ``{kind = "mesh" or "torus", dims, wrap, weights}`` (``wrap``: one
        flag or one per dimension; ``width`` and ``height`` stand for ``dims`` of a 2D mesh) /
        ``{kind, dim}`` / ``{kind, size}`` / ``{kind = "tree", levels,
        names}`` / ``{kind = "fattree", k, n}`` / ``{kind = "tree", file}``; :class:`ValueError`
        names the accepted forms."""
        forms = TOPOLOGY_FORMS
        if isinstance(value, TopologySpec):
            return value
        if isinstance(value, dict):
            kind = str(value.get("kind", "")).lower()
            kind = "cube" if kind == "hypercube" else kind
            if kind in ("tree", "fattree"):
                return cls._tree_table(kind, value)
            if kind in ("mesh", "torus") and (kind == "torus" or {"dims", "wrap", "weights"} & set(value)):
                return cls._mesh_table(kind, value)
            allowed = {"mesh": ("width", "height"), "cube": ("dim",), "flat": ("size",)}
            if kind not in allowed:
                raise ValueError(f"topology kind {value.get('kind')!r} unknown; choose from mesh, cube, flat, tree, "
                                 "fattree, torus")
            extra = set(value) - {"kind", *allowed[kind]}
            if extra:
                raise ValueError(f"a {kind} topology has no {sorted(extra)[0]!r}; allowed: {', '.join(allowed[kind])}")
            missing = [k for k in allowed[kind] if k not in value]
            if missing:
                raise ValueError(f"a {kind} topology needs {missing[0]!r}")
            shape = tuple(check_int(value[k], f"a {kind} topology's {k}", low=0 if kind == "cube" else 1)
                          for k in allowed[kind])
            return cls._checked(kind, shape, value)
        if not isinstance(value, str) or ":" not in value:
            raise ValueError(f"bad topology {value!r}; write {forms}")
        kind, _, rest = value.strip().partition(":")
        kind = kind.strip().lower()
        kind = "cube" if kind == "hypercube" else kind
        if kind in ("tree", "fattree"):
            return cls._tree(kind, rest, value)
        if kind in ("mesh", "torus"):
            return cls._mesh(kind, rest, value)
        try:
            if kind in ("cube", "flat"):
                shape = (int(rest),)
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"bad topology {value!r}; write {forms}") from None
        return cls._checked(kind, shape, value)

    @classmethod
    def _mesh(cls, kind: str, rest: str, value: Any) -> TopologySpec:
        """``mesh:...`` and ``torus:...`` strings: the sides, then ``:wrap=`` and ``:weights=``
        options (each at most once; ``torus`` takes no ``wrap``)."""
        sides, *options = rest.strip().lower().split(":")
        parts = [p.strip() for p in sides.split("x")]
        if not all(re.fullmatch(r"\d+", p) for p in parts):
            raise ValueError(f"bad topology {value!r}; write {TOPOLOGY_FORMS}")
        shape = tuple(int(p) for p in parts)
        if len(shape) == 1:
            if kind == "torus":  # which torus is meant (a ring, a square, a cube) is not written
                raise ValueError(f"bad topology {value!r}: write a torus's sides, e.g. 'torus:{shape[0]}x{shape[0]}' "
                                 f"or 'torus:{shape[0]}x{shape[0]}x{shape[0]}'")
            shape = shape * 2  # mesh:N: the N x N square, as before
        given: dict[str, str] = {}
        for option in options:
            key, eq, text = (x.strip() for x in option.partition("="))
            if not eq or key not in ("wrap", "weights") or (key == "wrap" and kind == "torus"):
                allowed = "':weights=...'" if kind == "torus" else "':wrap=...' and ':weights=...'"
                raise ValueError(f"bad topology {value!r}: unknown option {option.strip()!r}; a {kind} takes "
                                 f"{allowed} (one value per dimension, comma-separated)")
            if key in given:
                raise ValueError(f"bad topology {value!r}: {key} is given twice")
            given[key] = text
        wrap: Any = True if kind == "torus" else False
        if "wrap" in given:
            flags = [f.strip() for f in given["wrap"].split(",")]
            if not all(f in ("0", "1") for f in flags):
                raise ValueError(f"bad topology {value!r}: wrap must be flags 0 or 1, one per dimension, e.g. "
                                 f"':wrap=1,1,0', got {given['wrap']!r}")
            wrap = [f == "1" for f in flags]
        weights: Any = None
        if "weights" in given:
            try:
                weights = [_number(w) for w in given["weights"].split(",")]
            except ValueError:
                raise ValueError(f"bad topology {value!r}: weights must be numbers > 0, one per dimension, e.g. "
                                 f"':weights=1,1,2', got {given['weights']!r}") from None
        return cls._checked_mesh(shape, wrap, weights, value)

    @classmethod
    def _mesh_table(cls, kind: str, value: dict) -> TopologySpec:
        """``{kind = "mesh", dims = [8, 8, 8], wrap = [true, true, false], weights = [1, 1, 2]}`` or
        ``{kind = "torus", dims = [...], weights = [...]}`` (``width`` and ``height`` for ``dims`` of
        a 2D one)."""
        allowed = ("dims", "width", "height", "weights") + (("wrap",) if kind == "mesh" else ())
        extra = set(value) - {"kind", *allowed}
        if extra:
            raise ValueError(f"a {kind} topology has no {sorted(extra)[0]!r}; allowed: {', '.join(allowed)}")
        if "dims" in value:
            if "width" in value or "height" in value:
                raise ValueError(f"a {kind} topology takes either dims or width and height, not both")
            dims = value["dims"]
            if not isinstance(dims, list | tuple) or not dims:
                raise ValueError(f"a {kind} topology's dims must be a list of sides (x first), got {dims!r}")
            shape = tuple(check_int(d, f"a {kind} topology's side (of dims {list(dims)!r})", low=1) for d in dims)
        else:
            missing = [k for k in ("width", "height") if k not in value]
            if missing:
                raise ValueError(f"a {kind} topology needs 'dims' (or 'width' and 'height')")
            shape = tuple(check_int(value[k], f"a {kind} topology's {k}", low=1) for k in ("width", "height"))
        wrap = value.get("wrap", kind == "torus")
        if isinstance(wrap, list):
            wrap = tuple(wrap)
        weights = value.get("weights")
        if isinstance(weights, list):
            weights = tuple(weights)
        return cls._checked_mesh(shape, wrap, weights, value)

    @classmethod
    def _checked_mesh(cls, shape: tuple[int, ...], wrap: Any, weights: Any, value: Any) -> TopologySpec:
        """The canonical spec of ``Mesh(*shape, wrap=wrap, weights=weights)`` (the machine builds,
        or :class:`ValueError` naming ``value`` and what is wrong): no wrap flags when none is
        set, no weights when every one is 1."""
        from topologies import Mesh, TopologyError

        if any(s < 1 for s in shape):
            raise ValueError(f"bad topology {value!r}: sizes must be >= 1")
        try:
            machine = Mesh(*shape, wrap=wrap, weights=weights)
        except TopologyError as exc:
            raise ValueError(f"bad topology {value!r}: {exc}") from None
        flags = machine.wrap if any(machine.wrap) else ()
        unit = machine.weights is None or all(w == 1 for w in machine.weights)
        return cls("mesh", tuple(machine.dims), wrap=flags, weights=() if unit else tuple(machine.weights or ()))

    @classmethod
    def _tree_table(cls, kind: str, value: dict) -> TopologySpec:
        """``{kind = "tree", levels = [2, 10, 64], names = [...]}``, ``{kind = "tree", file = ...}``
        or ``{kind = "fattree", k = 4, n = 3}``."""
        allowed = ("k", "n") if kind == "fattree" else ("levels", "names", "file")
        extra = set(value) - {"kind", *allowed}
        if extra:
            raise ValueError(f"a {kind} topology has no {sorted(extra)[0]!r}; allowed: {', '.join(allowed)}")
        if kind == "fattree":
            missing = [k for k in allowed if k not in value]
            if missing:
                raise ValueError(f"a fattree topology needs {missing[0]!r}")
            k = check_int(value["k"], "a fattree topology's k", low=2)
            n = check_int(value["n"], "a fattree topology's n", low=1)
            return cls._checked_tree(cls("tree", (k, n), fat=True), value)
        if "file" in value:
            if "levels" in value or "names" in value:
                raise ValueError("a tree topology takes either a file or levels (and names), not both")
            if not isinstance(value["file"], str) or not value["file"].strip():
                raise ValueError(f"a tree topology's file must be a path, got {value['file']!r}")
            return cls._checked_tree(cls("tree", (), file=value["file"].strip()), value)
        levels = value.get("levels")
        if not isinstance(levels, list) or not levels:
            raise ValueError(f"a tree topology needs 'levels' (counts per level, the nodes per leaf switch last) or "
                             f"'file', got {levels!r}")
        shape = tuple(check_int(c, "a tree topology's level count", low=1) for c in levels)
        names = value.get("names", [])
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise ValueError(f"a tree topology's names must be a list of level names, got {names!r}")
        return cls._checked_tree(cls("tree", shape, tuple(names)), value)

    @classmethod
    def _checked(cls, kind: str, shape: tuple[int, ...], value: Any) -> TopologySpec:
        low = 0 if kind == "cube" else 1
        if any(s < low for s in shape):
            raise ValueError(f"bad topology {value!r}: sizes must be >= {low}")
        if kind == "cube" and shape[0] > 24:
            raise ValueError(f"bad topology {value!r}: a hypercube has at most 24 dimensions")
        return cls(kind, shape)
