"""Trace and schedule formats: reading and writing 100,000 jobs in each, against the SWF reader.

    python benchmarks/formats.py                 # 100,000 jobs, median of 3 runs
    python benchmarks/formats.py --jobs 20000 --runs 5

Made here, from one seeded generator (numpy PCG64, seed 1): a site of 1,024 nodes under 32 leaf
switches (``topology.conf``), 100,000 jobs of 1-64 nodes on node ranges of that site, and from
them, in a temporary folder:

* an SWF file of the jobs (``write_records``), read by ``load_swf`` -- the reference, measured in
  the same run on the same jobs;
* an ``sacct --parsable2`` dump, each job followed by its ``.batch`` and ``.extern`` steps (as
  Slurm writes them), 5% of the jobs cancelled before they started: 295,000 lines, read by
  ``read_sacct`` with the site's tree (hostlists expanded and mapped to node ids);
* a Batsim workload (``write_workload`` of the jobs, one delay profile per distinct run time),
  read back by ``read_workload``; beside them ``orjson.loads`` of the same bytes (the floor:
  ``read_workload`` parses with it, and the jobs it builds cost what the SWF reader's cost), the
  standard library's ``json.loads`` (what it parsed with before) and ``json.dumps`` of the parsed
  document;
* a Batsim ``_jobs.csv`` of a schedule of the jobs with their nodes (``write_jobs_csv`` of a
  result built from the jobs' recorded starts and nodes), read back by ``read_jobs_csv``.

Each step is timed on its own (wall ``time.perf_counter`` and process CPU ``time.process_time``,
after the previous run's output is freed and a garbage collection), the median of ``--runs``
runs; the rates are per CPU second, the steadier figure on a machine shared with other work;
lines per second counts every line of the file (the sacct dump's step lines too), jobs per
second the jobs. The target (issue 28) is at least the SWF reader's rate per job, and at least
300,000 lines/s for the line formats (SWF, sacct, ``_jobs.csv``). Figures depend on the machine
and on what else runs on it: give the SWF figure of the same run beside the others.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduling.formats.batsim import read_workload, write_workload  # noqa: E402
from scheduling.formats.batsim_jobs import read_jobs_csv, write_jobs_csv  # noqa: E402
from scheduling.formats.sacct import read_sacct  # noqa: E402
from scheduling.kernel.result import SimulationResult  # noqa: E402
from scheduling.workloads import SWFRecord, load_swf, write_records  # noqa: E402
from topologies.tree_files import read_slurm_topology_conf  # noqa: E402

LEAVES, PER_LEAF = 32, 32
NODES = LEAVES * PER_LEAF


def site_conf() -> str:
    """The synthetic site's ``topology.conf``: 32 leaf switches of 32 nodes, 4 spine groups."""
    lines = [f"SwitchName=leaf{s:02d} Nodes=node[{s * PER_LEAF + 1:04d}-{(s + 1) * PER_LEAF:04d}]"
             for s in range(LEAVES)]
    lines += [f"SwitchName=spine{g} Switches=leaf[{g * 8:02d}-{g * 8 + 7:02d}]" for g in range(4)]
    lines.append("SwitchName=core Switches=spine[0-3]")
    return "\n".join(lines) + "\n"


def make_jobs(n: int, seed: int = 1) -> dict[str, np.ndarray]:
    """Columns of ``n`` synthetic jobs: submit, wait, run, limit (seconds), size, first node (0-based)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    submit = np.cumsum(rng.exponential(30.0, n)).round()
    size = np.minimum(2 ** rng.integers(0, 7, n), 64)
    run = rng.integers(60, 86_400, n).astype(float)
    limit = np.ceil(run * rng.uniform(1.0, 3.0, n) / 60) * 60
    wait = rng.integers(0, 7200, n).astype(float)
    first = rng.integers(0, NODES - 64, n)
    return {"submit": submit, "wait": wait, "run": run, "limit": limit, "size": size, "first": first}


def _stamp(seconds: np.ndarray) -> list[str]:
    t = np.datetime64("2024-01-01T00:00:00") + seconds.astype("timedelta64[s]")
    return np.datetime_as_string(t, unit="s").tolist()


def _hms(seconds: float) -> str:
    s = int(seconds)
    d, s = divmod(s, 86_400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{d}-{h:02d}:{m:02d}:{s:02d}" if d else f"{h:02d}:{m:02d}:{s:02d}"


def write_sacct(path: Path, c: dict[str, np.ndarray]) -> int:
    """The jobs as an ``sacct --parsable2`` dump (module docstring); returns its line count."""
    n = c["submit"].size
    sub, start = _stamp(c["submit"]), _stamp(c["submit"] + c["wait"])
    end = _stamp(c["submit"] + c["wait"] + c["run"])
    out = ["JobID|JobIDRaw|Submit|Start|End|Timelimit|NNodes|NodeList|State|Partition"]
    cancelled = np.arange(n) % 20 == 7
    for i in range(n):
        k, lo = int(c["size"][i]), int(c["first"][i]) + 1
        nodes = f"node{lo:04d}" if k == 1 else f"node[{lo:04d}-{lo + k - 1:04d}]"
        limit = _hms(c["limit"][i])
        if cancelled[i]:
            out.append(f"{i + 1}|{i + 1}|{sub[i]}|Unknown|{sub[i]}|{limit}|{k}|None assigned|CANCELLED by 1000|batch")
            continue
        out.append(f"{i + 1}|{i + 1}|{sub[i]}|{start[i]}|{end[i]}|{limit}|{k}|{nodes}|COMPLETED|batch")
        out.append(f"{i + 1}.batch|{i + 1}.batch|{start[i]}|{start[i]}|{end[i]}||1|node{lo:04d}|COMPLETED|")
        out.append(f"{i + 1}.extern|{i + 1}.extern|{start[i]}|{start[i]}|{end[i]}||{k}|{nodes}|COMPLETED|")
    path.write_text("\n".join(out) + "\n")
    return len(out)


def write_swf_jobs(path: Path, c: dict[str, np.ndarray]) -> int:
    recs = [SWFRecord(i + 1, float(c["submit"][i]), float(c["wait"][i]), float(c["run"][i]), int(c["size"][i]), -1,
                      -1, int(c["size"][i]), float(c["limit"][i]), -1, 1, 1, 1, -1, 1, -1, -1, -1)
            for i in range(c["submit"].size)]
    write_records(path, recs, [f"MaxProcs: {NODES}"])
    return len(recs) + 1


def schedule_result(c: dict[str, np.ndarray]) -> SimulationResult:
    """A result holding the jobs' recorded starts and nodes (what a replay gives)."""
    n = c["submit"].size
    dtype = [("id", np.int64), ("ordinal", np.int64), ("arrival", float), ("start", float), ("end", float),
             ("requested", np.int64), ("granted", np.int64), ("folds", np.int64), ("changes", np.int64),
             ("moved", np.int64), ("runtime", float)]
    t = np.zeros(n, dtype=dtype)
    t["id"] = np.arange(1, n + 1)
    t["ordinal"] = np.arange(n)
    t["arrival"] = c["submit"]
    t["start"] = c["submit"] + c["wait"]
    t["end"] = t["start"] + c["run"]
    t["requested"] = t["granted"] = c["size"]
    t["runtime"] = c["run"]
    placements = {i + 1: np.arange(c["first"][i], c["first"][i] + c["size"][i]) for i in range(n)}
    span = float(t["end"].max() - t["arrival"].min())
    return SimulationResult(t, NODES, (float(t["arrival"].min()), float(t["end"].max())), 0.0, 0.0, span, "Recorded",
                            "recorded", 0, placements=placements)


def median_time(fn: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """``(median wall seconds, median CPU seconds, the last output)``."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        out = None  # the previous run's output is freed here, before the clocks start, not inside this run
        gc.collect()
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    c = make_jobs(args.jobs)
    n = args.jobs
    tree = read_slurm_topology_conf(site_conf())
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs; {n:,} jobs, median of "
          f"{args.runs} runs")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        swf, sacct = folder / "jobs.swf", folder / "site.sacct"
        swf_lines = write_swf_jobs(swf, c)
        sacct_lines = write_sacct(sacct, c)
        t, cpu, trace = median_time(lambda: load_swf(swf), args.runs)
        rows.append(("SWF load_swf (reference)", swf_lines, len(trace), t, cpu))
        t, cpu, got = median_time(lambda: read_sacct(sacct, tree), args.runs)
        rows.append(("sacct read_sacct", sacct_lines, len(got), t, cpu))
        wl = folder / "w.json"
        t, cpu, _ = median_time(lambda: write_workload(wl, trace, nb_res=NODES), args.runs)
        rows.append(("Batsim write_workload", None, len(trace), t, cpu))
        t, cpu, w = median_time(lambda: read_workload(wl), args.runs)
        rows.append(("Batsim read_workload", None, len(w), t, cpu))
        data = wl.read_bytes()
        t, cpu, doc = median_time(lambda: orjson.loads(data), args.runs)
        rows.append(("  orjson.loads (floor)", None, len(doc["jobs"]), t, cpu))
        text = wl.read_text()
        t, cpu, doc = median_time(lambda: json.loads(text), args.runs)
        rows.append(("  json.loads alone", None, len(doc["jobs"]), t, cpu))
        t, cpu, _ = median_time(lambda: json.dumps(doc), args.runs)
        rows.append(("  json.dumps alone", None, len(doc["jobs"]), t, cpu))
        result = schedule_result(c)
        jc = folder / "s_jobs.csv"
        t, cpu, _ = median_time(lambda: write_jobs_csv(jc, result, trace), args.runs)
        rows.append(("Batsim write_jobs_csv", n + 1, n, t, cpu))
        t, cpu, s = median_time(lambda: read_jobs_csv(jc), args.runs)
        rows.append(("Batsim read_jobs_csv", n + 1, len(s), t, cpu))
        assert s.starting_time.tolist() == result.table["start"].tolist()
        assert all(np.array_equal(s.placements[i], result.placements[i]) for i in (1, n // 2, n))
    ref = rows[0][2] / rows[0][4]
    print("rates from CPU seconds (steadier on a shared machine); 'vs SWF': jobs per CPU second over the SWF reader's")
    print(f"{'step':<26}{'lines':>8}{'jobs':>8}{'wall s':>8}{'CPU s':>7}{'lines/s':>10}{'jobs/s':>10}{'vs SWF':>7}")
    for label, lines, jobs, t, cpu in rows:
        ls = f"{lines / cpu:,.0f}" if lines else "-"
        print(f"{label:<26}{lines or '-':>8}{jobs:>8}{t:>8.3f}{cpu:>7.3f}{ls:>10}{jobs / cpu:>10,.0f}"
              f"{jobs / cpu / ref:>7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
