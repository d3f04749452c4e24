"""Switch trees: compute nodes under leaf switches, switches under switches (fat trees, blocks).

The machine Slurm's ``topology/tree`` and ``topology/block`` plugins and Kubernetes' topology-aware
schedulers (Kueue TAS: block -> rack -> host node labels) see. Node ids are ``0 .. N-1`` in leaf
order (depth first, children in the order given), so every switch's nodes are one id range
``first .. stop - 1``: a domain is a slice, its free nodes a prefix-sum difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from ._validate import check_int, check_real, is_int, shown
from .base import count_request, request_int
from .errors import RequestSizeError, RequestTypeError, TopologyError
from .tree_request import TreeRequest

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx

__all__ = ["SwitchTree", "MAX_TREE_NODES"]

#: Largest supported tree (nodes); the per-node arrays stay a few hundred MB at most.
MAX_TREE_NODES = 1 << 24
#: Budget of :meth:`SwitchTree.compact_nodes`'s exact programme on unbalanced trees: (min, +) element
#: steps (about 5e8 a second) and stored choices (4 bytes each); beyond either, the greedy rule.
COMPACT_EXACT_WORK = 2_000_000_000
COMPACT_EXACT_MEMORY = 50_000_000
_VIRTUAL_ROOT = ""


class SwitchTree:
    """A tree of switches with compute nodes under its leaf switches.

    Build one with :meth:`uniform` (a level list: ``SwitchTree.uniform((2, 10, 64), names=("block",
    "rack", "host"))`` is 2 blocks x 10 racks x 64 nodes), :meth:`fat_tree` (a k-ary n-tree),
    :meth:`from_switches` (any, unbalanced, tree by name) or the readers of
    :mod:`topologies.tree_files` (Slurm ``topology.conf`` / ``topology.yaml``, a node-label CSV).

    **Levels.** Depth 0 is the root switch (one top switch, or a *virtual* root joining several top
    switches of a Slurm file: ``virtual_root``), depth ``d`` the switches ``d`` hops below it, and
    the deepest level is the nodes. ``levels`` names every depth, root first
    (``('cluster', 'block', 'rack', 'host')``). A *domain* of a level is the set of nodes under one
    switch of that depth; in an unbalanced tree a leaf switch above that depth is a domain of it
    too (its nodes have no finer grouping), and at the node level every node is its own domain.
    The domains of a level partition the nodes.

    **Distance** is the hop count of the graph: up from ``a`` to the lowest common switch and down
    to ``b`` (twice the lowest common switch's height in a balanced tree; 0 for ``a == b``).

    **Links** are numbered ``0 .. N-1`` for the node links (node ``i`` to its leaf switch), then
    ``N + s - 1`` for the uplink of switch ``s >= 1`` to its parent (switches are numbered depth
    first, the root 0). A switch's uplink capacity is the aggregate of its parallel uplinks
    (a fat tree's), and traffic between two nodes is routed up to their lowest common switch and
    down, split evenly over parallel uplinks -- so a bundle behaves as one link of the summed
    capacity. Default capacities: 1 per node link and, for switches, the number of nodes below
    (full bisection, oversubscription 1).

    Requests are node counts or :class:`~topologies.TreeRequest` values with a constraint.

    >>> t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    >>> t.size, t.levels, t.distance(0, 1), t.distance(0, 4), t.distance(0, 12)
    (24, ('cluster', 'block', 'rack', 'host'), 2, 4, 6)
    >>> t.domains("rack")[0].tolist(), t.leaf_switches_spanned([2, 3, 4, 5])
    ([0, 4, 8, 12, 16, 20], 2)
    >>> t.validate_request(TreeRequest(4, required="rack"))
    TreeRequest(count=4, required='rack', preferred=None, switches=None, wait=None, segment=None)
    """

    __slots__ = ("_size", "levels", "switch_names", "node_names", "parent", "depth", "first", "stop",
                 "children", "is_leaf", "leaf_of", "node_depth", "height", "capacity", "virtual_root",
                 "_level_index", "_domains", "_key", "_leaf_ids", "_uplink_cap", "source", "_uniform")

    #: What a request on this topology is (for error messages).
    request_kind: ClassVar[str] = "a node count or a TreeRequest"

    # -- construction --------------------------------------------------------------------------
    def __init__(self, parent: Sequence[int], nodes_per_switch: Sequence[int], *,
                 switch_names: Sequence[str] | None = None, node_names: Sequence[str] | None = None,
                 levels: Sequence[str] | None = None, uplink_capacity: Sequence[float] | np.ndarray | None = None,
                 virtual_root: bool = False, source: str | None = None) -> None:
        """The tree from switch parents in depth-first order (``parent[0] == -1`` is the root,
        ``parent[s] < s``, the children of a switch listed consecutively after it in depth first
        order) and the number of nodes under each switch (non-zero exactly on the leaf switches).
        Most users call :meth:`uniform`, :meth:`fat_tree` or :meth:`from_switches` instead."""
        parent = [int(p) for p in parent]
        counts = [int(c) for c in nodes_per_switch]
        S = len(parent)
        if S == 0 or parent[0] != -1:
            raise TopologyError("a switch tree needs a root switch first (parent -1)")
        if len(counts) != S:
            raise TopologyError(f"{S} switches but {len(counts)} node counts")
        children: list[list[int]] = [[] for _ in range(S)]
        depth = [0] * S
        for s in range(1, S):
            p = parent[s]
            if not 0 <= p < s:
                raise TopologyError(f"switch {s}'s parent {p} is not an earlier switch (depth-first order)")
            children[p].append(s)
            depth[s] = depth[p] + 1
        for s in range(S):
            if counts[s] < 0:
                raise TopologyError(f"switch {s} has a negative node count {counts[s]}")
            if counts[s] and children[s]:
                raise TopologyError(f"switch {self._name_of(switch_names, s)} has both nodes and switches below it")
            if not counts[s] and not children[s]:
                raise TopologyError(f"switch {self._name_of(switch_names, s)} is empty (no node and no switch below)")
        # node ranges, depth first: a switch's subtree is a consecutive run of switch ids (checked)
        first = [0] * S
        stop = [0] * S
        size = 0

        def walk(s: int) -> None:  # recursion depth = tree depth (small)
            nonlocal size
            first[s] = size
            size += counts[s]
            for c in children[s]:
                walk(c)
            stop[s] = size

        walk(0)
        order = []
        stack = [0]
        while stack:
            s = stack.pop()
            order.append(s)
            stack.extend(reversed(children[s]))
        if order != list(range(S)):
            raise TopologyError("switches must be numbered depth first (each subtree a consecutive run)")
        if size == 0:
            raise TopologyError("a switch tree needs at least one node")
        if size > MAX_TREE_NODES:
            raise TopologyError(f"a switch tree of {size} nodes is larger than the {MAX_TREE_NODES} supported "
                                f"(its per-node arrays alone would need {size * 40 / 2**30:.1f} GiB)")
        self._size = size
        self.parent = _frozen(np.array(parent, dtype=np.int64))
        self.depth = _frozen(np.array(depth, dtype=np.int64))
        self.first = _frozen(np.array(first, dtype=np.int64))
        self.stop = _frozen(np.array(stop, dtype=np.int64))
        self.children = tuple(tuple(c) for c in children)
        self.is_leaf = _frozen(np.array(counts, dtype=np.int64) > 0)
        leaf_ids = np.flatnonzero(self.is_leaf)
        self._leaf_ids = _frozen(leaf_ids)
        self.leaf_of = _frozen(np.repeat(leaf_ids, np.asarray(counts)[leaf_ids]))
        self.node_depth = _frozen(self.depth[self.leaf_of] + 1)
        height = [0] * S
        for s in range(S - 1, -1, -1):  # children come after their parent
            height[s] = 1 + max((height[c] for c in children[s]), default=0)
        self.height = _frozen(np.array(height, dtype=np.int64))
        n_levels = int(self.node_depth.max()) + 1
        if levels is None:
            levels = ("root", *(f"level{d}" for d in range(1, n_levels - 1)), "node")
        levels = tuple(levels)
        if len(levels) != n_levels:
            raise TopologyError(f"the tree has {n_levels} levels (root to nodes) but {len(levels)} names "
                                f"were given: {levels!r}")
        if len(set(levels)) != len(levels) or not all(isinstance(x, str) and x for x in levels):
            raise TopologyError(f"level names must be distinct non-empty strings, got {levels!r}")
        self.levels: tuple[str, ...] = levels
        self._level_index = {name: d for d, name in enumerate(levels)}
        self.switch_names: tuple[str, ...] = tuple(switch_names) if switch_names is not None else tuple(
            f"s{s}" for s in range(S))
        self.node_names: tuple[str, ...] = tuple(node_names) if node_names is not None else tuple(
            f"n{i}" for i in range(size))
        if len(self.switch_names) != S or len(self.node_names) != size:
            raise TopologyError(f"{len(self.switch_names)} switch names for {S} switches, "
                                f"{len(self.node_names)} node names for {size} nodes")
        for kind, names in (("switch", self.switch_names), ("node", self.node_names)):
            if len(set(names)) != len(names):
                seen: set[str] = set()
                dup = next(n for n in names if n in seen or seen.add(n))  # type: ignore[func-returns-value]
                raise TopologyError(f"{kind} name {dup!r} is used twice")
        sizes = self.stop - self.first
        if uplink_capacity is None:
            cap = sizes.astype(float)
        else:
            cap = np.array([float(c) for c in uplink_capacity], dtype=float)
            if len(cap) != S:
                raise TopologyError(f"{len(cap)} uplink capacities for {S} switches")
            if not np.all(np.isfinite(cap[1:])) or np.any(cap[1:] <= 0):
                bad = next(c for c in cap[1:] if not (math.isfinite(c) and c > 0))
                raise TopologyError(f"uplink capacities must be finite numbers > 0, got {bad}")
        cap[0] = np.inf  # the root has no uplink
        self._uplink_cap = _frozen(cap)
        self.capacity = _frozen(np.concatenate([np.ones(size), cap[1:]]))
        self.virtual_root = bool(virtual_root)
        self.source = source
        self._domains: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._uniform: tuple[int, ...] | None | Literal[False] = False  # False: not computed yet
        self._key = (tuple(parent), tuple(counts), self.levels, self.switch_names, self.node_names,
                     tuple(cap[1:].tolist()), self.virtual_root)

    @staticmethod
    def _name_of(names: Sequence[str] | None, s: int) -> str:
        return repr(names[s]) if names is not None and s < len(names) else str(s)

    @classmethod
    def uniform(cls, counts: Sequence[int], names: Sequence[str] | None = None, *, root: str = "cluster",
                oversubscription: float | Sequence[float] = 1.0,
                uplinks: Sequence[int] | None = None) -> SwitchTree:
        """A balanced tree from a level list: ``counts[0]`` switches under the root, ``counts[1]``
        under each of those, ..., ``counts[-1]`` nodes under each leaf switch. ``names`` names the
        levels below the root, the nodes' last (default ``level1 .. node``); ``root`` names the
        root's level. Switch names are ``<level><index>`` (``rack3``), node names ``<level><id>``.

        Uplink capacities: by default every switch's uplinks carry as much as its nodes' links
        (a non-blocking fat tree). ``oversubscription`` (one ratio, or one per switch level from
        the top) divides that: a rack of 64 nodes with ratio 4 has 16 links' worth of uplinks.
        ``uplinks`` gives instead the number of uplinks of a switch per level (each of capacity 1).

        >>> t = SwitchTree.uniform((2, 4), names=("rack", "host"), oversubscription=2)
        >>> t.size, t.switch_names, t.capacity[8:].tolist()
        (8, ('cluster', 'rack0', 'rack1'), [2.0, 2.0])
        """
        counts = tuple(counts)
        if not counts:
            raise TopologyError("a level list needs at least one count (nodes per leaf switch)")
        for i, c in enumerate(counts):
            check_int(c, f"level {i + 1}'s count", low=1, error=TopologyError)
        total = math.prod(counts)
        if total > MAX_TREE_NODES:
            raise TopologyError(f"a switch tree of {total} nodes is larger than the {MAX_TREE_NODES} supported")
        depth = len(counts)
        if names is None:
            names = (*(f"level{d}" for d in range(1, depth)), "node")
        names = tuple(names)
        if len(names) != depth:
            raise TopologyError(f"{depth} levels below the root but {len(names)} names: {names!r}")
        switch_levels = depth - 1  # switch levels below the root
        ratios = cls._per_level(oversubscription, switch_levels, "oversubscription")
        if uplinks is not None:
            uplinks = tuple(uplinks)
            if len(uplinks) != switch_levels:
                raise TopologyError(f"uplinks needs one count per switch level below the root ({switch_levels}), "
                                    f"got {uplinks!r}")
            for u in uplinks:
                check_int(u, "uplinks", low=1, error=TopologyError)
        parent: list[int] = []
        nodes: list[int] = []
        snames: list[str] = []
        caps: list[float] = []
        index = [0] * depth

        def build(level: int, par: int) -> None:
            s = len(parent)
            parent.append(par)
            below = math.prod(counts[level:])
            if level == 0:
                snames.append(root)
                caps.append(math.inf)
            else:
                snames.append(f"{names[level - 1]}{index[level - 1]}")
                index[level - 1] += 1
                caps.append(float(uplinks[level - 1]) if uplinks is not None else below / ratios[level - 1])
            if level == depth - 1:
                nodes.append(counts[-1])
                return
            nodes.append(0)
            for _ in range(counts[level]):
                build(level + 1, s)

        build(0, -1)
        node_names = [f"{names[-1]}{i}" for i in range(total)]
        return cls(parent, nodes, switch_names=snames, node_names=node_names, levels=(root, *names),
                   uplink_capacity=caps)

    @staticmethod
    def _per_level(value: float | Sequence[float], n: int, what: str) -> tuple[float, ...]:
        vals = tuple(value) if isinstance(value, Sequence) and not isinstance(value, str) else (value,) * n
        if len(vals) != n:
            raise TopologyError(f"{what} needs one value per switch level below the root ({n}), got {value!r}")
        return tuple(check_real(v, what, low=0, low_open=True, error=TopologyError) for v in vals)

    @classmethod
    def fat_tree(cls, k: int, n: int, *, oversubscription: float | Sequence[float] = 1.0,
                 names: Sequence[str] | None = None) -> SwitchTree:
        """A k-ary n-tree (Petrini & Vanneschi, "k-ary n-trees: high performance networks for
        massively parallel architectures", IPPS 1997): ``k ** n`` nodes, ``n`` switch levels, each
        switch with ``k`` down-links. Its routing goes up to a lowest common ancestor and down, so
        its distances and link loads are those of a ``k``-ary tree of height ``n`` whose level-``l``
        bundle of uplinks carries ``k ** l`` links (full bisection), divided by
        ``oversubscription``; that aggregated tree is what this returns.

        >>> t = SwitchTree.fat_tree(4, 3); t.size, t.levels, t.distance(0, 63)
        (64, ('root', 'level1', 'level2', 'node'), 6)
        """
        check_int(k, "fat tree arity k", low=2, error=TopologyError)
        check_int(n, "fat tree levels n", low=1, error=TopologyError)
        return cls.uniform((k,) * n, names, root="root", oversubscription=oversubscription)

    @classmethod
    def from_switches(cls, switches: Mapping[str, Sequence[str]], nodes: Mapping[str, Sequence[str]], *,
                      levels: Sequence[str] | None = None, uplink_capacity: Mapping[str, float] | None = None,
                      source: str | None = None) -> SwitchTree:
        """A tree by name: ``switches`` maps a switch to its child switches, ``nodes`` a leaf switch
        to its nodes (each in the order the ids follow). A switch that is no one's child is a top
        switch; several top switches are joined under a virtual root (``virtual_root``; Slurm
        does not run a job across switches with no common parent, and Slurm-modelled allocators
        refuse to). ``levels`` names the depths, root first. ``uplink_capacity`` maps a switch to
        its uplinks' capacity (default: its node count).

        Errors name the switch or node: a switch listed under two parents or in a loop, a child
        switch never defined, a node under two switches, a switch with no node and no switch.

        >>> t = SwitchTree.from_switches({"top": ["s1", "s2"]}, {"s1": ["a", "b"], "s2": ["c"]})
        >>> t.size, t.switch_names, t.node_names, t.distance(0, 2)
        (3, ('top', 's1', 's2'), ('a', 'b', 'c'), 4)
        """
        where = f" in {source}" if source else ""
        defined = list(dict.fromkeys([*switches, *nodes]))
        for name in defined:
            if not isinstance(name, str) or not name:
                raise TopologyError(f"switch names must be non-empty strings, got {shown(name)}{where}")
        owner: dict[str, str] = {}
        for sw, kids in switches.items():
            for kid in kids:
                if kid not in switches and kid not in nodes:
                    raise TopologyError(f"switch {sw!r} lists switch {kid!r}, which is not defined{where}")
                if kid in owner:
                    raise TopologyError(f"switch {kid!r} is under two switches ({owner[kid]!r} and {sw!r}){where}")
                if kid == sw:
                    raise TopologyError(f"switch {sw!r} lists itself{where}")
                owner[kid] = sw
        node_owner: dict[str, str] = {}
        for sw, ns in nodes.items():
            if switches.get(sw):
                raise TopologyError(f"switch {sw!r} has both nodes and switches below it{where}")
            for nd in ns:
                if nd in node_owner:
                    raise TopologyError(f"node {nd!r} is under two switches ({node_owner[nd]!r} and {sw!r}){where}")
                node_owner[nd] = sw
        for name in defined:
            if not switches.get(name) and not nodes.get(name):
                raise TopologyError(f"switch {name!r} is empty (no node and no switch below it){where}")
        tops = [s for s in defined if s not in owner]
        if not tops:
            raise TopologyError(f"the switches form a loop (every switch has a parent){where}")
        parent: list[int] = []
        counts: list[int] = []
        snames: list[str] = []
        nnames: list[str] = []
        caps: list[float] = []
        seen: set[str] = set()
        virtual = len(tops) > 1
        if virtual:
            if _VIRTUAL_ROOT in switches:
                raise TopologyError(f"a switch may not be named {_VIRTUAL_ROOT!r}{where}")
            parent.append(-1)
            counts.append(0)
            snames.append(_VIRTUAL_ROOT)
            caps.append(math.inf)
        stack: list[tuple[str, int]] = [(t, 0 if virtual else -1) for t in reversed(tops)]
        while stack:
            name, par = stack.pop()
            if name in seen:  # unreachable with one owner each; kept as a guard
                raise TopologyError(f"switch {name!r} is reached twice (a loop){where}")
            seen.add(name)
            s = len(parent)
            parent.append(par)
            snames.append(name)
            ns = list(nodes.get(name, ()))
            counts.append(len(ns))
            nnames.extend(ns)
            caps.append(-1.0)  # filled below
            stack.extend((kid, s) for kid in reversed(list(switches.get(name, ()))))
        if len(seen) != len(defined):
            loop = sorted(set(defined) - seen)
            raise TopologyError(f"switches {', '.join(map(repr, loop))} form a loop with no top switch{where}")
        tree_caps = None
        if uplink_capacity is not None:
            for sw in uplink_capacity:
                if sw not in seen:
                    raise TopologyError(f"uplink capacity given for unknown switch {sw!r}{where}")
        tree = cls(parent, counts, switch_names=snames, node_names=nnames, levels=levels,
                   virtual_root=virtual, source=source)
        if uplink_capacity is not None:
            cap = np.array(tree._uplink_cap)
            for s, name in enumerate(snames):
                if name in uplink_capacity:
                    cap[s] = check_real(uplink_capacity[name], f"switch {name!r}'s uplink capacity", low=0,
                                        low_open=True, error=TopologyError)
            tree_caps = cap
            tree = cls(parent, counts, switch_names=snames, node_names=nnames, levels=levels,
                       uplink_capacity=tree_caps, virtual_root=virtual, source=source)
        return tree

    # -- shape -----------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of compute nodes."""
        return self._size

    @property
    def n_switches(self) -> int:
        """Number of switches, the (possibly virtual) root included."""
        return len(self.parent)

    @property
    def leaf_switch_ids(self) -> np.ndarray:
        """Ids of the switches that have nodes, in node order."""
        return self._leaf_ids

    @property
    def n_links(self) -> int:
        """Number of links: one per node, one uplink per non-root switch."""
        return self._size + len(self.parent) - 1

    def level_depth(self, level: str | int) -> int:
        """The depth of ``level`` (a name of :attr:`levels`, or a depth), or :class:`TopologyError`."""
        if is_int(level) and 0 <= int(level) < len(self.levels):
            return int(level)
        d = self._level_index.get(level) if isinstance(level, str) else None
        if d is None:
            raise TopologyError(f"unknown level {shown(level)}; this tree's levels are {', '.join(self.levels)}")
        return d

    def domains(self, level: str | int) -> tuple[np.ndarray, np.ndarray]:
        """``(first, stop)``: the node-id ranges of the domains of ``level``, ascending; they
        partition the nodes. O(switches) once per level, then cached."""
        d = self.level_depth(level)
        got = self._domains.get(d)
        if got is None:
            if d == len(self.levels) - 1:
                ids = np.arange(self._size, dtype=np.int64)
                got = (ids, ids + 1)
            else:
                pick = np.flatnonzero((self.depth == d) | (self.is_leaf & (self.depth < d)))
                pick = pick[np.argsort(self.first[pick], kind="stable")]
                got = (self.first[pick], self.stop[pick])
            got = (_frozen(got[0]), _frozen(got[1]))
            self._domains[d] = got
        return got

    def domain_switches(self, level: str | int) -> np.ndarray:
        """The switch ids of the domains of ``level`` (in the order of :meth:`domains`); a level
        of nodes has none (raises :class:`TopologyError`)."""
        d = self.level_depth(level)
        if d == len(self.levels) - 1:
            raise TopologyError(f"level {self.levels[d]!r} is the nodes, not switches")
        pick = np.flatnonzero((self.depth == d) | (self.is_leaf & (self.depth < d)))
        return pick[np.argsort(self.first[pick], kind="stable")]

    def ancestors(self, switch: int) -> list[int]:
        """``switch`` and the switches above it, up to the root."""
        out = []
        s = int(switch)
        while s >= 0:
            out.append(s)
            s = int(self.parent[s])
        return out

    def _check_node(self, v: Any) -> int:
        if not is_int(v) or not 0 <= int(v) < self._size:
            raise ValueError(f"node id {shown(v)} is outside the {self._size}-node tree")
        return int(v)

    def common_switch(self, nodes: Any) -> int:
        """The lowest switch above every node of ``nodes`` (a non-empty id sequence): the one with
        the smallest range containing the lowest and the highest id. O(depth)."""
        a = np.asarray(nodes, dtype=np.int64).ravel()
        lo, hi = int(a.min()), int(a.max())
        s = int(self.leaf_of[lo])
        while not (self.first[s] <= hi < self.stop[s]):
            s = int(self.parent[s])
        return s

    # -- the topology protocol -----------------------------------------------------------------
    def distance(self, a: int, b: int) -> int:
        """Hops from node ``a`` up to the lowest common switch and down to node ``b``. O(depth)."""
        a, b = self._check_node(a), self._check_node(b)
        if a == b:
            return 0
        s = self.common_switch((a, b))
        return int(self.node_depth[a] + self.node_depth[b] - 2 * self.depth[s])

    def switch_counts(self, nodes: Any) -> np.ndarray:
        """Per switch, how many of ``nodes`` (distinct ids) lie below it. O(S log n)."""
        s = np.sort(np.asarray(nodes, dtype=np.int64).ravel())
        return np.searchsorted(s, self.stop) - np.searchsorted(s, self.first)

    def hop_sum(self, nodes: Any) -> float:
        """Sum of the hop distances over the unordered pairs of ``nodes`` (distinct ids), in closed
        form: every path crosses the two node links of its ends, and switch ``s``'s uplink carries
        the ``c_s (n - c_s)`` pairs with one end below it. O(S log n).

        >>> SwitchTree.uniform((2, 2)).hop_sum([0, 1, 2])
        10.0
        """
        c = self.switch_counts(nodes)
        n = int(c[0])
        return float(n * (n - 1) + np.sum(c[1:] * (n - c[1:])))

    def link_traffic(self, nodes: Any) -> np.ndarray:
        """Per link, the messages of one all-to-all round among ``nodes`` (distinct ids; every node
        sends one message to every other, so ``n (n - 1)`` messages) that cross it, both directions
        counted together: ``2 (n - 1)`` on each member's node link, ``2 c_s (n - c_s)`` on switch
        ``s``'s uplink. Its sum is twice :meth:`hop_sum`. Length :attr:`n_links`. O(N + S log n).

        >>> SwitchTree.uniform((2, 2)).link_traffic([0, 1, 2]).tolist()
        [4.0, 4.0, 4.0, 0.0, 4.0, 4.0]
        """
        a = np.asarray(nodes, dtype=np.int64).ravel()
        c = self.switch_counts(a)
        n = int(c[0])
        out = np.zeros(self.n_links, dtype=np.float64)
        out[a] = 2 * (n - 1)
        out[self._size:] = 2 * c[1:] * (n - c[1:])
        return out

    def links(self) -> np.ndarray:
        """``(n_links, 2)`` link ends in graph-vertex ids (:meth:`to_networkx`): node ``i`` is
        vertex ``i``, switch ``s`` vertex ``N + s``."""
        N = self._size
        node_links = np.stack([np.arange(N), N + self.leaf_of], axis=1)
        up = np.stack([N + np.arange(1, self.n_switches), N + self.parent[1:]], axis=1)
        return np.concatenate([node_links, up]).astype(np.int64)

    def route(self, a: int, b: int) -> np.ndarray:
        """The link ids a message from node ``a`` to node ``b`` crosses, in order: ``a``'s node
        link, the uplinks up to the lowest common switch, the uplinks down, ``b``'s node link."""
        a, b = self._check_node(a), self._check_node(b)
        if a == b:
            return np.zeros(0, dtype=np.int64)
        top = self.common_switch((a, b))
        N = self._size
        up = [a]
        s = int(self.leaf_of[a])
        while s != top:
            up.append(N + s - 1)
            s = int(self.parent[s])
        down = [b]
        s = int(self.leaf_of[b])
        while s != top:
            down.append(N + s - 1)
            s = int(self.parent[s])
        return np.array(up + down[::-1], dtype=np.int64)

    def compact_nodes(self, n: int) -> np.ndarray:
        """A placement of ``n`` nodes of least total pairwise distance (least :meth:`hop_sum`).

        :meth:`hop_sum` is ``n (n - 1)`` plus, over the non-root switches, ``c_s (n - c_s)`` for the
        ``c_s`` chosen nodes below ``s``. On a balanced tree (:meth:`uniform`, :meth:`fat_tree`) the
        greedy rule is exact and O(S log S): inside the smallest subtree that holds ``n`` nodes,
        whole child subtrees, the last one partly, recursively (each depth's pairs as concentrated
        as they can be). On other trees, where that greedy can be far off (the smallest subtree may
        be deep and split while a shallower one holds the nodes under one switch), a dynamic
        programme over the tree: for each switch and each ``k <= min(n, its nodes)`` the least cost
        of ``k`` nodes below it, children merged by (min, +) convolution, so O(sum over merges of
        the two sides' lengths, each at most ``n + 1``) <= O(N n) time and memory for the choices.
        Ties go to the lowest node ids of each leaf switch and, between children, to the earlier.
        A programme that would exceed :data:`COMPACT_EXACT_WORK` steps (a few seconds) or
        :data:`COMPACT_EXACT_MEMORY` stored choices (very large unbalanced trees with large ``n``)
        falls back to the greedy rule, then only a baseline.

        >>> SwitchTree.uniform((3, 4)).compact_nodes(6).tolist()
        [0, 1, 2, 3, 4, 5]
        >>> t = SwitchTree.from_switches({"top": ["big", "a"], "a": ["a1", "a2", "a3", "a4"]},
        ...     {"big": ["p", "q", "r", "s", "t", "u"], "a1": ["w"], "a2": ["x"], "a3": ["y"], "a4": ["z"]})
        >>> t.compact_nodes(3).tolist(), t.hop_sum([0, 1, 2]), t.hop_sum([6, 7, 8])  # not the smallest subtree
        ([0, 1, 2], 6.0, 12.0)
        """
        n = count_request(n, self._size, f"a {self._size}-node tree")
        if self._uniform_counts() is not None or not self._exact_affordable(n):
            return self._compact_greedy(n)
        return self._compact_exact(n)

    def _exact_affordable(self, n: int) -> bool:
        """Whether the dynamic programme of :meth:`compact_nodes` stays within
        :data:`COMPACT_EXACT_WORK` element steps and :data:`COMPACT_EXACT_MEMORY` stored choices."""
        sizes = (self.stop - self.first).tolist()
        work = memory = 0
        for s in range(self.n_switches):
            kids = self.children[s]
            if not kids:
                continue
            acc = min(sizes[kids[0]], n) + 1
            for c in kids[1:]:
                b = min(sizes[c], n) + 1
                length = min(acc + b - 1, n + 1)
                work += min(acc, b) * length
                memory += length
                acc = length
            if work > COMPACT_EXACT_WORK or memory > COMPACT_EXACT_MEMORY:
                return False
        return True

    def _compact_greedy(self, n: int) -> np.ndarray:
        sizes = self.stop - self.first
        fits = np.flatnonzero(sizes >= n)
        s = int(fits[np.lexsort((-self.depth[fits], sizes[fits]))[0]])
        out: list[np.ndarray] = []
        need = n
        while need:
            if self.is_leaf[s]:
                out.append(np.arange(self.first[s], self.first[s] + need, dtype=np.int64))
                break
            kids = sorted(self.children[s], key=lambda c: (-(self.stop[c] - self.first[c]), c))
            for c in kids:
                size = int(self.stop[c] - self.first[c])
                if size <= need:
                    out.append(np.arange(self.first[c], self.stop[c], dtype=np.int64))
                    need -= size
                    if not need:
                        break
                else:
                    s = c
                    break
            else:
                break
        return np.sort(np.concatenate(out))

    def _compact_exact(self, n: int) -> np.ndarray:
        S = self.n_switches
        sizes = (self.stop - self.first).tolist()
        best: list[np.ndarray | None] = [None] * S  # best[s][k]: least cost of k nodes strictly inside s
        splits: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(S)]  # per merge: (child, its share)
        for s in range(S - 1, -1, -1):  # children have larger ids than their parent
            if self.is_leaf[s]:
                best[s] = np.zeros(min(sizes[s], n) + 1, dtype=np.int64)
                continue
            acc: np.ndarray | None = None
            for c in self.children[s]:
                fc = best[c]
                assert fc is not None  # children have larger ids: done before their parent
                best[c] = None
                ks = np.arange(len(fc), dtype=np.int64)
                gc = fc + ks * (n - ks)  # the child's uplink carries c_k (n - c_k) pairs
                if acc is None:
                    acc = gc
                    splits[s].append((c, ks))
                    continue
                acc, share = _min_plus(acc, gc, n + 1)
                splits[s].append((c, share.astype(np.int32)))
            best[s] = acc
        out: list[np.ndarray] = []
        stack = [(0, n)]
        while stack:
            s, k = stack.pop()
            if not k:
                continue
            if self.is_leaf[s]:
                out.append(np.arange(self.first[s], self.first[s] + k, dtype=np.int64))
                continue
            for c, share in reversed(splits[s]):
                kc = int(share[k])
                stack.append((c, kc))
                k -= kc
        return np.sort(np.concatenate(out))

    def leaf_switches_spanned(self, nodes: Any) -> int:
        """How many leaf switches ``nodes`` touch. O(n)."""
        return len(np.unique(self.leaf_of[np.asarray(nodes, dtype=np.int64).ravel()]))

    def common_level(self, nodes: Any) -> str:
        """The name of the level of the lowest common switch of ``nodes`` (the node level for a
        single node). On an unbalanced tree this can be shallower than the deepest level with one
        domain holding them all (a shallow leaf switch is a domain of the deeper levels too)."""
        a = np.asarray(nodes, dtype=np.int64).ravel()
        if len(np.unique(a)) == 1:
            return self.levels[-1]
        return self.levels[int(self.depth[self.common_switch(a)])]

    def to_networkx(self) -> nx.Graph[int]:
        """The tree as a networkx graph: nodes ``0 .. N-1`` (attribute ``kind="node"``), switches
        ``N + s`` (``kind="switch"``), every vertex with its ``name``; each link with its
        ``capacity``."""
        import networkx as nx

        g: nx.Graph[int] = nx.Graph()
        N = self._size
        g.add_nodes_from((i, {"kind": "node", "name": self.node_names[i]}) for i in range(N))
        g.add_nodes_from((N + s, {"kind": "switch", "name": self.switch_names[s]}) for s in range(self.n_switches))
        for (u, v), cap in zip(self.links().tolist(), self.capacity.tolist(), strict=True):
            g.add_edge(u, v, capacity=cap)
        return g

    # -- requests --------------------------------------------------------------------------------
    def validate_request(self, request: Any) -> int | TreeRequest:
        """A node count (returned as an int) or a :class:`TreeRequest` whose levels exist and whose
        count fits (returned as is); otherwise :class:`~topologies.RequestTypeError` /
        :class:`~topologies.RequestSizeError` naming the value. A required level whose every
        domain is smaller than the count is refused here: no placement could ever satisfy it."""
        if isinstance(request, TreeRequest):
            n = request.count
            if n > self._size:
                raise RequestSizeError(f"request for {n} nodes is larger than the {self._size}-node tree")
            level = request.level
            if level is not None:
                try:
                    d = self.level_depth(level)
                except TopologyError as e:
                    raise RequestTypeError(f"{'required' if request.required else 'preferred'}={level!r}: "
                                           f"{e}") from None
                if request.required is not None:
                    first, stop = self.domains(d)
                    biggest = int((stop - first).max())
                    if n > biggest:
                        raise RequestSizeError(f"{n} nodes required in one {level!r} domain, but the largest "
                                               f"has {biggest}")
            if request.switches is not None and request.switches > len(self._leaf_ids):
                pass  # at most N leaf switches: more than the tree has is no constraint
            return request
        return count_request(request, self._size, f"a {self._size}-node tree")

    def request_size(self, request: int | TreeRequest) -> int:
        """Nodes a request occupies: its count."""
        return request.count if isinstance(request, TreeRequest) else int(request)

    def request_for(self, n: int) -> int:
        """A job of ``n`` nodes asks for ``n`` (no constraint)."""
        n = request_int(n, "a node count")
        if n <= 0:
            raise RequestSizeError(f"a job needs at least 1 node, got {n}")
        if n > self._size:
            raise RequestSizeError(f"{n} nodes do not fit the {self._size}-node tree")
        return n

    # -- values ----------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, SwitchTree) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self) -> tuple[Any, ...]:
        caps = self._uplink_cap.tolist()
        return (_rebuild, (self._key[0], self._key[1], self.levels, self.switch_names, self.node_names, caps,
                           self.virtual_root, self.source))

    def __repr__(self) -> str:
        if self.source:
            return f"SwitchTree({self.source!r}: {self._size} nodes, {len(self._leaf_ids)} leaf switches)"
        uniform = self._uniform_counts()
        if uniform is not None:
            return f"SwitchTree.uniform({uniform!r}, names={self.levels[1:]!r})"
        return f"SwitchTree({self._size} nodes, {len(self._leaf_ids)} leaf switches, levels={self.levels!r})"

    def _uniform_counts(self) -> tuple[int, ...] | None:
        """The level list of a balanced tree (every switch of a depth with as many children, every
        leaf switch at the same depth with as many nodes), else ``None``. O(S) once, then cached."""
        got = self._uniform
        if got is False:
            got = self._uniform = self._find_uniform_counts()
        return got

    def _find_uniform_counts(self) -> tuple[int, ...] | None:
        counts = []
        s = 0
        while not self.is_leaf[s]:
            counts.append(len(self.children[s]))
            s = self.children[s][0]
        counts.append(int(self.stop[s] - self.first[s]))
        leaf_depth = len(counts) - 1
        if np.any(self.depth[self._leaf_ids] != leaf_depth):
            return None
        if np.any(self.stop[self._leaf_ids] - self.first[self._leaf_ids] != counts[-1]):
            return None
        fan_out = np.array([len(c) for c in self.children], dtype=np.int64)
        inner = ~self.is_leaf
        if np.any(fan_out[inner] != np.asarray(counts[:-1], dtype=np.int64)[self.depth[inner]]):
            return None
        return tuple(counts)

    @property
    def label(self) -> str:
        """A short label: ``tree:2x10x64`` for a uniform tree, else the source or the size."""
        u = self._uniform_counts()
        if u is not None:
            return "tree:" + "x".join(map(str, u))
        return f"tree:{self.source}" if self.source else f"tree:{self._size}-nodes"


def _min_plus(a: np.ndarray, b: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """``out[t] = min_j a[t - j] + b[j]`` for ``t < limit`` and the ``j`` reaching it (the first one
    on ties, scanning ``j`` upwards). One numpy pass per entry of the shorter array."""
    length = min(len(a) + len(b) - 1, limit)
    out = np.full(length, np.iinfo(np.int64).max, dtype=np.int64)
    share = np.zeros(length, dtype=np.int64)
    if len(b) <= len(a):
        for j in range(min(len(b), length)):
            m = min(len(a), length - j)
            cand = a[:m] + b[j]
            better = cand < out[j:j + m]
            out[j:j + m][better] = cand[better]
            share[j:j + m][better] = j
    else:
        ts = np.arange(length, dtype=np.int64)
        for i in reversed(range(min(len(a), length))):  # the largest share of a first: ties to the least j
            m = min(len(b), length - i)
            cand = b[:m] + a[i]
            better = cand < out[i:i + m]
            out[i:i + m][better] = cand[better]
            share[i:i + m][better] = ts[i:i + m][better] - i
    return out, share


def _rebuild(parent: Sequence[int], counts: Sequence[int], levels: Sequence[str], switch_names: Sequence[str],
             node_names: Sequence[str], caps: Sequence[float], virtual_root: bool, source: str | None) -> SwitchTree:
    return SwitchTree(parent, counts, switch_names=switch_names, node_names=node_names, levels=levels,
                      uplink_capacity=caps, virtual_root=virtual_root, source=source)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a
