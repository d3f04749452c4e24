"""Trace and schedule formats: reading and writing 100,000 jobs in each, against the SWF reader.

    python benchmarks/formats.py                 # 100,000 jobs, 5 rounds
    python benchmarks/formats.py --jobs 20000 --runs 3
    python benchmarks/formats.py --only sacct    # the SWF reference and the sacct steps alone

Made here, from one seeded generator (numpy PCG64, seed 1): a site of 1,024 nodes under 32 leaf
switches (``topology.conf``), 100,000 jobs of 1-64 nodes on node ranges of that site, and from
them, in a temporary folder:

* an SWF file of the jobs (``write_records``), read by ``load_swf`` -- the reference, measured in
  the same run on the same jobs;
* an ``sacct --parsable2`` dump, each job followed by its ``.batch`` and ``.extern`` steps (as
  Slurm writes them), 5% of the jobs cancelled before they started (no steps, reported as never
  started): 290,001 lines, read by ``read_sacct`` with the site's tree (hostlists expanded and
  mapped to node ids), and the same jobs at sizes of 1-64 nodes (from a second stream, seed 2),
  a third of the larger ones on two ranges of nodes (``write_sacct(scattered=True)``): 69,000
  distinct node lists instead of 6,700, as a site's log has them; beside them three floors:
  reading its bytes and finding its lines (one numpy pass), building its kept jobs alone (a
  ``Job`` and six ``attrs`` each, as the reader builds them, from columns prepared beforehand),
  and making the kept jobs' lines strings (one decode and one split of their bytes: the trace's
  ``records``, which ``read_sacct`` decodes when they are first asked for, as ``read_workload``
  parses its ``document``), and the read followed by asking for its ``records`` (every line
  decoded);
* a Batsim workload (``write_workload`` of the jobs, one delay profile per distinct run time),
  read back by ``read_workload`` (a converted trace: read from its bytes, its ``document``
  parsed when first asked for, which this step does not); beside it ``orjson.loads`` of the
  same bytes (what ``read_workload`` parses any other workload with, and ``document`` on first
  use) and building its jobs alone (a ``Job`` and two ``attrs`` each: the floor of any reader of
  it), then the standard library's ``json.loads`` and ``json.dumps`` of the parsed document;
* the same jobs in the layout of Batsim's own converter (``tools/swf_to_batsim_workload_delay.py``
  in ``oar-team/batsim``: ``json.dump(data, f, indent=args.indent, sort_keys=True)``, integer ids
  from 0, integral delays, its ``version``, ``command``, ``date`` and ``description`` members),
  read by ``read_workload``: with its default (no indentation, one line, keys sorted) and with
  ``-i 4`` (four spaces of indentation: 1.9 times the bytes of ours);
* a Batsim ``_jobs.csv`` of a schedule of the jobs with their nodes (``write_jobs_csv`` of a
  result built from the jobs' recorded starts and nodes), read back by ``read_jobs_csv``.

Each step is timed on its own (wall ``time.perf_counter`` and process CPU ``time.process_time``,
after the previous step's output is freed and a garbage collection), in ``--runs`` rounds of every
step, so that each step is compared with the SWF reader of its own round (a shared machine's load
changes between rounds more than within one). Printed: the medians over the rounds, rates per CPU
second (the steadier figure on a shared machine), lines per second over every line of the file
(the sacct dump's step lines too), jobs per second over the jobs a reader returns (the sacct
dump's kept jobs: 95,000), and "vs SWF", the rate per job over the SWF reader's of the same round
(median, and the range over the rounds). The target (issue 28) is at least the SWF reader's rate
per job, and at least 300,000 lines/s for the line formats (SWF, sacct, ``_jobs.csv``). Figures
depend on the machine and on what else runs on it: give the SWF figure of the same run beside the
others.
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

from scheduling.formats._columns import _gc_paused, _make_jobs  # noqa: E402
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


def write_sacct(path: Path, c: dict[str, np.ndarray], scattered: bool = False) -> int:
    """The jobs as an ``sacct --parsable2`` dump (module docstring); returns its line count.
    ``scattered``: every job of 4 nodes or more whose index is a multiple of 3 has its nodes in
    two ranges a gap of 1-8 nodes apart (``node[0101-0102,0106-0107]``), as Slurm lists a job
    whose nodes are not contiguous."""
    n = c["submit"].size
    sub, start = _stamp(c["submit"]), _stamp(c["submit"] + c["wait"])
    end = _stamp(c["submit"] + c["wait"] + c["run"])
    out = ["JobID|JobIDRaw|Submit|Start|End|Timelimit|NNodes|NodeList|State|Partition"]
    cancelled = np.arange(n) % 20 == 7
    for i in range(n):
        k, lo = int(c["size"][i]), int(c["first"][i]) + 1
        nodes = f"node{lo:04d}" if k == 1 else f"node[{lo:04d}-{lo + k - 1:04d}]"
        gap = min(1 + i % 8, NODES - (lo + k - 1))
        if scattered and k >= 4 and i % 3 == 0 and gap > 0:
            h = k // 2
            nodes = f"node[{lo:04d}-{lo + h - 1:04d},{lo + h + gap:04d}-{lo + k - 1 + gap:04d}]"
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


def converter_document(trace: Any, nb_res: int) -> dict[str, Any]:
    """The jobs as Batsim's converter writes them (module docstring): its members and value types."""
    runs = [int(j.runtime) for j in trace]
    first = min(j.arrival for j in trace)
    jobs = [{"id": i, "subtime": j.arrival - first, "walltime": float(j.estimate), "res": j.size,
             "profile": str(r)} for i, (j, r) in enumerate(zip(trace, runs, strict=True))]
    return {"version": 0, "command": "swf_to_batsim_workload_delay.py jobs.swf w.json", "date": "2026-01-01 00:00:00",
            "description": "this workload had been automatically generated", "nb_res": nb_res, "jobs": jobs,
            "profiles": {str(r): {"type": "delay", "delay": r} for r in sorted(set(runs))}}


def jobs_alone(got: Any) -> Callable[[], list[Any]]:
    """Building a reader's jobs alone, as the reader builds them (a ``Job`` each, field by field,
    with its ``attrs``: six for an sacct dump, two for a Batsim workload; no cyclic garbage
    collection meanwhile), from columns prepared beforehand: the part of the reader's cost that
    is Python objects per job, whatever the parsing costs."""
    jobs = list(got)
    ids, arrivals, runtimes = [j.id for j in jobs], [j.arrival for j in jobs], [j.runtime for j in jobs]
    requests, estimates, sizes = [j.request for j in jobs], [j.estimate for j in jobs], [j.size for j in jobs]
    arrays = (np.array(arrivals), np.array(runtimes))
    keys = list(jobs[0].attrs)
    values = [[j.attrs[k] for j in jobs] for k in keys]
    if keys == ["recorded_wait", "nodes", "slurm_id", "state", "partition", "line"]:
        def make_attrs() -> list[dict[str, Any]]:
            return [{"recorded_wait": w, "nodes": nd, "slurm_id": i, "state": st, "partition": pa, "line": ln}
                    for w, nd, i, st, pa, ln in zip(*values, strict=True)]
    else:
        assert keys == ["batsim_id", "batsim_profile"], keys

        def make_attrs() -> list[dict[str, Any]]:
            return [{"batsim_id": a, "batsim_profile": b} for a, b in zip(*values, strict=True)]

    def build() -> list[Any]:
        with _gc_paused():  # as in the readers
            return _make_jobs(ids, arrivals, requests, runtimes, estimates, sizes, make_attrs(), arrays=arrays)

    return build


def with_records(trace: Any) -> Any:
    """``trace`` after its ``records`` were asked for (returned whole, so that freeing its jobs is
    not timed, as for the other steps)."""
    assert len(trace.records) == len(trace)
    return trace


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """``(wall seconds, CPU seconds, output)`` of one call, after a garbage collection (the previous
    call's output is freed by the caller before this one starts)."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", choices=("sacct", "batsim"), default=None,
                    help="time only the SWF reference and this format's steps")
    args = ap.parse_args(argv)
    c = make_jobs(args.jobs)
    n = args.jobs
    tree = read_slurm_topology_conf(site_conf())
    print(f"python {platform.python_version()}, numpy {np.__version__}, orjson {orjson.__version__}, "
          f"{os.cpu_count()} CPUs; {n:,} jobs, {args.runs} rounds")
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        swf, sacct, wl, jc = folder / "jobs.swf", folder / "site.sacct", folder / "w.json", folder / "s_jobs.csv"
        swf_lines = write_swf_jobs(swf, c)
        sacct_lines = write_sacct(sacct, c)
        rng = np.random.Generator(np.random.PCG64(2))
        scattered = folder / "scattered.sacct"
        write_sacct(scattered, {**c, "size": rng.integers(1, 65, n)}, scattered=True)
        trace = load_swf(swf)
        write_workload(wl, trace, nb_res=NODES)
        data, text = wl.read_bytes(), wl.read_text()
        conv, conv4 = folder / "converter.json", folder / "converter_i4.json"
        for path, indent in ((conv, None), (conv4, 4)):
            with path.open("w") as f:
                json.dump(converter_document(trace, NODES), f, indent=indent, sort_keys=True)
        doc = json.loads(text)
        result = schedule_result(c)
        kept_lines = "\n".join(read_sacct(sacct, tree).records).encode()
        kept = kept_lines.count(b"\n") + 1
        # label, lines, the step, the jobs it handled (from its output; None: n)
        steps: list[tuple[str, int | None, Callable[[], Any], Callable[[Any], int] | None]] = [
            ("SWF load_swf (reference)", swf_lines, lambda: load_swf(swf), len),
            ("sacct read_sacct", sacct_lines, lambda: read_sacct(sacct, tree), len),
            ("  its bytes, lines found", sacct_lines,
             lambda: np.flatnonzero(np.frombuffer(sacct.read_bytes(), dtype=np.uint8) == 10), lambda _: kept),
            ("  its jobs built alone", None, jobs_alone(read_sacct(sacct, tree)), len),
            ("  its job lines as str", None, lambda: kept_lines.decode("utf-8").split("\n"), len),
            ("  with its records", sacct_lines, lambda: with_records(read_sacct(sacct, tree)), len),
            ("  sizes 1-64, scattered", sacct_lines, lambda: read_sacct(scattered, tree), len),
            ("Batsim write_workload", None, lambda: write_workload(wl, trace, nb_res=NODES), None),
            ("Batsim read_workload", None, lambda: read_workload(wl), len),
            ("  converter's layout", None, lambda: read_workload(conv), len),
            ("  converter's, -i 4", None, lambda: read_workload(conv4), len),
            ("  orjson.loads alone", None, lambda: orjson.loads(data), lambda d: len(d["jobs"])),
            ("  its jobs built alone", None, jobs_alone(read_workload(wl)), len),
            ("  json.loads alone", None, lambda: json.loads(text), lambda d: len(d["jobs"])),
            ("  json.dumps alone", None, lambda: json.dumps(doc), None),
            ("Batsim write_jobs_csv", n + 1, lambda: write_jobs_csv(jc, result, trace), None),
            ("Batsim read_jobs_csv", n + 1, lambda: read_jobs_csv(jc), len),
        ]
        if args.only is not None:  # a step's format: the label's first word, its floors following it
            fmt, chosen = "", []
            for step in steps:
                if not step[0].startswith(" "):
                    fmt = step[0].split()[0].lower()
                if fmt in ("swf", args.only):
                    chosen.append(step)
            steps = chosen
        # Rounds: every step once per round, so that each is compared with the SWF reader of its own
        # round (the machine's load changes between rounds, less within one).
        walls: list[list[float]] = [[] for _ in steps]
        cpus: list[list[float]] = [[] for _ in steps]
        jobs = [n] * len(steps)
        for _ in range(args.runs):
            for k, (_, _, fn, count) in enumerate(steps):
                w, cpu, out = timed(fn)
                walls[k].append(w)
                cpus[k].append(cpu)
                if count is not None:
                    jobs[k] = count(out)
                out = None
        if jc.exists():  # the _jobs.csv written by the rounds reads back
            s = read_jobs_csv(jc)
            assert s.starting_time.tolist() == result.table["start"].tolist()
            assert all(np.array_equal(s.placements[i], result.placements[i]) for i in (1, n // 2, n))
    print("CPU seconds, medians over the rounds; 'vs SWF': jobs per CPU second over the SWF reader's of the same "
          "round, median (min-max)")
    print(f"{'step':<26}{'lines':>8}{'jobs':>8}{'wall s':>8}{'CPU s':>7}{'lines/s':>12}{'jobs/s':>12}"
          f"{'vs SWF':>8}  {'range':<11}")
    for k, (label, lines, _, _) in enumerate(steps):
        cpu = statistics.median(cpus[k])
        ratios = [jobs[k] / x / (jobs[0] / ref) for x, ref in zip(cpus[k], cpus[0], strict=True)]
        ls = f"{lines / cpu:,.0f}" if lines else "-"
        print(f"{label:<26}{lines or '-':>8}{jobs[k]:>8}{statistics.median(walls[k]):>8.3f}{cpu:>7.3f}{ls:>12}"
              f"{jobs[k] / cpu:>12,.0f}{statistics.median(ratios):>8.2f}  {min(ratios):.2f}-{max(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
