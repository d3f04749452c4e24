"""Contiguous boxes, predefined partitions and non-contiguous allocation on a 3D torus, under EASY on
a production log.

    python examples/torus_3d.py                      # 2,000 jobs; writes docs/figures/torus_3d.png
    python examples/torus_3d.py --jobs 500 --figure torus.png

The SDSC-SP2 log (128 nodes, from ``$TOPOALLOC_TRACES``) is replayed on a ``Torus(16, 16, 16)``
(4,096 nodes) with every job's node count times 32, so the offered load is the log's, under EASY
backfilling with the log's requested times as estimates. As ``topoalloc replay`` does
(:func:`~scheduling.experiments.replay.requests_for_allocator`), a job of ``n`` nodes asks a box
allocator for the torus's near-cube shape of at least ``n`` nodes (``Torus.request_for``) and an
allocator that takes counts for ``n`` itself:

* contiguous: :class:`~topoalloc.grid.FirstFit` and :class:`~topoalloc.grid.BestFit` with
  ``permute=True`` (a shape's axes in any order, as Fugaku's scheduler may permute them);
* partitions: :class:`~topoalloc.grid.Partitions` with its default grids, the machine and its
  successive halvings (Blue Gene's power-of-two partitions; a count is rounded up to one);
* non-contiguous: :class:`~topoalloc.grid.Random`, :class:`~topoalloc.grid.MBS` (octets) and the
  sorted free list along a Hilbert curve (``HilbertFreeList``).

:class:`~topoalloc.grid.MC1x1` and :class:`~topoalloc.grid.MM` search every candidate centre on
every allocation, and EASY asks them again for every queued job it tries: on 4,096 nodes MC1x1
took about 125 ms per job here (25 s for 200 jobs, against 0.2 s for the curve list), so the two
run on a second, smaller machine -- ``Torus(8, 8, 8)``, the log times 4 -- beside the others.

Printed per machine and allocator: the jobs, the mean hops between a job's nodes (mean pairwise
distance round the torus, :func:`topoalloc.locality.mean_hops`, over the jobs of two nodes or
more), the mean wait, the utilisation (nodes held over the replay, a partition's rounded-up nodes
included) and the simulation's wall time. The non-contiguous allocators take any free nodes, so
they give one schedule (the same waits) and differ only in where the nodes are. The figure (needs
matplotlib) has one row per machine and one panel per measure. Takes about a minute.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import topoalloc  # noqa: E402
from scheduling import simulate  # noqa: E402
from scheduling.experiments.replay import requests_for_allocator  # noqa: E402
from scheduling.workloads import load_swf, trace_path  # noqa: E402
from topoalloc.locality import mean_hops  # noqa: E402
from topologies import Torus  # noqa: E402

TRACE, TRACE_NODES = "SDSC-SP2-1998-4.2-cln", 128
#: (label, registry name, parameters, class) of the allocators compared on both machines.
ALLOCATORS = [
    ("FirstFit", "FirstFit", {"permute": True}, "contiguous"),
    ("BestFit", "BestFit", {"permute": True}, "contiguous"),
    ("Partitions", "Partitions", {}, "partitions"),
    ("Random", "Random", {}, "non-contiguous"),
    ("MBS", "MBS", {}, "non-contiguous"),
    ("HilbertFreeList", "HilbertFreeList", {}, "non-contiguous"),
]
#: Only on the small machine (their per-allocation search is too slow for 4,096 nodes under EASY).
SMALL_ONLY = [("MC1x1", "MC1x1", {}, "non-contiguous"), ("MM", "MM", {}, "non-contiguous")]
MACHINES = [(16, ALLOCATORS), (8, ALLOCATORS + SMALL_ONLY)]
COLOURS = {"contiguous": "tab:blue", "partitions": "tab:orange", "non-contiguous": "tab:green"}


def jobs_on(torus: Torus, count: int) -> list[Any]:
    """The first ``count`` jobs of the log on ``torus``: counts scaled by its size over 128, the
    near-cube shape as the request, arrivals from 0."""
    scale = torus.size // TRACE_NODES
    trace = load_swf(trace_path(TRACE), limit=count)
    print(trace.report)
    t0 = trace[0].arrival
    return [dataclasses.replace(j, id=i, arrival=j.arrival - t0, size=j.size * scale, attrs={},
                                request=torus.request_for(j.size * scale)) for i, j in enumerate(trace)]


def run(torus: Torus, jobs: list[Any], label: str, name: str, params: dict, kind: str) -> dict:
    allocator = topoalloc.get(name, torus, **params)
    t = time.perf_counter()
    r = simulate(allocator, "EASY", requests_for_allocator(jobs, allocator), jobs=None, record_placement=True)
    wall = time.perf_counter() - t
    assert r.placements is not None
    hops = [mean_hops(torus, nodes) for nodes in r.placements.values() if len(nodes) > 1]
    return {"label": label, "kind": kind, "jobs": len(r), "hops": float(np.mean(hops)),
            "wait_h": float(r.wait.mean()) / 3600.0, "utilization": float(r.utilization), "wall": wall}


def table(side: int, rows: list[dict]) -> str:
    out = [f"Torus({side}, {side}, {side}), {side ** 3} nodes, EASY",
           f"{'allocator':<16} {'class':<15} {'jobs':>5} {'mean hops':>9} {'mean wait (h)':>13} "
           f"{'utilisation':>11} {'run (s)':>7}"]
    out += [f"{r['label']:<16} {r['kind']:<15} {r['jobs']:>5} {r['hops']:>9.2f} {r['wait_h']:>13.2f} "
            f"{r['utilization']:>11.3f} {r['wall']:>7.1f}" for r in rows]
    return "\n".join(out)


def figure(results: dict[int, list[dict]], jobs: int, path: Path, overwrite: bool) -> Path | None:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch
    except ImportError:
        print("matplotlib is not installed: no figure")
        return None
    from scheduling.plots import save

    measures = [("hops", "mean hops between a job's nodes"), ("wait_h", "mean wait (hours)"),
                ("utilization", "utilisation")]
    fig = Figure(figsize=(13.5, 3.6 * len(results) + 0.9), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(results), len(measures), squeeze=False)
    for row, (side, rows) in zip(axes, results.items(), strict=True):
        y = np.arange(len(rows))
        for ax, (key, title) in zip(row, measures, strict=True):
            values = [r[key] for r in rows]
            ax.barh(y, values, color=[COLOURS[r["kind"]] for r in rows])
            ax.set_yticks(y, [r["label"] for r in rows])
            ax.invert_yaxis()
            ax.set_xlabel(title)
            ax.set_title(f"Torus({side}, {side}, {side}): {title}", fontsize=10)
            for k, v in enumerate(values):
                ax.annotate(f"{v:.2f}", (v, k), xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
            ax.set_xlim(0, max(values) * 1.18 if max(values) > 0 else 1)
    fig.legend(handles=[Patch(color=c, label=k) for k, c in COLOURS.items()], loc="outside lower center", ncols=3)
    fig.suptitle(f"{TRACE}, first {jobs} jobs scaled to the torus, EASY: boxes, partitions and non-contiguous "
                 "allocation")
    return save(fig, path, overwrite=overwrite)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2000, help="jobs of the log replayed (default 2000)")
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "figures" / "torus_3d.png",
                        help="where the figure goes (default docs/figures/torus_3d.png)")
    parser.add_argument("--no-figure", action="store_true", help="print the tables only")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing figure file")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    results: dict[int, list[dict]] = {}
    for side, allocators in MACHINES:
        torus = Torus(side, side, side)
        jobs = jobs_on(torus, args.jobs)
        results[side] = [run(torus, jobs, *spec) for spec in allocators]
        print(table(side, results[side]), "\n", sep="")
    if not args.no_figure:
        path = figure(results, args.jobs, args.figure, args.overwrite)
        if path is not None:
            print(f"figure: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
