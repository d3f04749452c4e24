"""Switch-tree part of :mod:`topoalloc.testing`: tree strategies, constrained requests, oracles.

Re-exported by :mod:`topoalloc.testing` (import from there). The oracles check what
:class:`~topoalloc.tree.TreeAllocator` and its subclasses claim: a placement is refused only when
no placement satisfying the request's constraint exists on the free nodes, and a grant satisfies
its constraint.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from topologies import RequestError, SwitchTree, TreeRequest

__all__ = [
    "switch_trees",
    "tree_requests",
    "bad_tree_requests",
    "tree_constraint_met",
    "tree_any",
    "tree_leaf_counts",
]


@st.composite
def switch_trees(draw: st.DrawFn, max_levels: int = 3, max_nodes: int = 64, balanced: bool | None = None
                 ) -> SwitchTree:
    """Random switch trees with at most ``max_levels`` switch levels below the root and at most
    ``max_nodes`` nodes; unbalanced (leaf switches at different depths, different node counts)
    unless ``balanced``; level names drawn from a few real vocabularies."""
    if balanced is None:
        balanced = draw(st.booleans(), label="balanced")
    if balanced:
        depth = draw(st.integers(1, max_levels), label="levels")
        counts = [draw(st.integers(1, 4), label="fan-out") for _ in range(depth - 1)]
        room = max(1, max_nodes // int(np.prod(counts or [1])))
        counts.append(draw(st.integers(1, min(room, 16)), label="nodes per leaf switch"))
        return SwitchTree.uniform(tuple(counts))
    parent: list[int] = []
    nodes: list[int] = []
    budget = [max_nodes]

    def grow(depth: int, par: int) -> None:
        s = len(parent)
        parent.append(par)
        nodes.append(0)
        leaf = depth >= max_levels or budget[0] <= 2 or draw(st.booleans(), label="leaf switch")
        if leaf and depth > 0:
            k = draw(st.integers(1, max(1, min(8, budget[0]))), label="nodes")
            nodes[s] = k
            budget[0] -= k
            return
        for _ in range(draw(st.integers(1, 4), label="children")):
            if budget[0] <= 0:
                break
            grow(depth + 1, s)
        if not any(parent[c] == s for c in range(s + 1, len(parent))):  # no child fitted: make it a leaf
            nodes[s] = 1
            budget[0] -= 1

    grow(0, -1)
    return SwitchTree(parent, nodes)


def _fits(topology: SwitchTree, r: Any) -> bool:
    try:
        topology.validate_request(r)
        return True
    except RequestError:
        return False


def tree_requests(allocator: Any) -> st.SearchStrategy[Any]:
    """Valid requests on ``allocator``'s tree: plain counts (biased small) and
    :class:`~topologies.TreeRequest` values with each constraint kind."""
    t: SwitchTree = allocator.topology
    n = t.size
    count = st.one_of(st.integers(1, min(n, 4)), st.integers(1, n))
    level = st.sampled_from(t.levels)
    k = st.integers(1, len(t.leaf_switch_ids) + 1)
    constrained = st.one_of(
        st.builds(lambda c, lv: TreeRequest(c, required=lv), count, level),
        st.builds(lambda c, lv: TreeRequest(c, preferred=lv), count, level),
        st.builds(lambda c, s, w: TreeRequest(c, switches=s, wait=w), count, k,
                  st.one_of(st.none(), st.sampled_from([0.0, 30.0]))),
        st.builds(lambda seg, m: TreeRequest(seg * m, segment=seg), st.integers(1, 4), st.integers(1, 4)),
    )
    return st.one_of(count, constrained).filter(lambda r: _fits(t, r))


def bad_tree_requests(topology: SwitchTree) -> st.SearchStrategy[Any]:
    """Requests every tree allocator must refuse with a :class:`~topologies.RequestError`."""
    junk = st.sampled_from(["4", 2.5, None, True, (1, 1)])
    return st.one_of(
        junk,
        st.integers(-5, 0),
        st.just(topology.size + 1),
        st.just(TreeRequest(1, required="no-such-level")),
        st.just(TreeRequest(topology.size + 1)),
    )


def tree_leaf_counts(topology: SwitchTree, mask: np.ndarray) -> np.ndarray:
    """Nodes of ``mask`` under each leaf switch."""
    leaves = topology.leaf_switch_ids
    return np.add.reduceat(mask.astype(np.int64), topology.first[leaves])


def _domain_counts(topology: SwitchTree, mask: np.ndarray, level: str) -> np.ndarray:
    first, _ = topology.domains(level)
    return np.add.reduceat(mask.astype(np.int64), first)


def tree_any(allocator: Any, free: np.ndarray, request: Any) -> bool:
    """Oracle: a placement satisfying ``request``'s constraint exists on the ``free`` nodes, by
    brute force over the domains: a plain or preferred count needs that many free nodes; a
    required level a domain with that many; ``switches=k`` the ``k`` fullest leaf switches to hold
    them; ``segment=S`` enough ``S``-node pieces inside single leaf switches."""
    t: SwitchTree = allocator.topology
    r = allocator.validate(request)
    free = np.asarray(free, dtype=bool).ravel()
    if not isinstance(r, TreeRequest):
        enough: bool = int(free.sum()) >= r
        return enough
    n = r.count
    if r.required is not None:
        return bool((_domain_counts(t, free, r.required) >= n).any())
    if r.switches is not None:
        c = np.sort(tree_leaf_counts(t, free))[::-1]
        return int(c[: r.switches].sum()) >= n
    if r.segment is not None:
        return int((tree_leaf_counts(t, free) // r.segment).sum()) >= n // r.segment
    return int(free.sum()) >= n


def tree_constraint_met(allocator: Any, free: np.ndarray, request: Any, allocation: Any) -> None:
    """Assert that ``allocation`` satisfies ``request``'s constraint; for ``preferred=L``, that it
    lies in one domain of the deepest level at or above ``L`` that had room (``free`` is the free
    mask before the grant)."""
    t: SwitchTree = allocator.topology
    r = allocator.validate(request)
    nodes = np.asarray(allocation.nodes)
    if not isinstance(r, TreeRequest):
        return
    mask = np.zeros(t.size, dtype=bool)
    mask[nodes] = True
    if r.required is not None:
        assert (_domain_counts(t, mask, r.required) == len(nodes)).any(), (
            f"{allocation!r} is not inside one {r.required!r} domain")
    elif r.preferred is not None:
        free = np.asarray(free, dtype=bool).ravel()
        for d in range(t.level_depth(r.preferred), -1, -1):
            if (_domain_counts(t, free, t.levels[d]) >= r.count).any():
                assert (_domain_counts(t, mask, t.levels[d]) == len(nodes)).any(), (
                    f"{allocation!r} is not inside one {t.levels[d]!r} domain, though one had room")
                break
    elif r.switches is not None:
        assert t.leaf_switches_spanned(nodes) <= r.switches, f"{allocation!r} spans more than {r.switches} switches"
    elif r.segment is not None:
        assert (tree_leaf_counts(t, mask) % r.segment == 0).all(), (
            f"{allocation!r}: a leaf switch holds a partial segment of {r.segment}")


tree_any.check_choice = tree_constraint_met  # type: ignore[attr-defined]
