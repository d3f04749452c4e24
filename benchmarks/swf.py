"""SWF reader throughput: lines per second of ``load_swf`` on each shared trace.

    python benchmarks/swf.py                       # every trace in $TOPOALLOC_TRACES, median of 5 runs
    python benchmarks/swf.py --runs 3 lublin_256   # some traces
    python benchmarks/swf.py --against c1a5192     # also the reader of that git revision, side by side

Each run reads the whole trace into jobs (``load_swf(path)``: gzip, parsing, filters, the report,
the :class:`~scheduling.kernel.jobs.Job` objects). Lines per second is the file's line count over the
median time; both wall-clock and process CPU time are given (on a shared machine the CPU figure is
the steadier one). The issue's target (issue 10 §3) is at least 300,000 lines/s on every shared
trace. ``--against REV`` loads ``scheduling/workloads/swf.py`` of that revision from git into this
process and times it on the same files, alternating runs, and checks that both give the same jobs
and the same skip report.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduling.workloads import load_swf, traces_dir  # noqa: E402

TRACES = ("lublin_256", "NASA-iPSC-1993-3.1-cln", "SDSC-Par-1996-3.1-cln", "CTC-SP2-1996-3.1-cln",
          "SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-cln")


def reader_at(rev: str) -> Callable[..., Any]:
    """``load_swf`` of git revision ``rev``, loaded as a module of this package (for its relative imports)."""
    src = subprocess.run(["git", "show", f"{rev}:scheduling/workloads/swf.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    name = f"scheduling.workloads._swf_{rev}"
    mod = types.ModuleType(name)
    mod.__package__ = "scheduling.workloads"
    sys.modules[name] = mod  # dataclasses look their module up
    exec(compile(src, f"{rev}:scheduling/workloads/swf.py", "exec"), mod.__dict__)
    return mod.load_swf


def timed(read: Callable[..., Any], path: Path) -> tuple[float, float, Any]:
    """``(wall seconds, CPU seconds, trace)`` of one read (earlier runs' garbage collected first, so
    that no run pays for another's)."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    trace = read(path)
    return time.perf_counter() - w, time.process_time() - c, trace


def same(a: Any, b: Any) -> bool:
    """The two readers' traces have the same jobs and the same report."""
    ja = [(j.id, j.arrival, j.request, j.runtime, j.estimate, j.size, j.attrs["line"], tuple(
        getattr(j.attrs["swf"], f) for f in ("job_id", "submit_time", "run_time", "user_id"))) for j in a]
    jb = [(j.id, j.arrival, j.request, j.runtime, j.estimate, j.size, j.attrs["line"], tuple(
        getattr(j.attrs["swf"], f) for f in ("job_id", "submit_time", "run_time", "user_id"))) for j in b]
    ra, rb = a.report, b.report
    skips = [[(s.line, s.reason, s.detail, s.text) for s in r.skipped] for r in (ra, rb)]
    return ja == jb and skips[0] == skips[1] and (ra.lines, ra.records, ra.jobs) == (rb.lines, rb.records, rb.jobs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="*", help="trace names (default: the six shared traces)")
    ap.add_argument("--runs", type=int, default=5, help="runs per trace and reader (default: 5)")
    ap.add_argument("--against", metavar="REV", help="also time the reader of this git revision")
    args = ap.parse_args(argv)
    base = traces_dir()
    old = reader_at(args.against) if args.against else None
    print(f"load_swf, median of {args.runs} runs; Python {platform.python_version()}, load average "
          f"{os.getloadavg()[0]:.2f}, traces in {base}")
    head = f"{'trace':<24} {'lines':>7} {'wall s':>7} {'lines/s':>9} {'CPU s':>6} {'lines/s':>9}"
    if old:
        head += f"   {'old CPU s':>9} {'lines/s':>8} {'speed-up':>8}"
    print(head)
    for name in args.traces or TRACES:
        path = next((base / (name + s) for s in ("", ".swf.gz", ".swf") if (base / (name + s)).is_file()), None)
        if path is None:
            print(f"{name:<24} (not found in {base})")
            continue
        new_t, old_t = [], []
        trace = otrace = None
        for _ in range(args.runs):
            trace = otrace = None  # one trace in memory at a time, as a user has
            w, c, trace = timed(load_swf, path)
            new_t.append((w, c))
            if old:
                trace = None
                ow, oc, otrace = timed(old, path)
                old_t.append((ow, oc))
        if old:
            trace = load_swf(path)  # to compare with the old reader's
        lines = trace.report.lines
        w = statistics.median(t[0] for t in new_t)
        c = statistics.median(t[1] for t in new_t)
        row = f"{name[:24]:<24} {lines:7d} {w:7.3f} {lines / w:9,.0f} {c:6.3f} {lines / c:9,.0f}"
        if old:
            oc = statistics.median(t[1] for t in old_t)
            row += f"   {oc:9.3f} {lines / oc:8,.0f} {oc / c:7.1f}x" + ("" if same(trace, otrace) else "  DIFFERENT")
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
