"""topoalloc against a peer: AccaSim (Galleguillos et al., "AccaSim: a customizable workload
management simulator for job dispatching research in HPC systems", Cluster Computing 2020).

Runs the ``lublin_256`` trace (from ``$TOPOALLOC_TRACES``, default ``../shared/traces``) on a flat
256-processor machine with FIFO and with EASY backfilling in both simulators, checks that the FIFO
schedules are identical job for job (start and end of every job), and prints the ratios of wall
time and of CPU time (on a loaded machine the CPU time is the steadier figure: time spent waiting
for a core is not counted).

AccaSim is a benchmark-only dependency (``pip install topoalloc[peer]`` or ``pip install accasim``).
Its last release (1.1.3) still does ``from collections import Mapping``, which Python 3.10 removed;
this script adds that alias (``collections.Mapping = collections.abc.Mapping``) before importing
it and changes nothing else. Both simulators read the same SWF file, written to a temporary
directory with the requested time (field 9) set to the run time where it is unknown, which is what
:func:`~scheduling.workloads.load_swf` uses as the estimate (AccaSim would otherwise take ``-1``).
The machine is 256 AccaSim nodes of one core each (a job of ``n`` processors asks for ``n`` nodes).
The AccaSim run includes its own SWF parsing and writing of its schedule file (its normal mode);
topoalloc's includes reading the SWF file. The best wall time and the best CPU time
(``time.process_time``) are kept: of ``--repeat`` runs for AccaSim, of at least five for topoalloc
(a run takes well under a second; the best of several filters out noise from other processes).

Notes on EASY: the two EASY schedules are not compared. AccaSim's ``EASYBackfilling`` computes the
blocked job's reservation once, then backfills with ``reserved_nodes=[]``, so a backfilled job is
never kept off the nodes the head needs and can delay the head; topoalloc's ``EASY`` never does.

Whole processes: ``--whole-process`` also times each simulator as a user runs it, one fresh
process per run (elapsed wall time, ``time.perf_counter`` around the child, and its CPU time, user
plus system, from ``resource.getrusage(RUSAGE_CHILDREN)`` before and after, which counts every
thread of the child): ``topoalloc replay`` of the file with the policy on a flat 256-processor
``FlatPool`` (imports, reading the trace, simulating, printing its table), and a Python process
that imports AccaSim and runs the same simulation. Those figures include each package's import
time; the in-process ones do not.

Usage::

    python benchmarks/peer_accasim.py [--jobs N] [--repeat R] [--skip-easy | --skip-fifo] [--whole-process]
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import gzip
import json
import logging
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scheduling import simulate
from scheduling.workloads import load_swf, trace_path
from topoalloc import FlatPool
from topologies import Flat

P = 256


def prepare(workdir: Path, jobs: int | None) -> Path:
    """The trace as plain SWF for both simulators, with estimates filled in."""
    src = trace_path("lublin_256")
    out = workdir / "lublin_256.swf"
    n = 0
    with gzip.open(src, "rt") if src.name.endswith(".gz") else open(src) as fh, open(out, "w") as dst:
        for line in fh:
            if line.lstrip().startswith(";") or not line.strip():
                dst.write(line)
                continue
            if jobs is not None and n >= jobs:
                break
            parts = line.split()
            if parts[8] == "-1":
                parts[8] = parts[3]
            dst.write(" ".join(parts) + "\n")
            n += 1
    return out


def run_topoalloc(path: Path, policy: str) -> tuple[tuple[float, float], dict[int, tuple[float, float]]]:
    """One in-process run: ``((wall s, CPU s), schedule)``."""
    t0, c0 = time.perf_counter(), time.process_time()
    trace = load_swf(path, machine_size=P)
    result = simulate(FlatPool(Flat(P)), policy, trace, jobs=None)
    took = time.perf_counter() - t0, time.process_time() - c0
    sched = {i: (s, e) for i, s, e, _ in result.schedule()}
    return took, sched


def _import_accasim():
    if not hasattr(collections, "Mapping"):
        collections.Mapping = collections.abc.Mapping  # AccaSim 1.1.3 on Python >= 3.10
    from accasim.base.allocator_class import FirstFit
    from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut
    from accasim.base.simulator_class import Simulator

    return Simulator, FirstInFirstOut, EASYBackfilling, FirstFit


def run_accasim(path: Path, policy: str, workdir: Path) -> tuple[tuple[float, float], dict[int, tuple[float, float]]]:
    """One in-process AccaSim run: ``((wall s, CPU s), schedule)``."""
    Simulator, FirstInFirstOut, EASYBackfilling, FirstFit = _import_accasim()
    config = workdir / "system.config"
    config.write_text(json.dumps({"groups": {"g": {"core": 1}}, "resources": {"g": P}}))
    results = workdir / f"accasim-{policy}"
    dispatcher = FirstInFirstOut(FirstFit()) if policy == "FCFS" else EASYBackfilling(FirstFit())
    schedule_format = {
        "format": "{job_id};{queue_time};{start_time};{end_time}",
        "attributes": {
            "job_id": ("id", "str"),
            "queue_time": ("queued_time", "int"),
            "start_time": ("start_time", "int"),
            "end_time": ("end_time", "int"),
        },
    }
    logging.getLogger("accasim").setLevel(logging.WARNING)
    cwd = os.getcwd()
    os.chdir(workdir)  # AccaSim writes its results folder relative to the current directory
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        sim = Simulator(str(path), str(config), dispatcher, RESULTS_FOLDER_NAME=str(results),
                        SCHEDULE_OUTPUT=schedule_format, show_statistics=False, statistics_output=False)
        files = sim.start_simulation()
        took = time.perf_counter() - t0, time.process_time() - c0
    finally:
        os.chdir(cwd)
    sched: dict[int, tuple[float, float]] = {}
    with open(os.path.join(workdir, files["sched-"])) as fh:
        for line in fh:
            jid, _, start, end = line.strip().split(";")[:4]
            sched[int(jid)] = (float(start), float(end))
    return took, sched


def _child_env() -> dict[str, str]:
    """The environment of the timed processes: imports from cached bytecode, as a user has them
    (``PYTHONDONTWRITEBYTECODE`` would make every run compile the sources again)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _cpu_children() -> float:
    """CPU seconds (user plus system) of the child processes waited for so far."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """``(elapsed wall s, CPU s)`` of ``cmd`` as a fresh process."""
    t0, c0 = time.perf_counter(), _cpu_children()
    subprocess.run(cmd, cwd=cwd, env=_child_env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, _cpu_children() - c0


def _best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The least wall time and the least CPU time of several runs."""
    return min(w for w, _ in runs), min(c for _, c in runs)


def whole_process(path: Path, policy: str, workdir: Path,
                  repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Best ``(wall, CPU)`` times of fresh processes: ``topoalloc replay`` (at least three) and
    AccaSim (``repeat``)."""
    ours_cmd = [sys.executable, "-m", "scheduling.cli", "replay", str(path), "--topology", f"flat:{P}",
                "--allocators", "FlatPool", "--policies", policy, "--no-progress", "--workers", "1"]
    theirs_cmd = [sys.executable, str(Path(__file__).resolve()), "--child-accasim", policy, str(path)]
    _timed(ours_cmd, workdir)  # warm the file and bytecode caches (AccaSim's are warm from the in-process run)
    ours = _best([_timed(ours_cmd, workdir) for _ in range(max(repeat, 3))])
    theirs = _best([_timed(theirs_cmd, workdir) for _ in range(repeat)])
    return ours, theirs


def _load() -> str:
    """The machine's load averages (1, 5 and 15 minutes) at the end of the run, where the system
    reports them: other processes on the machine slow both simulators, AccaSim's long runs more."""
    try:
        one, five, fifteen = os.getloadavg()
    except (AttributeError, OSError):
        return "load average unknown"
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} cores"


def compare(ours: dict[int, tuple[float, float]], theirs: dict[int, tuple[float, float]]) -> list[int]:
    """Ids whose (start, end) differ, plus ids missing on one side."""
    ids = set(ours) | set(theirs)
    return sorted(i for i in ids if ours.get(i) != theirs.get(i))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=None, help="only the first N jobs of the trace")
    ap.add_argument("--repeat", type=int, default=1, help="timing repetitions (best kept)")
    skip = ap.add_mutually_exclusive_group()
    skip.add_argument("--skip-easy", action="store_true", help="FIFO only")
    skip.add_argument("--skip-fifo", action="store_true", help="EASY only (AccaSim's FIFO run is the long one)")
    ap.add_argument("--whole-process", action="store_true",
                    help="also time each simulator as a fresh process, imports included")
    ap.add_argument("--child-accasim", nargs=2, metavar=("POLICY", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_accasim:  # one AccaSim run as its own process (for --whole-process)
        policy, path = args.child_accasim
        with tempfile.TemporaryDirectory() as tmp:
            run_accasim(Path(path), policy, Path(tmp))
        return 0
    try:
        _import_accasim()
    except ImportError as exc:
        print(f"AccaSim is not importable ({exc}); install it with: pip install accasim", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        path = prepare(workdir, args.jobs)
        rows = []
        pairs = [("FCFS", "FIFO"), ("EASY", "EASY")]
        for policy, theirs_name in pairs[1:] if args.skip_fifo else pairs[:1] if args.skip_easy else pairs:
            ours_t, theirs_t = [], []
            for _ in range(max(args.repeat, 5)):  # cheap: always at least 5 timings
                t, ours = run_topoalloc(path, policy)
                ours_t.append(t)
            for _ in range(args.repeat):
                t, theirs = run_accasim(path, policy, workdir)
                theirs_t.append(t)
            diff = compare(ours, theirs)
            if policy == "FCFS":
                verdict = "identical" if not diff else f"{len(diff)} jobs differ (first: {diff[:5]})"
                if diff:
                    status = 1
            else:
                verdict = f"not compared ({len(diff)} of {len(ours)} jobs differ)"
            whole = whole_process(path, policy, workdir, args.repeat) if args.whole_process else None
            rows.append((theirs_name, len(ours), _best(ours_t), _best(theirs_t), verdict, whole))
        print(f"lublin_256, {P} processors, FlatPool vs AccaSim FirstFit; best wall and CPU times of "
              f"{max(args.repeat, 5)} (topoalloc) and {args.repeat} (AccaSim) runs; {_load()}")
        head = (f"{'policy':8} {'topoalloc s':>12} {'AccaSim s':>10} {'ratio':>7} {'CPU: ours':>10} {'AccaSim':>8} "
                f"{'ratio':>7}")
        print(f"{'policy':8} {'jobs':>6}" + head[8:] + "  schedules")
        for name, n, ours, theirs, verdict, _ in rows:
            print(f"{name:8} {n:6d} {ours[0]:12.3f} {theirs[0]:10.2f} {theirs[0] / ours[0]:6.0f}x "
                  f"{ours[1]:10.3f} {theirs[1]:8.2f} {theirs[1] / ours[1]:6.0f}x  {verdict}")
        if args.whole_process:
            print(f"\nwhole processes (wall and CPU, best of {max(args.repeat, 3)} and {args.repeat}): "
                  "topoalloc replay vs a Python process running AccaSim")
            print(head)
            for name, _, _, _, _, (ours, theirs) in rows:
                print(f"{name:8} {ours[0]:12.2f} {theirs[0]:10.2f} {theirs[0] / ours[0]:6.0f}x "
                      f"{ours[1]:10.2f} {theirs[1]:8.2f} {theirs[1] / ours[1]:6.0f}x")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
