"""Flux Fluxion's node-selection policies: ``low``, ``high`` and ``locality``.

Fluxion (``flux-framework/flux-sched``) matches a jobspec against a resource graph (cluster ->
rack -> node -> ...) by a depth-first traversal; a *match policy* scores the vertices and picks,
wherever the jobspec asks for ``k`` resources of a type, the ``k`` best-scored qualified ones.
The policies are named by the factory ``create_match_cb`` in
``resource/policies/dfu_match_policy_factory.cpp`` (``low``, ``high``, ``lonode``, ``hinode``,
``lonodex``, ``hinodex``, ``first``, ``firstnodex``, ``locality``, ``variation``). Modelled here
for node counts on a :class:`~topologies.SwitchTree` (a node's Fluxion id is this tree's node id:
Fluxion reads it from the host name's number, ``get_hostname_suffix`` in
``resource/readers/resource_reader_base.cpp``, and a switch domain's id is its index in its level):

* :class:`FluxLow` -- ``low`` (``multilevel_id_t<fold::less>``);
* :class:`FluxHigh` -- ``high`` (``multilevel_id_t<fold::greater>``);
* :class:`FluxLocality` -- ``locality`` (``greater_interval_first_t``).

``lonode`` / ``hinode`` add the node id as a score factor of the node-local resources (cores,
GPUs); for whole-node requests they select the same nodes as ``low`` / ``high``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from topologies import TreeRequest

from .._blocks import first_group_avoiding
from ..base import Allocation
from .base import TreeAllocator, _nth_ready, _ready_ranks, free_per_domain

__all__ = ["FluxLow", "FluxHigh", "FluxLocality"]


def _nth_ready_in_a_domain(first: np.ndarray, stop: np.ndarray, ready: np.ndarray, n: int) -> float | None:
    """The earliest time at which some domain (``first .. stop - 1``, the domains of a level,
    which partition the nodes in id order) has ``n`` nodes ready by ``ready``; ``None`` if none
    has ``n`` nodes. One sort of ``domain * T + rank`` (``rank``: the ready time's rank among the
    ``T`` distinct ones) puts every domain's ready times in order. O(N log N)."""
    sizes = stop - first
    big = np.flatnonzero(sizes >= n)
    if not len(big):
        return None
    times, rank = _ready_ranks(ready)
    T = len(times)
    by_domain = np.sort(np.repeat(np.arange(len(first)) * T, sizes) + rank, kind="stable")
    return float(times[int((by_domain[first[big] + n - 1] - big * T).min())])


def _runs_highest_first(candidates: np.ndarray) -> np.ndarray:
    """``candidates`` (ascending ids) reordered as Fluxion's ``fold::interval_greater`` sorts
    them: grouped into runs of consecutive ids, the run starting at the highest id first, the ids
    of a run in ascending order (the traversal order, kept by the sort for equal keys)."""
    if len(candidates) < 2:
        return candidates
    breaks = np.flatnonzero(np.diff(candidates) != 1) + 1
    starts = np.concatenate(([0], breaks))
    run_of = np.repeat(np.arange(len(starts)), np.diff(np.concatenate((starts, [len(candidates)]))))
    return candidates[np.argsort(-candidates[starts][run_of], kind="stable")]


class _FluxPolicy(TreeAllocator):
    """The part the three Fluxion policies share: how a request for one domain of a level
    (Fluxion's jobspec ``rack[1] -> node[n]``) is matched.

    In Fluxion a level named by the jobspec constrains the selection (``dom_finish_vtx`` of the
    policy chooses the ``n`` best nodes inside each qualifying domain; a domain qualifies when it
    has ``n`` free nodes) and ``dom_finish_graph`` then chooses the best-scored qualifying domain.
    :meth:`_domain_order` is that domain order and :meth:`_inner` the choice inside a domain.
    ``preferred``, ``switches`` and ``segment`` have no Fluxion counterpart: they keep
    :class:`~topoalloc.tree.TreeAllocator`'s generic treatment, with this policy's domain order
    and count rule.
    """

    native: ClassVar[frozenset[str]] = frozenset({"required"})
    #: ``True`` when the policy takes the lowest ids inside a domain, ``False`` for the highest.
    _inner_low: ClassVar[bool] = True

    def _succession(self, ids: np.ndarray) -> np.ndarray:
        """The free ids ``ids`` (ascending) in the order successive plain counts take them: the
        ``k``-th placement of ``n`` nodes, made while the earlier ones are held, is
        ``sorted(order[k n:(k + 1) n])``."""
        raise NotImplementedError

    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding <topoalloc.Allocator.allocate_avoiding>` for a plain
        count in one pass: the placements the policy makes one after another while the earlier
        ones are held take the free ids in a fixed order, ``n`` at a time (:meth:`_succession`),
        so the first group of ``n`` that touches no avoided node is the grant. Same grant as the
        generic default; O(N) (O(N log N) for ``locality``). Constrained requests: the search of
        :meth:`TreeAllocator.allocate_avoiding <topoalloc.tree.TreeAllocator.allocate_avoiding>`."""
        r = self.validate(request)
        if type(self) not in _POLICIES or (isinstance(r, TreeRequest) and not r.plain):
            return super().allocate_avoiding(r, avoid)
        n = r.count if isinstance(r, TreeRequest) else r
        order = self._succession(np.flatnonzero(self._is_free))
        got = first_group_avoiding(order, n, avoid)
        if got is None:
            return None
        got.sort()
        self._is_free[got] = False
        return self._register(r, got, got, n)

    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in <topoalloc.Allocator.earliest_in>` without a search for a
        plain, ``preferred`` or ``required`` count: a plain or preferred request is placed
        whenever ``n`` nodes are free (the count rule takes any ``n``; ``preferred`` falls back to
        it), so the time is the ``n``-th smallest ready time; a required one whenever a domain of
        its level has ``n`` free, so the earliest such time over the domains. The nodes are
        :meth:`place_in`'s at that time. Same answer as the generic default; O(N log N).
        ``switches`` and ``segment``: the bisection of
        :meth:`TreeAllocator.earliest_in <topoalloc.tree.TreeAllocator.earliest_in>`."""
        r = self.validate(request)
        level = None  # the level of a required count
        if isinstance(r, TreeRequest) and not r.plain and r.preferred is None:
            level = r.required
            if level is None:  # switches or segment
                return super().earliest_in(r, ready, now)
        if type(self) not in _POLICIES:
            return super().earliest_in(r, ready, now)
        n = r.count if isinstance(r, TreeRequest) else r
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        if level is not None:  # required: a domain of the level with n free nodes qualifies
            first, stop = self.topology.domains(level)
            t = _nth_ready_in_a_domain(first, stop, ready, n)
            if t is None:
                return None
        else:
            t = _nth_ready(ready, n, now)
        nodes = self.place_in(r, ready <= t)
        assert nodes is not None  # n nodes (in one domain) are ready by t: the rule places them
        return t, nodes

    def _inner(self, n: int, ids: np.ndarray) -> np.ndarray:
        """The ``n`` nodes a domain contributes, from its free ids ``ids`` (ascending, at least ``n``)."""
        return ids[:n] if self._inner_low else ids[len(ids) - n:]

    def _in_one_domain(self, n: int, free: np.ndarray, depth: int) -> np.ndarray | None:
        first, stop = self.topology.domains(depth)
        counts = free_per_domain(free, first)
        order = self._domain_order(counts, counts >= n)
        if not len(order):
            return None
        i = int(order[0])
        lo, hi = int(first[i]), int(stop[i])
        return self._inner(n, np.flatnonzero(free[lo:hi]) + lo)


class FluxLow(_FluxPolicy):
    """Fluxion's ``low`` match policy: the lowest free node ids first.

    Source: ``flux-framework/flux-sched``, ``resource/policies/dfu_match_low_id_first.hpp``
    (``low_first_t = multilevel_id_t<fold::less>``) and ``dfu_match_multilevel_id_impl.hpp``:
    ``dom_finish_vtx`` scores a vertex ``MATCH_MET + id + 1`` and chooses the ``k`` best children
    with ``fold::less`` (lowest score first); ``dom_finish_graph`` does the same for the
    top-level request. The documented rule (``doc/man5/flux-config-sched-fluxion-resource.rst``):
    "Select resources with low ID first".

    Interpretations:

    * **Per level, then globally.** A jobspec ``node[n]`` names no switch level, so the node
      evaluations of every rack are merged up to the root (``dfu_impl_t::resolve`` merges a
      subtree's evaluations into its parent's unless the vertex constrained them) and the ``n``
      lowest node ids of the whole machine are chosen: for a plain count these are the nodes
      :class:`FirstFree` takes. Fluxion's own test ``t/t3002-resource-prefix.t`` expects this
      (``expected/omit_prefix/006.R.out``: a 4-node job gets node17 of rack0 and node18-20 of
      rack1).
    * **required=L** is the jobspec ``L[1] -> node[n]``: the lowest-id domain of ``L`` with
      ``n`` free nodes, and its ``n`` lowest free ids (a domain's score is its own id; a domain
      with fewer free nodes is not qualified). This differs from FirstFree's best-fitting domain.
    * ``preferred``, ``switches`` and ``segment``: the generic treatment (class
      :class:`~topoalloc.tree.TreeAllocator`), domains and leaf switches tried lowest id first.

    Complexity: O(N + S) vectorised per allocation (one scan of the free mask, one reduction
    per level asked about); :meth:`allocate_avoiding` of a plain count O(N), :meth:`earliest_in`
    of a plain, preferred or required count O(N log N) (no search, see the methods).

    >>> from topologies import SwitchTree, TreeRequest
    >>> lo = FluxLow(SwitchTree.uniform((3, 4), names=("rack", "host")))
    >>> lo.allocate(3).nodes.tolist(), lo.allocate(TreeRequest(2, required="rack")).nodes.tolist()
    ([0, 1, 2], [4, 5])
    """

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        ids = np.flatnonzero(free)
        return ids[:n] if len(ids) >= n else None

    def _succession(self, ids: np.ndarray) -> np.ndarray:
        """Lowest first: each placement takes the ``n`` lowest free ids."""
        return ids

    def _domain_order(self, free_counts: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Candidate domains lowest id first (``fold::less`` on the domains' scores)."""
        return np.flatnonzero(ok)


class FluxHigh(_FluxPolicy):
    """Fluxion's ``high`` match policy: the highest free node ids first.

    Source: ``flux-framework/flux-sched``, ``resource/policies/dfu_match_high_id_first.hpp``
    (``high_first_t = multilevel_id_t<fold::greater>``), with the scoring of
    ``dfu_match_multilevel_id_impl.hpp`` (``dom_finish_vtx``: score ``MATCH_MET + id + 1``;
    ``dom_finish_graph`` / ``dom_finish_vtx``: ``choose_accum_best_k`` with ``fold::greater``).
    The documented rule: "Select resources with high ID first"; the test
    ``t/t3001-resource-basic.t`` states it as "node1 is preferred over node0 if available".

    Interpretations: the mirror image of :class:`FluxLow` -- a plain count takes the ``n``
    highest free ids of the machine; ``required=L`` the highest-id domain of ``L`` with ``n``
    free nodes and its ``n`` highest free ids; ``preferred``, ``switches`` and ``segment`` the
    generic treatment with domains tried highest id first and the highest ids inside.

    Complexity: O(N + S) vectorised per allocation; :meth:`allocate_avoiding` of a plain count
    O(N), :meth:`earliest_in` of a plain, preferred or required count O(N log N).

    >>> from topologies import SwitchTree
    >>> hi = FluxHigh(SwitchTree.uniform((2, 4)))
    >>> hi.allocate(3).nodes.tolist(), hi.allocate(2).nodes.tolist()
    ([5, 6, 7], [3, 4])
    """

    _inner_low = False

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        ids = np.flatnonzero(free)
        return ids[len(ids) - n:] if len(ids) >= n else None

    def _succession(self, ids: np.ndarray) -> np.ndarray:
        """Highest first: each placement takes the ``n`` highest free ids."""
        return ids[::-1]

    def _domain_order(self, free_counts: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Candidate domains highest id first (``fold::greater``)."""
        return np.flatnonzero(ok)[::-1]


class FluxLocality(_FluxPolicy):
    """Fluxion's ``locality`` match policy: whole runs of consecutive free ids, the highest run
    first.

    Source: ``flux-framework/flux-sched``, ``resource/policies/dfu_match_locality.cpp``,
    ``greater_interval_first_t`` ("Locality-aware policy: select resources of each type where
    you have more qualified"), with ``fold::interval_greater`` and ``fold::to_interval`` of
    ``resource/evaluators/fold.hpp``. ``dom_finish_vtx`` scores a vertex ``MATCH_MET + id + 1``
    and, inside a vertex the jobspec names, chooses the best children with the default
    ``fold::greater`` (highest ids). ``dom_finish_graph`` turns the scores of the qualified
    resources of each top-level type into a ``boost::icl::interval_set`` -- consecutive scores
    (ids) join into one interval, a *run* -- and sorts the candidates by the interval holding
    their score with ``interval_greater``, then takes the first ``n``.

    Interpretations:

    * **Which interval is "greater".** ``interval_greater`` compares two runs with
      ``boost::icl``'s interval ``operator>``, which is lexicographic on (lower bound, upper
      bound) -- not on length. Runs are disjoint, so the order is: the run starting at the
      highest id first. A plain count therefore takes whole runs of consecutive free ids from
      the top of the id range down, and the rest from the next run below.
    * **Inside a run.** Candidates of one run compare equal; ``std::sort`` leaves their order to
      the implementation. They arrive in traversal order (ascending ids: ``evals_t::merge``
      appends), which libstdc++'s sort keeps for up to 16 candidates (insertion sort); this
      class keeps it always: the partly used run contributes its lowest ids.
    * **required=L** is the jobspec ``L[1] -> node[n]``: the qualifying domains (``n`` free
      nodes) ordered by the same run rule over domain ids, the first taken, and inside it the
      ``n`` highest free ids (``dom_finish_vtx``'s ``fold::greater``).
    * ``preferred``, ``switches`` and ``segment``: the generic treatment, domains and leaf
      switches in the run order, the count rule inside.

    Complexity: O(N + S) vectorised per allocation (the partial run found by a binary search of
    ``ids - position``, constant along a run); :meth:`allocate_avoiding` of a plain count
    O(N log N) (one stable sort puts the free ids in the order successive placements take them),
    :meth:`earliest_in` of a plain, preferred or required count O(N log N).

    >>> import numpy as np
    >>> from topologies import SwitchTree
    >>> loc = FluxLocality(SwitchTree.uniform((2, 5)))
    >>> free = np.array([1, 1, 1, 0, 0, 1, 1, 0, 1, 0], dtype=bool)  # runs 0-2, 5-6, 8
    >>> loc.place_in(3, free).tolist(), loc.place_in(4, free).tolist()
    ([5, 6, 8], [0, 5, 6, 8])
    """

    _inner_low = False

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        ids = np.flatnonzero(free)
        m = len(ids)
        if m < n:
            return None
        if n == m:
            return ids
        # Taken from the top run down, the n-th id taken is at index m - n of ids: its run is the
        # partly used one, every run above it is taken whole, and the partial run from its
        # lowest id on. ids[i] - i is the same along a run and grows from one run to the next,
        # so the run of index q is where that value equals ids[q] - q.
        q = m - n
        gap = ids - np.arange(m)
        g = ids[q] - q
        start, end = gap.searchsorted((g, g + 1)).tolist()
        above = m - end  # free ids in the runs above the partial one, all taken
        return np.concatenate((ids[start:start + n - above], ids[end:]))

    def _succession(self, ids: np.ndarray) -> np.ndarray:
        """The runs of consecutive free ids, the highest run first, each in ascending order: a
        placement takes the runs above its partial run whole and the partial run's lowest ids,
        which leaves the rest of that run the highest run, taken next from its lowest id on."""
        return _runs_highest_first(ids)

    def _domain_order(self, free_counts: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Candidate domains in ``interval_greater`` order: runs of consecutive domain ids, the
        highest run first, ascending inside a run."""
        return _runs_highest_first(np.flatnonzero(ok))


_POLICIES = (FluxLow, FluxHigh, FluxLocality)  # the classes whose placements _succession describes
