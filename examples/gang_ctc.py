"""Wang, Papaefthymiou & Squillante (seed 004) through ``topoalloc run``: the CTC SP2 log's own EASY-LL
schedule against DHC gang scheduling, Fig. 3's per-class table and the normalised response times of
Figs. 4-9.

    python examples/gang_ctc.py --limit 1000          # a quick look: the month's first 1000 jobs
    python examples/gang_ctc.py --workers 2           # the month (7,083 jobs): 38 runs, many minutes
    python examples/gang_ctc.py --tables summary --plot gang_ctc.png --workers 2

Runs ``seed004_fig3_gang_ctc.toml`` through the experiments machinery: August 1996 of the CTC SP2
log (the ``Trace`` workload model, found by name in ``$TOPOALLOC_TRACES``, default
``../shared/traces``; §5: jobs of up to 320 processors with nonzero CPU time) at its recorded
arrival rate on 320 processors (a DHC forest 256 + 64, §2.6). The paper's EASY-LL is the
production schedule (§5, §6: "the corresponding curves in Figs. 4-7 represent the last column in
the table of Fig. 3"), replayed here by the ``Recorded`` policy (each job starts at its arrival
plus its logged wait); EASY simulated on a flat pool is an extra line. Vanilla, push-down
(weight-oriented assignment, independent trees), migration from the root and from the leaves run
on a ``DHCTree`` with uniform quanta, context-switch costs 1 s and 16 s, cycles T = 300, 1000,
3000 s; two more experiments try other readings (push-down with first fit or with the trees
switching together; every slot switch charged). The machinery prints its table (mean response,
wait, bounded slowdown, utilisation), stores every run in ``results/seed004-fig3.sqlite``
(re-running resumes) and draws the response time by requested size when matplotlib is installed.

Own options: ``--limit N`` (only the first N jobs of the month: the wrapper writes a copy of the
TOML with ``limit = N`` in the workload model and the study renamed ``seed004-fig3-limitN`` to
``results/``, so a quick look has its own store and never mixes with the month's results),
``--tables all|summary`` and ``--plot FILE``. Every other argument goes to ``topoalloc run``
(``--workers``, ``--store``, ``--no-plots``, ``--dask``, ...). To change the trace, the month,
the cycles or the costs, edit (a copy of) the TOML file.

**Extra output** (below the machinery's table, computed from the stored results, not from separate
simulations): the paper's Fig. 3 beside the replayed log (job counts per class and their
differences, S, W, R, R/S; class 6's printed service time 93,189 is a typo for 9,319, which is
used); Fig. 3's per-class table for every run -- jobs, mean service S, queueing Q, sharing H,
waiting W and response R times, and R/S = mean R / mean S -- from the per-size sums each stored
row keeps (:func:`scheduling.experiments.class_rows`); R/S per class side by side for each
experiment (the data of Figs. 4-9), counting the classes in which each gang scheduler beats EASY-LL
(recorded) and EASY (simulated); then §6's statements one by one with our numbers. With
``--plot``, the curves against T as a PNG (needs matplotlib), EASY-LL solid, EASY dashed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from scheduling.cli import main, stored_run
from scheduling.experiments import class_rows, registry
from scheduling.metrics.gang import (
    FIG3,
    FIG3_CLASS6_PRINTED_SERVICE,
    FIG3_PRINTED_RS,
    classes_better,
    format_class_table,
    ratios,
)

HERE = Path(__file__).resolve().parent
TOML = HERE / "seed004_fig3_gang_ctc.toml"


# -- a copy of the TOML with a job limit ------------------------------------------------------------
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def limited_copy(limit: int, outdir: str | Path = "results") -> Path:
    """``seed004_fig3_gang_ctc.toml`` with ``limit`` added to its workload model and ``-limit<N>``
    added to its name, written to ``outdir`` (every table as an inline table)."""
    with open(TOML, "rb") as fh:
        data = tomllib.load(fh)
    data["name"] = f"{data['name']}-limit{limit}"
    data["description"] = f"{data['description']} (first {limit} jobs)"
    data["workload"]["model"]["limit"] = limit
    path = Path(outdir) / f"{TOML.stem}-limit{limit}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# written by examples/gang_ctc.py --limit {limit} from {TOML.name}\n"
                    + "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in data.items()))
    return path


# -- the stored results ----------------------------------------------------------------------------
RECORDED, EASY = "Recorded", "EASY"
BASELINES = (RECORDED, EASY)
LABELS = {RECORDED: "EASY-LL (recorded)", EASY: "EASY (simulated)"}


def describe(row: dict[str, Any]) -> tuple[str, str, float | None, float | None]:
    """``(experiment, policy name, cycle T, switch cost)`` of a stored row (``None`` for the baselines)."""
    cfg = row["config"]
    params = cfg.get("policy_params") or {}
    return row["experiment"].split("/")[-1], cfg["policy"], params.get("cycle"), params.get("switch_cost")


def label(row: dict[str, Any]) -> str:
    """A short name for a stored row: the policy, ``T=...``, and any reading other than the default."""
    _, name, cycle, _ = describe(row)
    if name in LABELS:
        return LABELS[name]
    params = row["config"].get("policy_params") or {}
    out = f"{name} T={cycle:g}" if cycle is not None else name
    extra = [f"{k}={v}" for k, v in params.items() if k not in ("cycle", "switch_cost")]
    return out + (f" ({', '.join(extra)})" if extra else "")


def per_class(rows: list[dict[str, Any]], classes: int) -> list[tuple[dict[str, Any], list]]:
    """``(row, Fig. 3 class rows)`` per stored point (replications pooled)."""
    by_point: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_point.setdefault(r["point_id"], []).append(r)
    return [(rs[0], class_rows(rs, classes)) for rs in by_point.values()]


def baseline(results: list[tuple[dict[str, Any], list]], policy: str) -> list | None:
    return next((cls for row, cls in results if describe(row)[1] == policy), None)


def print_fig3(results: list[tuple[dict[str, Any], list]], limit: int | None = None) -> None:
    """The paper's Fig. 3 beside the replayed log (jobs, S, W, R, R/S per class), with the count
    differences and the class-6 note."""
    rec = baseline(results, RECORDED)
    if rec is None:
        return
    print("\n# Extra: seed 004 Fig. 3 -- the paper's table (EASY-LL) beside the log's recorded schedule "
          "(policy Recorded; times in seconds)")
    head = (f"{'class':>5} {'jobs':>6} {'ours':>6} {'diff':>6} {'S':>8} {'ours':>8} {'W':>8} {'ours':>8} "
            f"{'R':>8} {'ours':>8} {'R/S':>7} {'ours':>7}")
    print(head)
    for p, o, rs in zip(FIG3, rec, FIG3_PRINTED_RS, strict=False):
        if not o.jobs:
            print(f"{p.cls:>5} {p.jobs:>6} {0:>6} {-p.jobs:>+6}")
            continue
        print(f"{p.cls:>5} {p.jobs:>6} {o.jobs:>6} {o.jobs - p.jobs:>+6} {p.service:>8,.0f} {o.service:>8,.0f} "
              f"{p.waiting:>8,.0f} {o.waiting:>8,.0f} {p.response:>8,.0f} {o.response:>8,.0f} {rs:>7.1f} "
              f"{o.normalized:>7.1f}")
    ours, paper = sum(o.jobs for o in rec), sum(p.jobs for p in FIG3)
    print(f"{'all':>5} {paper:>6} {ours:>6} {ours - paper:>+6}")
    print(f"Class 6's S is printed {FIG3_CLASS6_PRINTED_SERVICE:,} in the paper, a typo: its R - W = "
          f"{FIG3[6].response:,.0f} - {FIG3[6].waiting:,.0f} = {FIG3[6].response - FIG3[6].waiting:,.0f} and its "
          f"R/S = 11.0; 9,319 is used here.")
    if limit is not None:
        print(f"(--limit {limit}: only the month's first {ours:,} jobs; the paper's counts are the month's)")
    elif ours != paper:
        diffs = ", ".join(f"{o.cls}: {o.jobs - p.jobs:+d}" for o, p in zip(rec, FIG3, strict=False)
                          if o.jobs != p.jobs)
        fewer = [o.cls for o, p in zip(rec, FIG3, strict=False) if o.jobs < p.jobs]
        same = [o.cls for o, p in zip(rec, FIG3, strict=False) if o.jobs == p.jobs and abs(o.waiting - p.waiting) < 1]
        print(f"Job counts: the month holds {ours:,} jobs of at most 320 processors with nonzero CPU time where the "
              f"paper has {paper:,} (differences by class: {diffs}). The paper applied a filter it does not state"
              + (f"; as classes {fewer} hold fewer jobs here than in the paper, it is not a subset of this log"
                 if fewer else "")
              + (f". Classes {same} have the paper's count and mean wait to the second: the same jobs."
                 if same else "."))


def print_unknown_waits(study: Any) -> None:
    """How many jobs of the trace have no recorded wait (SWF field 3 = -1): ``known_wait = true``
    leaves them out of every run; otherwise the ``Recorded`` replay skips them (counted unfinished)."""
    model = study.experiments[0].workload.model
    if model is None or model.name != "Trace":
        return
    params = model.kwargs
    work = registry.make_workload("Trace", params, load=None, machine_size=study.experiments[0].topology.size)
    n = work.unknown_waits()
    what = "left out of every run (known_wait)" if params.get("known_wait") else "skipped by the EASY-LL replay"
    print(f"Recorded waits: {n} job{'s' if n != 1 else ''} of the workload with an unknown wait (SWF field 3 = -1), "
          f"{what}.")


def print_tables(results: list[tuple[dict[str, Any], list]], tables: str) -> None:
    print("\n# Extra: seed 004 Fig. 3 per-class tables from the stored results (times in seconds; class i holds "
          "jobs of 2^(i-1) < p <= 2^i processors)")
    for row, cls in results:
        if tables == "all" or describe(row)[1] in BASELINES:
            note = f", {row['unfinished']} unfinished" if row["unfinished"] else ""
            print()
            print(format_class_table(cls, f"{row['experiment']}: {label(row)}   [{row['wall_time']:.1f} s{note}]"))


def print_normalised(results: list[tuple[dict[str, Any], list]]) -> None:
    """R/S per class of every gang run beside EASY-LL (recorded) and EASY (simulated), counting the
    classes in which each beats them (§6 compares with the recorded EASY-LL)."""
    rec, easy = baseline(results, RECORDED), baseline(results, EASY)
    print("\n# Extra: normalised response time R/S per class (mean R / mean S; the data of Figs. 4-9). "
          "'<LL': classes in which it beats EASY-LL (recorded), as §6 counts; '<EASY': beats EASY (simulated)")
    groups: dict[str, list[tuple[dict[str, Any], list]]] = {}
    for row, cls in results:
        if describe(row)[1] not in BASELINES:
            groups.setdefault(describe(row)[0], []).append((row, cls))
    classes = len(results[0][1]) if results else 0
    width = max([len(label(row)) for row, _ in results] + [30]) + 2
    head = f"{'scheduler':<{width}}" + "".join(f"{c:>8}" for c in range(classes)) + f"{'<LL':>5}{'<EASY':>6}"
    for exp, members in groups.items():
        print(f"\n{exp}")
        print(head)
        for name, base in ((RECORDED, rec), (EASY, easy)):
            if base is not None:
                print(f"{LABELS[name]:<{width}}" + "".join(_cell(r) for r in base))
        for row, cls in members:
            ll = len(classes_better(cls, rec)) if rec else "-"
            ez = len(classes_better(cls, easy)) if easy else "-"
            print(f"{label(row):<{width}}" + "".join(_cell(r) for r in cls) + f"{ll:>5}{ez:>6}")


def _cell(r: Any) -> str:
    return f"{r.normalized:>8.2f}" if r.jobs else f"{'-':>8}"


def _find(results: list[tuple[dict[str, Any], list]], exp: str, policy: str, cycle: float, cost: float,
          **params: Any) -> list | None:
    for row, cls in results:
        e, name, T, c = describe(row)
        extra = {k: v for k, v in (row["config"].get("policy_params") or {}).items()
                 if k not in ("cycle", "switch_cost")}
        if e == exp and name == policy and T == cycle and c == cost and extra == params:
            return cls
    return None


def _fmt_ratios(r: np.ndarray, classes: list[int]) -> str:
    return ", ".join(f"class {c} {r[c]:.2f}" for c in classes)


def _mean_response(cls: list) -> float:
    n = sum(r.jobs for r in cls)
    return sum(r.jobs * r.response for r in cls if r.jobs) / n if n else float("nan")


def print_claims(results: list[tuple[dict[str, Any], list]]) -> None:
    """Seed 004 §6's statements, each against the recorded EASY-LL, with our numbers (ratio = our
    R/S over EASY-LL's: below 1 is better)."""
    rec = baseline(results, RECORDED)
    if rec is None:
        return
    cycles = sorted({describe(row)[2] for row, _ in results if describe(row)[2] is not None})
    print("\n# Extra: seed 004 §6's statements against EASY-LL (recorded); ratio = R/S over EASY-LL's R/S")
    for cost in (1, 16):
        exp = f"switch {cost} s"
        print(f"\n{exp}:")
        for T in cycles:
            leaves = _find(results, exp, "Gang-Migrate-Leaves", T, cost)
            root = _find(results, exp, "Gang-Migrate-Root", T, cost)
            pd = _find(results, exp, "Gang-PushDown-Weight", T, cost)
            van = _find(results, exp, "Gang-Vanilla", T, cost)
            if leaves is None or root is None:
                continue
            rl, rr = ratios(leaves, rec), ratios(root, rec)
            print(f"  T = {T:g} s: migration from the leaves beats EASY-LL in {len(classes_better(leaves, rec))} "
                  f"classes {classes_better(leaves, rec)} (paper: 8 of 10, worse in 7 and 9 by about 3x): "
                  f"{_fmt_ratios(rl, [7, 9])}; class 8 improves {1 / rl[8]:.1f}x (paper: almost 10x); classes "
                  f"0-6 improve {1 / np.nanmax(rl[:7]):.1f}-{1 / np.nanmin(rl[:7]):.1f}x (paper: typically 2-4x)"
                  .replace("nanx", "-"))
            print(f"    migration from the root beats EASY-LL in classes {classes_better(root, rec)} (paper: 5-8, and "
                  f"as well on 3 and 4 at large T: {_fmt_ratios(rr, [3, 4])}); root over leaves: "
                  f"{_fmt_ratios(rr / rl, [5, 6, 7, 8, 9])} (paper: even on 5, root better from 6, equal on 9)")
            if pd is not None and van is not None:
                worst = [c for c in range(3) if root[c].normalized > max(leaves[c].normalized, pd[c].normalized,
                                                                         rec[c].normalized)]
                print(f"    classes 0-2 in which the root is worst of all: {worst} (paper: all three); push-down beats "
                      f"EASY-LL in {classes_better(pd, rec)}, the leaves in {classes_better(pd, leaves)}, the root "
                      f"in {classes_better(pd, root)} (paper: almost always worse); vanilla beats EASY-LL in "
                      f"{classes_better(van, rec)} (paper: consistently worse)")
    print("\ncontext-switch cost 16 s against 1 s (paper: worse, most at short cycles; fewer classes beat EASY-LL):")
    for policy in ("Gang-Migrate-Leaves", "Gang-Migrate-Root", "Gang-PushDown-Weight"):
        cells = []
        for T in cycles:
            cheap, dear = _find(results, "switch 1 s", policy, T, 1), _find(results, "switch 16 s", policy, T, 16)
            if cheap is not None and dear is not None:
                cells.append(f"T = {T:g}: mean R x{_mean_response(dear) / _mean_response(cheap):.2f}, classes beating "
                             f"EASY-LL {len(classes_better(cheap, rec))} -> {len(classes_better(dear, rec))}")
        if cells:
            print(f"  {policy}: " + "; ".join(cells))
    for T in cycles:
        ff = _find(results, "push-down readings", "Gang-PushDown", T, 1)
        w = _find(results, "switch 1 s", "Gang-PushDown-Weight", T, 1)
        tog = _find(results, "push-down readings", "Gang-PushDown-Weight", T, 1, trees="together")
        if ff is not None and w is not None:
            print(f"push-down, T = {T:g} s, 1 s: weight-oriented beats first fit in classes {classes_better(w, ff)} "
                  "(paper: 'consistently outperformed'); independent trees (the default) beat trees together in "
                  f"{classes_better(w, tog) if tog is not None else '-'}; R/S independent / together: "
                  + (", ".join(f"{x:.2f}" for x in ratios(w, tog)) if tog is not None else "-"))
    for T in cycles:
        for cost in (1, 16):
            every = _find(results, "every-slot charging", "Gang-Migrate-Leaves", T, cost, switch_charge="every-slot")
            leaves = _find(results, f"switch {cost} s", "Gang-Migrate-Leaves", T, cost)
            if every is not None and leaves is not None:
                print(f"migration from the leaves, T = {T:g} s, {cost} s: beats EASY-LL in "
                      f"{len(classes_better(leaves, rec))} classes when resumed jobs pay the switch, "
                      f"{len(classes_better(every, rec))} when every slot switch is charged (mean R x"
                      f"{_mean_response(every) / _mean_response(leaves):.2f})")


def plot(results: list[tuple[dict[str, Any], list]], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not importable; no figure written", file=sys.stderr)
        return
    rec, easy = baseline(results, RECORDED), baseline(results, EASY)
    curves: dict[str, dict[str, list[tuple[float, list]]]] = {}
    for row, cls in results:
        exp, _, cycle, _ = describe(row)
        if cycle is not None:
            curves.setdefault(exp, {}).setdefault(label(row).replace(f" T={cycle:g}", ""), []).append((cycle, cls))
    if not curves:
        print("no gang runs stored; no figure written", file=sys.stderr)
        return
    classes = len(results[0][1])
    fig, axes = plt.subplots(len(curves), classes, figsize=(2.2 * classes, 2.6 * len(curves)), squeeze=False)
    for i, (exp, by_name) in enumerate(curves.items()):
        for c in range(classes):
            ax = axes[i][c]
            if not any(p[1][c].jobs for pts in by_name.values() for p in pts):
                ax.set_axis_off()
                ax.set_title(f"class {c}: no jobs", fontsize=8)
                continue
            for name, pts in by_name.items():
                pts.sort(key=lambda p: p[0])
                ax.plot([p[0] for p in pts], [p[1][c].normalized for p in pts], marker="o", label=name)
            if rec is not None and rec[c].jobs:
                ax.axhline(rec[c].normalized, color="k", label=LABELS[RECORDED])
            if easy is not None and easy[c].jobs:
                ax.axhline(easy[c].normalized, color="grey", linestyle="--", label=LABELS[EASY])
            ax.set_xscale("log")
            cycles = sorted({p[0] for pts in by_name.values() for p in pts})
            ax.set_xticks(cycles, [f"{x:g}" for x in cycles])
            ax.minorticks_off()
            ax.set_title(f"class {c}, {exp}", fontsize=8)
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=6)
    fig.supxlabel("timeplexing cycle T (s)")
    fig.supylabel("mean R / mean S")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def run(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--tables", choices=("all", "summary"), default="all")
    ap.add_argument("--plot", default=None)
    ap.add_argument("-h", "--help", action="store_true")
    own, run_args = ap.parse_known_args(argv)
    if own.help:
        print(__doc__)
        return 0
    if own.limit is not None and own.limit < 1:
        print(f"gang_ctc.py: --limit must be a positive integer, got {own.limit}", file=sys.stderr)
        return 2
    config = TOML if own.limit is None else limited_copy(own.limit)
    code = main(["run", str(config), *run_args])
    if code:
        return code
    run = stored_run(config, run_args)
    study, rows = run.study, run.rows
    size = study.experiments[0].topology.size
    results = per_class(rows, (size - 1).bit_length() + 1)
    print_fig3(results, own.limit)
    print_unknown_waits(study)
    print_tables(results, own.tables)
    print_normalised(results)
    print_claims(results)
    if own.plot:
        plot(results, own.plot)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
