"""The saturation load of each configuration: the papers' headline ("RSR-1 carries the 8-cube past
0.8", seed 002 §4.2), found by bisection on the offered load.

A configuration is an experiment's allocator and policy on its topology and workload. A load is
*saturated* when at least half of its replications are (:func:`scheduling.metrics.saturation`: the
backlog grew through the run). Just above the saturation load the backlog grows slowly and a short
run cannot see it, so probes run at least :data:`PROBE_JOBS` completions (the study's ``jobs`` if
longer; a tenth discarded). The bracket starts from the study's own points when they are as long
(the highest stable load below the lowest saturated one), else from 0 and ``high``, and is halved
until it is at most ``tolerance`` wide; each probe runs ``replications`` replications through the
executor, all configurations' probes of one round together, and is stored under the experiment's
name with ``#saturation`` appended (so a second call reuses them and the study's tables never show
them). The result also gives the **capacity**: the mean utilisation of the runs
at the saturated end of the bracket, the largest utilisation the configuration sustains (seed 002:
RSR-0 on the 8-cube "saturates near 0.67 utilization").

Near the saturation load a finite run may judge either way, so the bracket locates where the
detection flips at the study's run length; longer runs sharpen it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .executors import Executor
from .runner import run_points
from .schema import Point, Study
from .store import ResultStore

__all__ = ["SaturationLoad", "saturation_loads", "format_saturation", "PROBE_JOBS"]

#: Fewest completions per saturation probe.
PROBE_JOBS = 10_000


@dataclass(frozen=True)
class SaturationLoad:
    """One configuration's saturation bracket: the highest load found ``stable`` (``0.0`` when
    every probe saturated) and the lowest found ``saturated`` (``None``: none up to ``high``), the
    mean utilisation at each end (``capacity`` at the saturated end), and the ``probes`` run."""

    experiment: str
    topology: str
    allocator: str
    policy: str
    stable: float
    saturated: float | None
    utilization_stable: float
    capacity: float
    probes: int

    @property
    def load(self) -> float:
        """The bracket's midpoint (``inf`` when no load up to the search's top saturated)."""
        return math.inf if self.saturated is None else (self.stable + self.saturated) / 2


def _key(p: Point) -> tuple:
    return (p.experiment, p.allocator, p.policy, p.policy_params)


def _flags(rows: list[dict[str, Any]]) -> tuple[bool, float]:
    """(saturated: at least half the runs, mean utilisation)."""
    sat = sum(1 for r in rows if r.get("saturated") == 1.0)
    util = [r["utilization"] for r in rows if r.get("utilization") is not None and not math.isnan(r["utilization"])]
    return sat * 2 >= len(rows), (sum(util) / len(util) if util else math.nan)


def saturation_loads(study: Study, store: ResultStore, executor: Executor | None = None, *,
                     tolerance: float = 0.02, high: float = 1.0, replications: int = 2, jobs: int | None = None,
                     progress: bool | None = None) -> list[SaturationLoad]:
    """Bisect each configuration of ``study`` (experiments with offered loads) for its saturation
    load to within ``tolerance``, searching up to ``high``, with probes of ``jobs`` completions
    (default: the study's, at least :data:`PROBE_JOBS`); see the module docstring.

    >>> from scheduling.experiments import compare_study, LocalExecutor
    >>> study, _ = compare_study(topologies=["cube:6"], allocators=["Buddy"], loads=[0.5], replications=2,
    ...                          jobs=1500, warmup=100)
    >>> found = saturation_loads(study, ResultStore(), LocalExecutor(1), tolerance=0.1, jobs=1500)
    >>> [(s.policy, s.saturated is not None) for s in found]
    [('RSR-0', True), ('RSR-1', True)]
    """
    if not 0 < tolerance < high:
        raise ValueError(f"tolerance must be in (0, {high}), got {tolerance}")
    if replications < 1:
        raise ValueError(f"replications must be >= 1, got {replications}")
    from .runner import study_rows

    own: dict[tuple, dict[float, list[dict[str, Any]]]] = {}
    templates: dict[tuple, Point] = {}
    by_id = {p.point_id: p for p in study.points()}
    for p in study.points():
        if p.load is not None:
            n = jobs if jobs is not None else max(p.jobs or 0, PROBE_JOBS)
            templates.setdefault(_key(p), dataclasses.replace(p, jobs=n, warmup=p.warmup if n == p.jobs else n // 10))
    for row in study_rows(study, store):
        p = by_id[row["point_id"]]
        if p.load is not None and p.jobs == templates[_key(p)].jobs:  # as long as a probe: as good as one
            own.setdefault(_key(p), {}).setdefault(p.load, []).append(row)
    state: dict[tuple, dict[str, Any]] = {}
    for key, tpl in templates.items():
        lo, hi, u_lo, u_hi = 0.0, None, math.nan, math.nan
        for load, rows in sorted(own.get(key, {}).items()):
            sat, util = _flags(rows)
            if sat and (hi is None or load < hi):
                hi, u_hi = load, util
        for load, rows in sorted(own.get(key, {}).items()):
            sat, util = _flags(rows)
            if not sat and load > lo and (hi is None or load < hi):
                lo, u_lo = load, util
        probe = dataclasses.replace(tpl, experiment=f"{tpl.experiment}#saturation")
        state[key] = {"lo": lo, "hi": hi, "u_lo": u_lo, "u_hi": u_hi, "probe": probe, "probes": 0,
                      "top_checked": hi is not None}
    while True:
        asks: dict[tuple, Point] = {}
        for key, st in state.items():
            if st["hi"] is None and not st["top_checked"]:
                load = high
            elif st["hi"] is not None and st["hi"] - st["lo"] > tolerance:
                load = round((st["lo"] + st["hi"]) / 2, 6)
            else:
                continue
            asks[key] = dataclasses.replace(st["probe"], load=load)
        if not asks:
            break
        plan = [(p, replications) for p in asks.values()]
        run_points(plan, store, executor, desc="saturation", progress=progress)
        probed: dict[str, list[dict[str, Any]]] = {}
        for r in store.rows(point_ids=[p.point_id for p in asks.values()]):
            if r["replication"] < replications:
                probed.setdefault(r["point_id"], []).append(r)
        for key, p in asks.items():
            st = state[key]
            st["probes"] += 1
            sat, util = _flags(probed.get(p.point_id, []))
            if st["hi"] is None:
                st["top_checked"] = True
            if sat:
                st["hi"], st["u_hi"] = p.load, util
            else:
                st["lo"], st["u_lo"] = p.load, util
    return [SaturationLoad(tpl.experiment, tpl.topology.label, tpl.allocator.label, tpl.policy_label,
                           state[key]["lo"], state[key]["hi"], state[key]["u_lo"], state[key]["u_hi"],
                           state[key]["probes"]) for key, tpl in templates.items()]


def format_saturation(found: Sequence[SaturationLoad], *, high: float = 1.0) -> str:
    """A table of saturation brackets: configuration, the load bracket, the utilisation at the
    saturated end (the capacity) and the number of probes."""
    head = ["topology", "allocator", "policy", "saturation load", "capacity (utilisation)", "probes"]
    lines = []
    for s in found:
        if s.saturated is None:  # stable up to the top of the search
            bracket, cap = f"> {max(s.stable, high):g}", ""
        else:
            bracket = f"{s.stable:.3g} - {s.saturated:.3g}"
            cap = f"{s.capacity:.3f}" if math.isfinite(s.capacity) else ""
        lines.append([s.topology, s.allocator, s.policy, bracket, cap, str(s.probes)])
    widths = [max(len(h), *(len(c[i]) for c in lines)) if lines else len(h) for i, h in enumerate(head)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([fmt(head), fmt(["-" * w for w in widths]), *map(fmt, lines)])
