"""Topology constraints attached to jobs by rule: a workload's node counts become requests on a switch tree.

A **rule** is a frozen value that maps a job's node count (and, for a probabilistic rule, a draw of
its own random stream) to a request on a :class:`~topologies.SwitchTree`: a plain count or a
:class:`~topologies.TreeRequest`. :class:`Constrained` applies a rule to any workload -- a
synthetic stream (:class:`~scheduling.workloads.Synthetic`) or a trace replay
(:class:`~scheduling.workloads.SWFTrace`) -- keeping every other field of every job.

=====================  ==============================================================================
rule                   the request a job of ``n`` nodes gets
=====================  ==============================================================================
:class:`SizeThreshold`  ``kind = level`` (default ``required = "rack"``) when ``n >= min_nodes``
:class:`WithProbability`  ``kind = level`` (default ``preferred = "rack"``) with probability ``p``
:class:`LevelBySize`    a level per size class: ``n <= 64``: ``required = "rack"``; ``n <= 640``:
                       ``required = "block"``; larger: no constraint (the defaults)
:class:`Switches`       ``switches = N`` with optional ``wait = T`` (Slurm's ``--switches=N@T``): ``N``
                       given, or derived: the fewest leaf switches that can hold the job
=====================  ==============================================================================

**Common random numbers.** A rule's draws come from the ``constraints`` stream of
:func:`~scheduling.workloads.streams` (its own ``SeedSequence`` child, spawned after the others),
so attaching a rule changes no job's arrival, size or run time, and every allocator and policy
sees the same constrained jobs for the same seed. :class:`WithProbability` draws one uniform per
job, in job order, whatever ``p`` is, so rules with different ``p`` are coupled (a job constrained
at ``p`` is constrained at every larger ``p``).

**Interpretations.** A ``required`` level whose largest domain is smaller than the job (a 100-node
job under ``required = "rack"`` on 64-node racks) would be refused by the tree (no placement could
ever satisfy it): the rule requires the deepest level above it whose largest domain holds the job
(the block), and no constraint when only the whole machine does. A given switch count smaller than
the fewest leaf switches that can hold the job is raised to that number (the job could never run
on fewer). Both keep every request placeable on the empty machine.

Rules are written in experiment files as a ``[constraints]`` table and on the command line as a
short text (:func:`parse_rule`); :func:`rule_from_json` reads the table.

>>> from topologies import SwitchTree
>>> import numpy as np
>>> tree = SwitchTree.uniform((2, 10, 64), names=("block", "rack", "host"))
>>> LevelBySize().requests([8, 100, 700], np.random.default_rng(0), tree)
[TreeRequest(count=8, required='rack', preferred=None, switches=None, wait=None, segment=None), \
TreeRequest(count=100, required='block', preferred=None, switches=None, wait=None, segment=None), 700]
>>> [r.switches for r in Switches(wait=300.0).requests([8, 100], np.random.default_rng(0), tree)]
[1, 2]
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from topologies import SwitchTree, TreeRequest

from .._validate import ParameterError, check_int, check_real
from ..kernel.jobs import Job, JobStream

__all__ = ["SizeThreshold", "WithProbability", "LevelBySize", "Switches", "Constrained", "RULES", "KINDS",
           "rule_from_json", "parse_rule", "RULE_SYNTAX"]

#: The constraint kinds a level rule attaches.
KINDS = ("required", "preferred")

#: The command-line forms of the rules (:func:`parse_rule`).
RULE_SYNTAX = ("threshold:K[:LEVEL[:KIND]]", "probability:P[:LEVEL[:KIND]]", "by-size[:N=LEVEL,...]",
               "switches[:N|auto][@T]")


def _check_level(level: Any, rule: str) -> str:
    if not isinstance(level, str) or not level:
        raise ParameterError(f"{rule}: level must be a level name such as 'rack', got {level!r}")
    return level


def _check_kind(kind: Any, rule: str) -> str:
    if kind not in KINDS:
        raise ParameterError(f"{rule}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return kind


@functools.lru_cache(maxsize=32)
def _largest(tree: SwitchTree) -> tuple[int, ...]:
    """The largest domain's node count at each depth of ``tree``, root first."""
    out = []
    for d in range(len(tree.levels)):
        first, stop = tree.domains(d)
        out.append(int((stop - first).max()))
    return tuple(out)


@functools.lru_cache(maxsize=32)
def _leaf_prefix(tree: SwitchTree) -> np.ndarray:
    """Cumulative node counts of the leaf switches, largest first: the fewest leaf switches that
    can hold ``n`` nodes is ``searchsorted(prefix, n) + 1``."""
    leaves = tree.leaf_switch_ids
    sizes = np.sort(tree.stop[leaves] - tree.first[leaves])[::-1]
    return np.cumsum(sizes)


def _level_request(n: int, level: str, kind: str, tree: SwitchTree) -> int | TreeRequest:
    """``kind = level`` for ``n`` nodes on ``tree``; a required level too small for the job moves
    up to the deepest level that holds it (none at the root: a plain count)."""
    if kind == "preferred":
        tree.level_depth(level)  # an unknown level is refused here, naming the tree's levels
        return TreeRequest(n, preferred=level)
    largest = _largest(tree)
    d = tree.level_depth(level)
    while d > 0 and largest[d] < n:
        d -= 1
    return n if d == 0 else TreeRequest(n, required=tree.levels[d])


def fewest_switches(n: int, tree: SwitchTree) -> int:
    """The fewest leaf switches of ``tree`` that can hold ``n`` nodes.

    >>> fewest_switches(65, SwitchTree.uniform((2, 10, 64)))
    2
    """
    prefix = _leaf_prefix(tree)
    return int(np.searchsorted(prefix, n)) + 1


@dataclass(frozen=True, slots=True)
class SizeThreshold:
    """Jobs of at least ``min_nodes`` nodes get ``kind = level`` (``required = "rack"`` by
    default); smaller jobs none.

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 2, 4), names=("block", "rack", "host"))
    >>> SizeThreshold(4).requests([2, 4], None, t)
    [2, TreeRequest(count=4, required='rack', preferred=None, switches=None, wait=None, segment=None)]
    """

    min_nodes: int
    level: str = "rack"
    kind: str = "required"
    rule: ClassVar[str] = "threshold"

    def __post_init__(self) -> None:
        check_int(self.min_nodes, "threshold: min_nodes", low=1)
        _check_level(self.level, "threshold")
        _check_kind(self.kind, "threshold")

    def requests(self, counts: Sequence[int], rng: Any, tree: SwitchTree) -> list[int | TreeRequest]:
        """The request of each job of ``counts`` nodes (no draw from ``rng``)."""
        return [_level_request(n, self.level, self.kind, tree) if n >= self.min_nodes else n for n in counts]

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "min_nodes": self.min_nodes, "level": self.level, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class WithProbability:
    """Each job gets ``kind = level`` (``preferred = "rack"`` by default) with probability ``p``,
    independently (one uniform draw per job from the ``constraints`` stream).

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 4), names=("rack", "host"))
    >>> [type(r).__name__ for r in WithProbability(1.0).requests([1, 2], np.random.default_rng(0), t)]
    ['TreeRequest', 'TreeRequest']
    """

    p: float
    level: str = "rack"
    kind: str = "preferred"
    rule: ClassVar[str] = "probability"

    def __post_init__(self) -> None:
        check_real(self.p, "probability: p", low=0, high=1)
        _check_level(self.level, "probability")
        _check_kind(self.kind, "probability")

    def requests(self, counts: Sequence[int], rng: np.random.Generator, tree: SwitchTree) -> list[int | TreeRequest]:
        """The request of each job of ``counts`` nodes (one uniform draw from ``rng`` per job)."""
        u = rng.random(len(counts))
        return [_level_request(n, self.level, self.kind, tree) if x < self.p else n
                for n, x in zip(counts, u.tolist(), strict=True)]

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "p": self.p, "level": self.level, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class LevelBySize:
    """A level per size class: ``classes`` are ``(max_nodes, level)`` pairs, ascending; a job
    gets ``kind`` at the level of the first class that holds it, and no constraint when it is larger
    than the last (default: ``<= 64`` nodes ``required = "rack"``, ``<= 640`` ``required =
    "block"``, larger none -- racks of 64 and blocks of 640 nodes, the kueue#4634 tree)."""

    classes: tuple[tuple[int, str], ...] = ((64, "rack"), (640, "block"))
    kind: str = "required"
    rule: ClassVar[str] = "by_size"

    def __post_init__(self) -> None:
        classes = self.classes
        if isinstance(classes, str) or not isinstance(classes, tuple | list) or not classes:
            raise ParameterError(f"by_size: classes must be a non-empty list of [max_nodes, level] pairs, got "
                                 f"{classes!r}")
        fixed = []
        for c in classes:
            if isinstance(c, str) or not isinstance(c, tuple | list) or len(c) != 2:
                raise ParameterError(f"by_size: each class is a [max_nodes, level] pair, got {c!r}")
            fixed.append((check_int(c[0], "by_size: a class's max_nodes", low=1), _check_level(c[1], "by_size")))
        bounds = [b for b, _ in fixed]
        if bounds != sorted(set(bounds)):
            raise ParameterError(f"by_size: the classes' max_nodes must increase, got {bounds}")
        object.__setattr__(self, "classes", tuple(fixed))
        _check_kind(self.kind, "by_size")

    def requests(self, counts: Sequence[int], rng: Any, tree: SwitchTree) -> list[int | TreeRequest]:
        """The request of each job of ``counts`` nodes (no draw from ``rng``)."""
        bounds = [b for b, _ in self.classes]
        out: list[int | TreeRequest] = []
        for n in counts:
            i = int(np.searchsorted(bounds, n))
            out.append(n if i == len(bounds) else _level_request(n, self.classes[i][1], self.kind, tree))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "classes": [list(c) for c in self.classes], "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Switches:
    """``switches = N`` with ``wait = T`` (Slurm's ``--switches=N@T``; ``wait = None``: for ever)
    for every job of at least ``min_nodes`` nodes. ``count = None`` derives ``N`` per job: the
    fewest leaf switches that can hold it (``ceil(n / 64)`` on 64-node racks); a given ``count``
    is raised to that number for a job that needs more (module docstring)."""

    count: int | None = None
    wait: float | None = None
    min_nodes: int = 1
    rule: ClassVar[str] = "switches"

    def __post_init__(self) -> None:
        if self.count is not None:
            check_int(self.count, "switches: count (leaf switches; omit it to derive it per job)", low=1)
        if self.wait is not None:
            check_real(self.wait, "switches: wait (a time, in the workload's unit)", low=0)
        check_int(self.min_nodes, "switches: min_nodes", low=1)

    def requests(self, counts: Sequence[int], rng: Any, tree: SwitchTree) -> list[int | TreeRequest]:
        """The request of each job of ``counts`` nodes (no draw from ``rng``)."""
        prefix = _leaf_prefix(tree)
        need = np.searchsorted(prefix, np.asarray(counts, dtype=np.int64)) + 1
        given = self.count
        return [TreeRequest(n, switches=int(k) if given is None else max(given, int(k)), wait=self.wait)
                if n >= self.min_nodes else n for n, k in zip(counts, need.tolist(), strict=True)]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "switches": "auto" if self.count is None else self.count}
        if self.wait is not None:
            out["wait"] = self.wait
        if self.min_nodes != 1:
            out["min_nodes"] = self.min_nodes
        return out


#: Rule name -> class (the ``rule`` key of a ``[constraints]`` table).
RULES: dict[str, type] = {"threshold": SizeThreshold, "probability": WithProbability, "by_size": LevelBySize,
                          "switches": Switches}
#: The keys each rule's table takes (besides ``rule``), and what each is.
RULE_KEYS: dict[str, dict[str, str]] = {
    "threshold": {"min_nodes": "jobs of at least this many nodes are constrained", "level": "a level name "
                  "(default 'rack')", "kind": "'required' (default) or 'preferred'"},
    "probability": {"p": "the probability a job is constrained", "level": "a level name (default 'rack')",
                    "kind": "'preferred' (default) or 'required'"},
    "by_size": {"classes": "[[max_nodes, level], ...], ascending (default [[64, 'rack'], [640, 'block']]); larger "
                "jobs: none", "kind": "'required' (default) or 'preferred'"},
    "switches": {"switches": "the leaf switch count N, or 'auto' (default): the fewest that can hold the job",
                 "wait": "the time T to wait for them (default: for ever)", "min_nodes": "constrain only jobs of "
                 "at least this many nodes (default 1)"},
}


def rule_from_json(table: Mapping[str, Any]) -> Any:
    """The rule a ``[constraints]`` table (or a rule's ``to_json()``) describes. :class:`KeyError` names
    an unknown rule or key and the allowed ones; :class:`~topologies.errors.ParameterError` a bad
    value.

    >>> rule_from_json({"rule": "switches", "switches": "auto", "wait": 300})
    Switches(count=None, wait=300, min_nodes=1)
    >>> rule_from_json({"rule": "threshold", "min_nodes": 64, "levle": "rack"})
    Traceback (most recent call last):
    ...
    KeyError: "constraints rule 'threshold' has no key 'levle'; allowed: rule, min_nodes, level, kind"
    """
    if not isinstance(table, Mapping):
        raise ParameterError(f"constraints must be a table with a 'rule' key, got {table!r}")
    name = table.get("rule")
    if name not in RULES:
        raise KeyError(f"constraints: rule must be one of {', '.join(RULES)}, got {name!r}")
    allowed = RULE_KEYS[name]
    for k in table:
        if k != "rule" and k not in allowed:
            raise KeyError(f"constraints rule {name!r} has no key {k!r}; allowed: rule, {', '.join(allowed)}")
    params = {k: v for k, v in table.items() if k != "rule"}
    if name == "switches":
        count = params.pop("switches", "auto")
        if count != "auto":
            params["count"] = count
    if name == "by_size" and "classes" in params:
        params["classes"] = tuple(tuple(c) if isinstance(c, list) else c for c in params["classes"]) \
            if isinstance(params["classes"], list) else params["classes"]
    return RULES[name](**params)


def parse_rule(text: str) -> Any:
    """A rule from its command-line form (:data:`RULE_SYNTAX`): ``threshold:64``,
    ``threshold:64:block:preferred``, ``probability:0.5``, ``by-size``, ``by-size:64=rack,640=block``,
    ``switches``, ``switches:2@300``, ``switches:auto@300``. :class:`ValueError` names the forms.

    >>> parse_rule("switches:2@300"), parse_rule("threshold:64")
    (Switches(count=2, wait=300.0, min_nodes=1), SizeThreshold(min_nodes=64, level='rack', kind='required'))
    """
    forms = ", ".join(RULE_SYNTAX)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a constraint rule is written {forms}; got {text!r}")
    name, _, rest = text.strip().partition(":")
    name = name.strip().lower().replace("-", "_")
    if name.startswith("switches@"):  # switches@T: the count derived
        name, rest = "switches", "auto@" + name.partition("@")[2]
    parts = [p.strip() for p in rest.split(":")] if rest else []
    try:
        if name == "threshold" and 1 <= len(parts) <= 3:
            return SizeThreshold(int(parts[0]), *parts[1:])
        if name == "probability" and 1 <= len(parts) <= 3:
            return WithProbability(float(parts[0]), *parts[1:])
        if name == "by_size" and len(parts) <= 1:
            if not parts:
                return LevelBySize()
            classes = []
            for item in parts[0].split(","):
                m = re.fullmatch(r"\s*(\d+)\s*=\s*(\S+)\s*", item)
                if m is None:
                    raise ValueError
                classes.append((int(m.group(1)), m.group(2)))
            return LevelBySize(tuple(classes))
        if name == "switches" and len(parts) <= 1:
            count, _, wait = (parts[0] if parts else "auto").partition("@")
            return Switches(None if count.strip() in ("", "auto") else int(count),
                            float(wait) if wait.strip() else None)
    except (ValueError, TypeError) as exc:
        detail = f" ({exc})" if isinstance(exc, ParameterError) else ""
        raise ValueError(f"bad constraint rule {text!r}{detail}; write {forms}") from None
    raise ValueError(f"bad constraint rule {text!r}; write {forms}")


@dataclass(frozen=True, eq=False)
class Constrained(JobStream):
    """``workload`` with each job's request made by ``rule`` on ``tree`` from its node count
    (``job.size``, else the request's size); every other field of the job is kept. The rule's
    draws come from the ``constraints`` stream of the seed (module docstring), in job order, in
    chunks of ``chunk`` jobs. Endless when ``workload`` is.

    >>> from topologies import SwitchTree
    >>> from scheduling import Job
    >>> tree = SwitchTree.uniform((2, 4, 64), names=("block", "rack", "host"))
    >>> w = Constrained([Job(0, 0.0, 8, 1.0), Job(1, 1.0, 100, 1.0)], LevelBySize(), tree)
    >>> [j.request for j in w.jobs(0)][1]
    TreeRequest(count=100, required='block', preferred=None, switches=None, wait=None, segment=None)
    """

    workload: Any
    rule: Any
    tree: SwitchTree
    chunk: int = 4096

    def __post_init__(self) -> None:
        if not callable(getattr(self.rule, "requests", None)):
            raise ParameterError(f"rule must be a constraint rule (with requests()), got {self.rule!r}")
        if not isinstance(self.tree, SwitchTree):
            raise ParameterError(f"constraint rules make requests on a SwitchTree, not on {self.tree!r}")
        check_int(self.chunk, "chunk", low=1)

    @property
    def endless(self) -> bool:
        """Whether the underlying workload never ends by itself."""
        return bool(getattr(self.workload, "endless", False))

    @property
    def request_kind(self) -> str:
        """What the requests are: the tree's (counts and :class:`~topologies.TreeRequest` values)."""
        return SwitchTree.request_kind

    @property
    def max_request(self) -> Any:
        """The largest node count of the underlying workload, if it says (as a plain count)."""
        return getattr(self.workload, "max_request", None)

    @property
    def report(self) -> Any:
        """The underlying trace's skip report, if it has one."""
        return getattr(self.workload, "report", None)

    def __len__(self) -> int:
        return len(self.workload)  # a stream without a length raises TypeError, as it should

    def jobs(self, seed: int = 0) -> Iterator[Job]:
        """The constrained jobs for ``seed``."""
        from .synthetic import streams

        rng = streams(seed)["constraints"]
        inner = self.workload
        it = iter(inner.jobs(seed) if callable(getattr(inner, "jobs", None)) else inner)
        tree, rule, chunk = self.tree, self.rule, self.chunk
        size_of = tree.request_size
        while True:
            block = list(itertools.islice(it, chunk))
            if not block:
                return
            counts = [j.size if j.size is not None else size_of(j.request) for j in block]
            for j, r in zip(block, rule.requests(counts, rng, tree), strict=True):
                if type(r) is int and r == j.request:
                    yield j
                else:
                    yield Job(j.id, j.arrival, r, j.runtime, j.speedup, j.estimate, j.size, j.attrs, j.comm)

    def __repr__(self) -> str:
        name = getattr(self.workload, "sizes", None)
        inner = f"{type(self.workload).__name__} with sizes {name!r}" if name is not None else \
            f"{type(self.workload).__name__}"
        return f"Constrained({inner}, {self.rule!r}, {self.tree!r})"

