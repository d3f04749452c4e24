"""A trace file of any supported format, recognised and loaded as jobs; a recorded schedule replayed
with its recorded nodes.

What ``topoalloc replay`` calls for its ``TRACE`` argument:

* :func:`detect_format` -- ``"swf"`` (Standard Workload Format), ``"batsim"`` (a Batsim workload
  JSON), ``"sacct"`` (an ``sacct --parsable2`` dump) or ``"batsim-jobs"`` (a Batsim ``_jobs.csv``:
  a schedule, not a workload, so it is refused by :func:`load_trace`), from the file's first
  bytes (gzip is opened first), not its name: a JSON object starts with ``{``, an ``sacct`` dump
  with a header line of ``|``-separated column names including ``JobID``, a Batsim jobs file with
  ``job_id,``, an SWF file with ``;`` comments or digits. Anything else is a :class:`TraceFormatError`
  naming the file and what it starts with.
* :func:`load_trace` -- the jobs, as :func:`~scheduling.workloads.load_swf` gives them for SWF
  (an :class:`~scheduling.workloads.SWFTrace`: ``report``, ``machine_size``, ``offered_load``,
  ``rate_factor_for``), the same for the other formats (:class:`~.batsim.BatsimWorkload`,
  :class:`~.sacct.SacctTrace` are ``SWFTrace`` subclasses): ``topology`` makes each job's request
  (``topology.request_for(size)``) and bounds the sizes (``too_large``: ``"skip"``, reported;
  ``"clamp"``, listed in ``report.clamped``; ``"error"``); ``rate_factor`` divides the gaps
  between arrivals. An ``sacct`` dump's node names are mapped on ``topology`` when it is a
  :class:`~topologies.SwitchTree` and ``map_nodes`` is not ``False`` (``topoalloc replay`` maps
  them only on a tree read from the site's file, ``tree:FILE``: a tree given by its level counts
  has made-up node names), else not at all.
* :func:`replay_recorded` -- the recorded schedule **with its recorded nodes** as a
  :class:`~scheduling.SimulationResult`: the ``Recorded`` pseudo-policy
  (:class:`~scheduling.policies.recorded.Recorded`: each job starts at its arrival plus its
  recorded wait, on the nodes of ``job.attrs["nodes"]`` when it has them), so that on the site's
  tree the result has the locality columns every simulated run has (``leaf_switches``,
  ``mean_hops``, ``components``) and its ``placements``. ``topoalloc replay --policies Recorded``
  runs the same policy.

>>> import io, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "w.json")
>>> _ = open(path, "w").write('{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 2, "profile": "d"}],'
...                           ' "profiles": {"d": {"type": "delay", "delay": 5}}}')
>>> detect_format(path), [(j.id, j.size, j.runtime) for j in load_trace(path)]
('batsim', [(1, 2, 5.0)])
"""

from __future__ import annotations

import dataclasses
import os
import sys
import zlib
from pathlib import Path
from typing import Any

from ..kernel.jobs import Job
from ..kernel.result import SimulationResult

__all__ = ["TRACE_FORMATS", "TraceFormatError", "detect_format", "load_trace", "replay_recorded"]

#: The formats :func:`load_trace` reads.
TRACE_FORMATS = ("swf", "batsim", "sacct")
_GZIP_MAGIC = b"\x1f\x8b"


class TraceFormatError(ValueError):
    """A file that is not a trace of a known format (or a format that holds no workload)."""


def _head(path: Path, size: int = 8192) -> bytes:
    """The first ``size`` bytes of the file's text, gunzipped when it is gzip: as much as the first
    64 KiB decompress to, so a truncated or corrupt stream is left to the format's reader to
    report in its own words (an unreadable gzip header gives ``b""``)."""
    with open(path, "rb") as fh:
        raw = fh.read(size if fh.peek(2)[:2] != _GZIP_MAGIC else 1 << 16)
    if raw[:2] != _GZIP_MAGIC:
        return raw
    try:
        return zlib.decompressobj(wbits=16 + zlib.MAX_WBITS).decompress(raw, size)
    except zlib.error:
        return b""


def detect_format(path: str | os.PathLike) -> str:
    """``"swf"``, ``"batsim"``, ``"sacct"`` or ``"batsim-jobs"``, from the first bytes of the file
    at ``path`` (module docstring). O(1): reads at most 8 KiB.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "log.txt")
    >>> _ = open(p, "w").write("JobID|Submit|Start|End|NNodes|NodeList|State\\n")
    >>> detect_format(p)
    'sacct'
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"trace {str(p)!r} is not a file")
    head = _head(p).decode("utf-8", errors="replace")
    body = head.lstrip("\ufeff \t\r\n")
    if body.startswith("{"):
        return "batsim"
    first = body.split("\n", 1)[0].strip()
    if "|" in first and "JobID" in first.split("|"):
        return "sacct"
    if first.startswith("job_id,"):
        return "batsim-jobs"
    if not body or first.startswith(";") or first[:1].isdigit() or first[:1] in "+-.":
        return "swf"
    raise TraceFormatError(f"{p}: not a trace of a known format ({', '.join(TRACE_FORMATS)}): it starts with "
                           f"{first[:60]!r}")


def load_trace(path: str | os.PathLike, topology: Any = None, *, rate_factor: float = 1.0,
               too_large: str = "skip", fmt: str | None = None, host_speed: float | None = None,
               bandwidth: float | None = None, map_nodes: bool | None = None) -> Any:
    """The jobs of the trace at ``path`` (module docstring), in arrival order, with their
    ``report``. ``fmt`` overrides :func:`detect_format`. ``host_speed`` and ``bandwidth``: the
    platform a Batsim workload's parallel-task profiles need (:func:`~.batsim.read_workload`).
    ``map_nodes``: whether an ``sacct`` dump's ``NodeList`` names are mapped on ``topology``
    (``None``: when it is a :class:`~topologies.SwitchTree`; ``True`` requires one).
    Errors of the readers (:class:`~scheduling.workloads.SWFError`, :class:`~.batsim.BatsimError`,
    :class:`~.sacct.SacctError`) pass through. O(file).
    """
    if too_large not in ("skip", "clamp", "error"):
        raise TraceFormatError(f"too_large must be 'skip', 'clamp' or 'error', got {too_large!r}")
    if isinstance(rate_factor, bool) or not isinstance(rate_factor, int | float) or not 0 < rate_factor < float("inf"):
        raise TraceFormatError(f"rate_factor must be a finite number > 0, got {rate_factor!r}")
    kind = fmt or detect_format(path)
    if kind == "swf":
        from ..workloads import load_swf

        return load_swf(path, topology=topology, rate_factor=rate_factor, too_large=too_large)
    if kind == "batsim-jobs":
        raise TraceFormatError(f"{path}: a Batsim _jobs.csv is a schedule (what Batsim wrote), not a workload; "
                               "replay its workload JSON, or read it with scheduling.formats.batsim_jobs.read_jobs_csv")
    size = getattr(topology, "size", None)
    trace: Any
    if kind == "batsim":
        from .batsim import read_workload

        trace = read_workload(path, machine_size=sys.maxsize if too_large == "clamp" else size,
                              too_large="skip" if too_large == "clamp" else too_large, host_speed=host_speed,
                              bandwidth=bandwidth)
        if size is None:
            size = trace.machine_size
    elif kind == "sacct":
        from topologies import SwitchTree

        from .sacct import read_sacct

        if map_nodes and not isinstance(topology, SwitchTree):
            raise TraceFormatError(f"{path}: map_nodes=True needs a SwitchTree with the dump's node names, got "
                                   f"{topology!r}")
        tree = topology if isinstance(topology, SwitchTree) and map_nodes is not False else None
        trace = read_sacct(path, tree, machine_size=None if tree is not None else size)
        if too_large == "error" and trace.report.counts.get("too large for the machine"):
            first = next(s for s in trace.report.skipped if s.reason == "too large for the machine")
            raise TraceFormatError(f"{path}, line {first.line}: {first.detail}")
    else:
        raise TraceFormatError(f"unknown trace format {kind!r} (known: {', '.join(TRACE_FORMATS)})")
    _fit(trace, topology, size if too_large == "clamp" else None, rate_factor)
    return trace


def _fit(trace: Any, topology: Any, clamp_to: int | None, rate_factor: float) -> None:
    """Make each job's request for ``topology`` (``request_for``), clamp sizes above ``clamp_to``
    (listed in ``report.clamped`` by line), divide the arrival gaps by ``rate_factor``: the jobs
    are rebuilt only when something changes. Jobs whose size the topology has no request for are
    dropped and reported (``no request on the topology``)."""
    jobs: list[Job] = trace._jobs
    request_for = getattr(topology, "request_for", None)
    requests: dict[int, Any] = {}
    first = jobs[0].arrival if jobs else 0.0
    out: list[Job] = []
    kept: list[int] = []
    changed = False
    report = trace.report
    for k, j in enumerate(jobs):
        n = j.size if j.size is not None else j.request
        if clamp_to is not None and n > clamp_to:
            n = clamp_to
            report.clamped.append(int(j.attrs.get("line", j.id)))
        req = j.request
        if request_for is not None:
            if n not in requests:
                try:
                    requests[n] = request_for(n)
                except (ValueError, TypeError) as exc:
                    requests[n] = exc
            req = requests[n]
            if isinstance(req, Exception):
                from ..workloads import SkippedLine

                report.skipped.append(SkippedLine(int(j.attrs.get("line", 0)), "no request on the topology",
                                                  f"job {j.id}: {n} processors: {req}", ""))
                changed = True
                continue
        elif n != j.size:
            req = n
        arrival = j.arrival if rate_factor == 1.0 else first + (j.arrival - first) / rate_factor
        if req != j.request or n != j.size or arrival != j.arrival:
            j = dataclasses.replace(j, request=req, size=n, arrival=arrival)
            changed = True
        out.append(j)
        kept.append(k)
    if changed:
        trace._jobs = out
        if len(out) != len(jobs):
            trace.records = [trace.records[k] for k in kept]
            report.skipped.sort(key=lambda s: s.line)
        report.jobs = len(out)
    if clamp_to is not None:
        trace.machine_size = clamp_to


def replay_recorded(trace: Any, topology: Any = None) -> SimulationResult:
    """The recorded schedule of ``trace`` (jobs carrying ``recorded_wait`` and ``nodes``, as
    :func:`~.sacct.read_sacct` makes them) with its recorded nodes, as a result (the
    :class:`~scheduling.policies.recorded.Recorded` policy, which starts each job on its recorded
    nodes; a job without nodes on none): on a :class:`~topologies.SwitchTree` (default: the trace's
    ``topology``) the table has ``leaf_switches``, ``mean_hops`` and ``components`` per job and
    ``placements`` the nodes; its ``allocator`` is ``"recorded"``. O(jobs log jobs) plus the
    locality measures.

    >>> import io
    >>> from topologies.tree_files import read_slurm_topology_conf
    >>> from scheduling.formats.sacct import read_sacct
    >>> tree = read_slurm_topology_conf("SwitchName=s0 Nodes=n[1-2]\\nSwitchName=s1 Nodes=n[3-4]\\n"
    ...                                 "SwitchName=top Switches=s[0-1]\\n")
    >>> dump = ("JobID|Submit|Start|End|NNodes|NodeList|State\\n"
    ...         "1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|2|n[2-3]|COMPLETED\\n")
    >>> r = replay_recorded(read_sacct(io.StringIO(dump), tree))
    >>> r.start.tolist(), r.leaf_switches.tolist(), r.mean_hops.tolist(), r.placements[1].tolist()
    ([10.0], [2], [4.0], [1, 2])
    """
    from topoalloc import FirstFree, FlatPool
    from topologies import Flat, SwitchTree

    from ..kernel.api import simulate
    from ..policies.recorded import Recorded

    topo = topology if topology is not None else getattr(trace, "topology", None)
    if isinstance(topo, SwitchTree):
        allocator: Any = FirstFree(topo)
    else:
        size = getattr(topo, "size", None) or getattr(trace, "machine_size", None)
        if not size:
            size = max((j.size or 1 for j in trace), default=1)
        allocator = FlatPool(Flat(int(size)))
    result = simulate(allocator, Recorded(), list(trace), jobs=None, record_placement=True)
    return dataclasses.replace(result, allocator="recorded")
