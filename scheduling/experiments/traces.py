"""The ``Trace`` workload model: a recorded SWF log as the workload of an experiment file.

::

    topology = "flat:320"
    # loads = "recorded"          # the default for a trace: one point at the log's own arrival rate
    # loads = [0.6, 0.8]          # or offered loads: the arrival gaps are scaled to reach each one
    [workload]
    model = { name = "Trace", file = "CTC-SP2-1996-3.1-cln", month = "1996-08", nonzero_cpu = true }

Parameters (:func:`trace_workload`):

* ``file`` -- the trace's **name** in the traces directory, found with
  :func:`~scheduling.formats.trace_files.trace_path` (``$TOPOALLOC_TRACES``, default ``../shared/traces``;
  the suffixes ``.swf``/``.swf.gz`` may be left out). Paths are refused, so an experiment file and
  its stored configuration name no machine's directories. A missing trace is reported when the file
  is loaded, naming the trace, the directory and ``TOPOALLOC_TRACES``.
* ``month = "YYYY-MM"`` -- keep the jobs submitted in that calendar month, in the log's own time
  zone (header ``TimeZoneString``; if the time-zone database lacks it, the fixed ``TimeZone``
  offset, else UTC), found from the header's ``UnixStartTime``; or ``window = [start, end]`` --
  submit times in ``[start, end)`` seconds from the log's start. At most one of the two.
* ``too_large`` -- jobs larger than the machine: ``"skip"`` (default), ``"clamp"`` or ``"error"``;
  ``size`` -- ``"requested"`` (default) or ``"allocated"`` processors
  (:func:`~scheduling.formats.swf_load.load_swf`).
* ``nonzero_cpu`` -- keep only jobs whose average CPU time is positive (seed 004 §5 keeps the jobs
  "with nonzero CPU time"; ``-1``, unknown, is dropped too).
* ``known_wait`` -- keep only jobs whose recorded wait (SWF field 3) is known (not ``-1``): the
  jobs the ``Recorded`` pseudo-policy (:class:`~scheduling.policies.Recorded`, the log's own
  schedule) can replay, so that every scheduler of a study runs on the same jobs.
  :meth:`TraceWorkload.unknown_waits` counts the jobs the filter drops.
* ``limit`` -- keep only the first ``limit`` jobs left after the other filters (quick looks).

**Loads.** A point's ``load`` is ``None`` for the recorded rate (tables print ``trace``) or an
offered load: every arrival gap is divided by ``load / offered_load`` of the kept jobs on the
machine (:func:`~scheduling.formats.swf_load.offered_load`; the first arrival stays). A trace is one
sample: the seed is not used and experiments default to one replication. The model makes
processor-count requests (``flat`` topologies, and switch trees, where a count is a request and a
``[constraints]`` table may attach topology constraints); ``topoalloc replay`` replays a trace on a
mesh or a cube too. Parsed traces are cached per process (keyed by path, modification time and filters), so
the points of a sweep that share a worker read the log once. O(lines of the log) per parse.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._validate import check_int, check_real

__all__ = ["TraceParameterError", "TraceWorkload", "trace_workload", "month_window", "TRACE_SIZE_FIELDS", "TOO_LARGE"]

#: Allowed ``too_large`` values and ``size`` fields (those of :func:`~scheduling.formats.swf_load.load_swf`).
TOO_LARGE = ("skip", "clamp", "error")
TRACE_SIZE_FIELDS = ("requested", "allocated")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


class TraceParameterError(ValueError):
    """A bad ``Trace`` model parameter; ``param`` names it."""

    def __init__(self, param: str, message: str) -> None:
        self.param = param
        super().__init__(message)


def month_window(header: Any, month: str) -> tuple[float, float]:
    """``(start, end)`` in seconds from the log's start of calendar month ``"YYYY-MM"`` in the
    log's time zone (see the module docstring); :class:`ValueError` when the header has no
    ``UnixStartTime`` or the month begins before the log.

    >>> from scheduling.formats import SWFHeader
    >>> month_window(SWFHeader(unix_start_time=0, time_zone_string="UTC"), "1970-02")
    (2678400.0, 5097600.0)
    """
    m = _MONTH.match(month) if isinstance(month, str) else None
    if m is None or not 1 <= int(m.group(2)) <= 12:
        raise ValueError(f"month must be a string 'YYYY-MM', got {month!r}")
    if header.unix_start_time is None:
        raise ValueError("month needs the trace's UnixStartTime header, which it lacks; give a window instead")
    tz: dt.tzinfo = dt.UTC
    try:
        from zoneinfo import ZoneInfo

        if header.time_zone_string:
            tz = ZoneInfo(header.time_zone_string)
    except Exception:  # no time-zone database: the header's fixed offset
        if header.time_zone is not None:
            tz = dt.timezone(dt.timedelta(seconds=header.time_zone))
    year, mon = int(m.group(1)), int(m.group(2))
    lo = dt.datetime(year, mon, 1, tzinfo=tz).timestamp() - header.unix_start_time
    nxt = (year + 1, 1) if mon == 12 else (year, mon + 1)
    hi = dt.datetime(*nxt, 1, tzinfo=tz).timestamp() - header.unix_start_time
    if lo < 0:
        raise ValueError(f"month {month} begins before the trace (which starts at Unix time "
                         f"{header.unix_start_time}, {header.start_time or 'no StartTime header'})")
    return float(lo), float(hi)


@functools.lru_cache(maxsize=8)
def _window_jobs(path: str, _mtime: int, machine_size: int, window: tuple[float, float] | None, too_large: str,
                 size: str) -> tuple[tuple[Any, ...], Any]:
    from topologies import Flat

    from ..formats.swf_load import load_swf

    trace = load_swf(path, topology=Flat(machine_size), window=window, too_large=too_large, size=size)
    return tuple(trace), trace.report


@dataclass(frozen=True)
class TraceWorkload:
    """A trace with its filters at one ``load`` (``None``: as recorded); :meth:`jobs` reads it.

    The file is parsed on the first :meth:`jobs` call, not at construction, so validating an
    experiment file only checks that the trace exists (and reads its header for ``month``)."""

    name: str
    path: Path
    machine_size: int
    load: float | None = None
    window: tuple[float, float] | None = None
    too_large: str = "skip"
    size: str = "requested"
    nonzero_cpu: bool = False
    limit: int | None = None
    known_wait: bool = False

    def _filtered(self, known_wait: bool) -> tuple[Any, ...]:
        jobs, _ = _window_jobs(str(self.path), self.path.stat().st_mtime_ns, self.machine_size, self.window,
                               self.too_large, self.size)
        if self.nonzero_cpu:
            jobs = tuple(j for j in jobs if j.attrs["swf"].average_cpu_time > 0)
        if known_wait:
            from ..policies.recorded import recorded_wait

            jobs = tuple(j for j in jobs if recorded_wait(j) is not None)
        return jobs

    def recorded(self) -> list[Any]:
        """The kept jobs at the recorded arrival rate."""
        jobs = self._filtered(self.known_wait)
        kept = list(jobs[: self.limit] if self.limit is not None else jobs)
        if not kept:
            where = f" in window {self.window}" if self.window else ""
            raise ValueError(f"trace {self.name!r}: no job left{where} on {self.machine_size} processors "
                             f"(too_large={self.too_large!r}, nonzero_cpu={self.nonzero_cpu}, "
                             f"known_wait={self.known_wait})")
        return kept

    def unknown_waits(self) -> int:
        """How many jobs the other filters keep whose recorded wait is unknown (SWF field 3 = -1):
        those ``known_wait`` drops, or those :class:`~scheduling.policies.Recorded` never starts
        (before ``limit``)."""
        return len(self._filtered(False)) - len(self._filtered(True))

    def offered_load(self) -> float:
        """The recorded offered load of the kept jobs on the machine."""
        from ..formats.swf_load import offered_load

        return offered_load(self.recorded(), self.machine_size)

    def jobs(self, seed: int = 0) -> list[Any]:
        """The jobs in arrival order (``seed`` is ignored: a trace is one sample), their arrival
        gaps scaled to the offered ``load`` if one is set."""
        jobs = self.recorded()
        if self.load is None:
            return jobs
        now = self.offered_load()
        if not now > 0:
            raise ValueError(f"trace {self.name!r}: the kept jobs offer no load; cannot scale them to {self.load}")
        factor = self.load / now
        first = jobs[0].arrival
        return [dataclasses.replace(j, arrival=first + (j.arrival - first) / factor) for j in jobs]


def trace_workload(load: float | None, machine_size: int, *, file: str | None = None, month: str | None = None,
                   window: list[float] | tuple[float, float] | None = None, too_large: str = "skip",
                   size: str = "requested", nonzero_cpu: bool = False, limit: int | None = None,
                   known_wait: bool = False) -> TraceWorkload:
    """The ``Trace`` workload model's factory (see the module docstring). Raises
    :class:`~scheduling.formats.trace_files.TraceNotFoundError` (a :class:`FileNotFoundError`) when the
    trace is not in the traces directory and :class:`ValueError` naming the parameter for a bad
    value."""
    from ..formats.swf_load import load_swf
    from ..formats.trace_files import TRACES_ENV, trace_path

    if file is None:
        raise TraceParameterError("file", "Trace: file (the trace's name in the traces directory) is required")
    if not isinstance(file, str) or not file.strip():
        raise TraceParameterError("file", f"Trace: file must be a trace name, got {file!r}")
    if "/" in file or "\\" in file or Path(file).is_absolute():
        raise TraceParameterError("file", f"Trace: file must be a trace name in the traces directory "
                                          f"(${TRACES_ENV}, default ../shared/traces), not a path: {file!r}")
    if too_large not in TOO_LARGE:
        raise TraceParameterError("too_large", f"Trace: too_large must be one of {', '.join(TOO_LARGE)}; "
                                               f"got {too_large!r}")
    if size not in TRACE_SIZE_FIELDS:
        raise TraceParameterError("size", f"Trace: size must be one of {', '.join(TRACE_SIZE_FIELDS)}; got {size!r}")
    if not isinstance(nonzero_cpu, bool):
        raise TraceParameterError("nonzero_cpu", f"Trace: nonzero_cpu must be true or false, got {nonzero_cpu!r}")
    if not isinstance(known_wait, bool):
        raise TraceParameterError("known_wait", f"Trace: known_wait must be true or false, got {known_wait!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise TraceParameterError("limit", f"Trace: limit must be a positive integer, got {limit!r}")
    if month is not None and window is not None:
        raise TraceParameterError("window", "Trace: give month or window, not both")
    win: tuple[float, float] | None = None
    if window is not None:
        ok = isinstance(window, list | tuple) and len(window) == 2 and all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in window)
        if not ok or not 0 <= window[0] < window[1]:
            raise TraceParameterError("window", f"Trace: window must be [start, end] seconds from the log's "
                                                f"start with 0 <= start < end, got {window!r}")
        win = (float(window[0]), float(window[1]))
    if load is not None:
        check_real(load, "Trace: an offered load", low=0, low_open=True)
    check_int(machine_size, "Trace: machine_size", low=1)
    path = trace_path(file)  # TraceNotFoundError names the directory and TOPOALLOC_TRACES
    if month is not None:
        try:
            win = month_window(load_swf(path, limit=1).header, month)
        except ValueError as exc:
            raise TraceParameterError("month", f"Trace {file!r}: {exc}") from None
    return TraceWorkload(file, path, int(machine_size), None if load is None else float(load), win, too_large,
                         size, nonzero_cpu, limit, known_wait)
