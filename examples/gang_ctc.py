"""Wang, Papaefthymiou & Squillante (seed 004) through ``topoalloc run``: the CTC SP2 log under EASY
and DHC gang scheduling, Fig. 3's per-class tables and the normalised response times of Figs. 4-9.

    python examples/gang_ctc.py --limit 1000          # a quick look: the month's first 1000 jobs
    python examples/gang_ctc.py                       # the month (7,083 jobs): 25 runs, many minutes
    python examples/gang_ctc.py --tables summary --plot gang_ctc.png --workers 2

Runs ``seed004_fig3_gang_ctc.toml`` through the experiments machinery: August 1996 of the CTC SP2
log (the ``Trace`` workload model, found by name in ``$TOPOALLOC_TRACES``, default
``../shared/traces``; §5: jobs of up to 320 processors with nonzero CPU time) at its recorded
arrival rate on 320 processors (a DHC forest 256 + 64, §2.6); EASY on a flat pool; vanilla,
push-down (weight-oriented assignment), migration from the root and from the leaves on a
``DHCTree`` with uniform quanta, context-switch costs 1 s and 16 s, cycles T = 300, 1000, 3000 s.
The machinery prints its table (mean response, wait, bounded slowdown, utilisation), stores every
run in ``results/seed004-fig3.sqlite`` (re-running resumes) and draws the response time by
requested size when matplotlib is installed.

Own options: ``--limit N`` (only the first N jobs of the month: the wrapper writes a copy of the
TOML with ``limit = N`` in the workload model and the study renamed ``seed004-fig3-limitN`` to
``results/``, so a quick look has its own store and never mixes with the month's results),
``--tables all|summary`` and ``--plot FILE``. Every other argument goes to ``topoalloc run``
(``--workers``, ``--store``, ``--no-plots``, ``--dask``, ...). To change the trace, the month,
the cycles or the costs, edit (a copy of) the TOML file.

**Extra output** (below the machinery's table, computed from the stored results, not from separate
simulations): seed 004 Fig. 3's per-class table for every run -- jobs, mean service S, queueing
Q, sharing H, waiting W and response R times, and R/S = mean R / mean S -- from the per-size sums
each stored row keeps (:func:`scheduling.experiments.class_rows`); then R/S per class side by side
for each context-switch cost (the data of Figs. 4-9), counting the classes in which each gang
scheduler beats EASY; with ``--plot``, those curves against T as a PNG (needs matplotlib).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from scheduling.cli import main, stored_run
from scheduling.experiments import class_rows
from scheduling.gang_metrics import format_class_table

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

def describe(row: dict[str, Any]) -> tuple[str, str, float | None, float | None]:
    """``(experiment, policy name, cycle T, switch cost)`` of a stored row (``None`` for EASY)."""
    cfg = row["config"]
    params = cfg.get("policy_params") or {}
    return row["experiment"].split("/")[-1], cfg["policy"], params.get("cycle"), params.get("switch_cost")


def per_class(rows: list[dict[str, Any]], classes: int) -> list[tuple[dict[str, Any], list]]:
    """``(row, Fig. 3 class rows)`` per stored point (replications pooled)."""
    by_point: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_point.setdefault(r["point_id"], []).append(r)
    return [(rs[0], class_rows(rs, classes)) for rs in by_point.values()]


def print_tables(results: list[tuple[dict[str, Any], list]], tables: str) -> None:
    print("\n# Extra: seed 004 Fig. 3 per-class tables from the stored results (times in seconds; class i holds "
          "jobs of 2^(i-1) < p <= 2^i processors)")
    for row, cls in results:
        if tables == "all" or row["policy"] == "EASY":
            note = f", {row['unfinished']} unfinished" if row["unfinished"] else ""
            print()
            print(format_class_table(cls, f"{row['experiment']}: {row['policy']}   [{row['wall_time']:.1f} s{note}]"))


def print_normalised(results: list[tuple[dict[str, Any], list]]) -> None:
    easy = next((cls for row, cls in results if row["policy"] == "EASY"), None)
    print("\n# Extra: normalised response time R/S per class (mean R / mean S; the data of Figs. 4-9)")
    groups: dict[str, list[tuple[dict[str, Any], list]]] = {}
    for row, cls in results:
        if row["policy"] != "EASY":
            groups.setdefault(describe(row)[0], []).append((row, cls))
    classes = len(results[0][1]) if results else 0
    head = f"{'scheduler':<30}" + "".join(f"{c:>8}" for c in range(classes))
    for exp, members in groups.items():
        print(f"\n{exp}" + ("  ('better': classes in which it beats EASY)" if easy else ""))
        print(head + (f"{'better':>8}" if easy else ""))
        if easy:
            print(f"{'EASY':<30}" + "".join(f"{r.normalized:>8.2f}" for r in easy))
        for row, cls in members:
            _, name, cycle, _ = describe(row)
            label = f"{name} T={cycle:g}" if cycle is not None else name
            line = f"{label:<30}" + "".join(f"{r.normalized:>8.2f}" for r in cls)
            if easy:
                better = sum(1 for r, e in zip(cls, easy, strict=True) if r.jobs and r.normalized < e.normalized)
                line += f"{better:>8}"
            print(line)


def plot(results: list[tuple[dict[str, Any], list]], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not importable; no figure written", file=sys.stderr)
        return
    easy = next((cls for row, cls in results if row["policy"] == "EASY"), None)
    curves: dict[str, dict[str, list[tuple[float, list]]]] = {}
    for row, cls in results:
        exp, name, cycle, _ = describe(row)
        if cycle is not None:
            curves.setdefault(exp, {}).setdefault(name, []).append((cycle, cls))
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
            if easy is not None:
                ax.axhline(easy[c].normalized, color="k", linestyle="--", label="EASY")
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
    print_tables(results, own.tables)
    print_normalised(results)
    if own.plot:
        plot(results, own.plot)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
