"""Writing SWF: records (:func:`write_records`) and simulated schedules (:func:`write_swf`), so that
other tools (evalys, the archive's own scripts) can read them; the nodes each job ran on go to a
sidecar file (:mod:`scheduling.formats.placements`), since SWF has no field for them.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ..kernel.jobs import Job
from .swf_records import SWFHeader, SWFRecord

__all__ = ["write_records", "write_swf"]


def _open_out(target: str | os.PathLike | IO) -> tuple[IO[str], bool]:
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if path.name.endswith(".gz"):
            return io.TextIOWrapper(gzip.open(path, "wb"), encoding="utf-8", newline="\n"), True
        return open(path, "w", encoding="utf-8", newline="\n"), True
    return target, False


def write_records(target: str | os.PathLike | IO, records: Iterable[SWFRecord],
                  header: SWFHeader | Sequence[str] | None = None) -> int:
    """Write ``records`` as SWF lines after ``header`` (an :class:`SWFHeader`, whose ``fields`` are
    written as ``; Label: value`` lines, or ready-made lines). A path ending in ``.gz`` is gzipped.
    Returns the number of records written."""
    out, owned = _open_out(target)
    count = 0
    try:
        if header is not None:
            lines = header.to_lines() if isinstance(header, SWFHeader) else list(header)
            for h in lines:
                out.write((h if h.startswith(";") else "; " + h) + "\n")
        for rec in records:
            out.write(rec.to_line() + "\n")
            count += 1
    finally:
        if owned:
            out.close()
    return count


def write_swf(target: str | os.PathLike | IO, result: Any, jobs: Iterable[Job] | None = None, *,
              header: SWFHeader | None = None, note: str | None = None,
              placements: str | os.PathLike | bool | None = None) -> int:
    """Write a simulated schedule as SWF, one line per job of ``result`` (a
    :class:`~scheduling.SimulationResult`), in arrival order.

    Written from the simulation: job number (the job's id), submit time (arrival), wait time (start - arrival), run
    time (end - start), allocated processors (granted), status 1 (completed). From the original ``jobs`` (matched by
    id), when given: requested processors (``job.size``), requested time (``job.estimate``), and, for jobs read by
    :func:`~scheduling.formats.swf_load.load_swf`, the requested memory, user, group, executable, queue, partition,
    preceding job and think time of the original record. Average CPU time and used memory are measurements of the
    original run and are written as -1. The header gives ``MaxProcs``/``MaxNodes`` = the simulated machine, the
    policy and allocator, and ``UnixStartTime``/``TimeZoneString`` copied from ``header`` (the original trace's)
    when given. Times that are whole numbers are written as integers, others exactly (as Python writes floats), so
    :func:`~scheduling.formats.swf_read.read_swf` reads back the same values. Returns the number of jobs written.

    SWF has no field for the nodes a job ran on, so when ``result`` recorded placements
    (``record_placement=True``) they go to a sidecar file
    (:func:`~scheduling.formats.placements.write_placements`): ``placements`` is its path, or by default
    ``<target>.nodes.csv`` next to a ``target`` path (``False``: none).
    """
    table = result.table
    originals: dict[int, Job] = {}
    if jobs is not None:
        for j in jobs:
            originals[j.id] = j
    lines = [
        "Version: 2.2",
        "Computer: topoalloc simulation",
        f"Note: simulated schedule, policy {getattr(result, 'policy', '?')}, allocator "
        f"{getattr(result, 'allocator', '?')}",
    ]
    if note:
        lines.append(f"Note: {note}")
    lines += [f"MaxJobs: {len(table)}", f"MaxRecords: {len(table)}", f"MaxNodes: {result.size}",
              f"MaxProcs: {result.size}"]
    if header is not None:
        for attr, label in (("unix_start_time", "UnixStartTime"), ("time_zone", "TimeZone"),
                            ("time_zone_string", "TimeZoneString")):
            value = getattr(header, attr)
            if value is not None:
                lines.append(f"{label}: {value}")

    def records() -> Iterator[SWFRecord]:
        for row in table:
            jid = int(row["id"])
            arrival, start, end = float(row["arrival"]), float(row["start"]), float(row["end"])
            job = originals.get(jid)
            orig = job.attrs.get("swf") if job is not None else None
            req_procs = int(job.size) if job is not None and job.size is not None else int(row["requested"])
            req_time = float(job.estimate) if job is not None and job.estimate is not None else -1
            if orig is not None:
                extra = (orig.requested_memory, 1, orig.user_id, orig.group_id, orig.executable, orig.queue,
                         orig.partition, orig.preceding_job, orig.think_time)
            else:
                extra = (-1, 1, -1, -1, -1, -1, -1, -1, -1)
            yield SWFRecord(jid, arrival, start - arrival, end - start, int(row["granted"]), -1, -1, req_procs,
                            req_time, *extra)

    written = write_records(target, records(), lines)
    recorded = getattr(result, "placements", None)
    if recorded is not None and placements is not False:
        if placements is None or placements is True:
            if not isinstance(target, str | os.PathLike):
                if placements is True:
                    raise ValueError("placements=True needs a target path (or give the sidecar's path)")
                return written
            placements = f"{os.fspath(target)}.nodes.csv"
        from .placements import write_placements

        write_placements(placements, recorded)
    return written
