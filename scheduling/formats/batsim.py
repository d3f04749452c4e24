"""Batsim's files: the input workload (JSON) read and written; the output ``_jobs.csv``, written and
read by :mod:`scheduling.formats.batsim_jobs`, is described here with it.

Sources (read to learn the formats; the code here is this module's own): the Batsim documentation
of ``oar-team/batsim``, ``docs/input-workload.rst`` (jobs, profiles and their types),
``docs/output-jobs.rst`` (the ``_jobs.csv`` columns, "in this order") and
``docs/interval-set.rst`` (the ``allocated_resources`` strings, :mod:`._procset`); Batsim 4.2.1's
profile parser (``src/profiles.cpp``: the profile type names ``delay``, ``parallel``,
``parallel_homogeneous``, ``parallel_homogeneous_total``, ``composed``, ... and their checks) and
its jobs tracer (``src/export.cpp``, ``JobsTracer::initialize``: the column order, which puts
``allocated_resources`` before ``consumed_energy`` -- Batsim 4.2.1's page listed them the other way
round, the current page and both versions' code agree on this order); Batsim 5 renames the profile
types (``DelayProfile``, ``ParallelTaskProfile``, ``ParallelTaskHomogeneousProfile``,
``SequentialCompositionProfile``, ...): both spellings are read.

**Workloads** (:func:`read_workload`, :func:`write_workload`). A workload is a JSON object with
``jobs`` (each ``id``, ``subtime``, ``res``, ``profile``, optional ``walltime``), ``profiles`` (by
name, each with a ``type``) and ``nb_res``. A job becomes a :class:`~scheduling.kernel.jobs.Job`
of ``res`` processors arriving at ``subtime``, its estimate the ``walltime``, its run time its
profile's:

* ``delay``: the profile's ``delay`` seconds;
* ``parallel`` (``cpu`` flops per host, ``com`` bytes from host row to host column, a
  ``n x n`` matrix written row by row) and ``parallel_homogeneous`` (``cpu`` per host, ``com`` per
  pair of distinct hosts; ``parallel_homogeneous_total`` and the ``DefinedAmountsSpreadUniformly``
  strategy divide them by ``n`` and ``n (n - 1)``): only on a platform, given by ``host_speed``
  (flop/s of a host) and ``bandwidth`` (bytes/s of a host's link). Interpretation of SimGrid's
  parallel-task model, in which every computation and transfer of the task progresses at one
  common rate, so the task lasts as long as its most loaded resource:
  ``max(max_i cpu_i / host_speed, max_i (sent_i + received_i) / bandwidth)``, a host's loopback
  (the diagonal) not counted. Without ``host_speed`` and ``bandwidth`` such jobs are **skipped and
  reported** (``no run time without a platform``);
* ``composed`` (a ``seq`` of profile names, ``repeat`` times): the sum of its parts' run times;
* the types whose run time needs files or storage hosts Batsim alone has (``smpi``,
  ``usage_trace``, ``parallel_homogeneous_pfs``, ``data_staging``, ``send``, ``recv`` and their
  Batsim 5 names): the job is skipped and reported (``no run time for this profile type``);
* any other type is an error naming the profile and the type.

The ``com`` matrix of a ``parallel`` profile is kept as ``job.attrs["com"]`` (a read-only
``n x n`` numpy array; a homogeneous profile's as its per-pair amount, ``job.attrs["com_per_pair"]``):
the run-time models of :mod:`scheduling.models.runtime` take one communication pattern per model
(``all-to-all`` or ``nearest-neighbour``) and one fraction per job (``job.comm``), so there is no
place for a per-job matrix in them; ``job.comm`` stays 0. Job ids: when every ``id`` is an
integer (or a string of digits) the job's id is that integer, else the job's position in the
file; the original is ``job.attrs["batsim_id"]`` either way, the profile's name
``job.attrs["batsim_profile"]``.

Filters, each **reported** in the :class:`~scheduling.workloads.SWFReport` (``line`` is the line of
the job's ``{`` in the file): a job larger than the machine (``nb_res``, or ``machine_size``)
is skipped (``too_large="skip"``) or an error (``"error"``); a negative ``subtime`` is skipped.
Everything else that is not a valid workload -- malformed JSON, a job without a field, a ``res``
that is not a positive integer, an unknown profile or profile type, a ``parallel`` profile whose
``com`` is not ``n x n`` -- raises :class:`BatsimError` naming the file, the line and the value.

:func:`write_workload` writes a read workload back whole (every job, skipped ones too, and every
profile: the document as read) or any jobs (an SWF trace, a list): one ``delay`` profile per
distinct run time, named by it, as Batsim's own ``swf_to_batsim_workload_delay.py`` does.

**Job files** (:func:`~scheduling.formats.write_jobs_csv`, :func:`~scheduling.formats.read_jobs_csv`, in
:mod:`scheduling.formats.batsim_jobs`). ``<name>_jobs.csv`` has Batsim's
17 columns (:data:`JOBS_COLUMNS`), one line per finished job of a
:class:`~scheduling.SimulationResult`, in its order; ``allocated_resources`` is the canonical
interval set of the job's nodes (``result.placements``; empty when the run did not record them).
Interpretations: times are written exactly (an integral time as an integer, any other as
Python's shortest round-tripping decimal, where Batsim prints six decimals), so reading back
gives the same floats; ``requested_time`` is the job's estimate, ``-1`` when there is none (Batsim's
"no walltime"); ``consumed_energy`` is ``-1`` (Batsim's value without an energy model);
``final_state`` is ``COMPLETED_SUCCESSFULLY`` with ``success`` 1, except for jobs carrying a
Slurm state (:mod:`.sacct`): ``FAILED``, ``OUT_OF_MEMORY``, ``NODE_FAIL``, ``BOOT_FAIL`` become
``COMPLETED_FAILED``, ``TIMEOUT`` and ``DEADLINE`` ``COMPLETED_WALLTIME_REACHED``,
``CANCELLED`` and ``PREEMPTED`` ``COMPLETED_KILLED`` (``success`` 0); ``stretch`` of a job of
run time 0 is ``inf`` (``nan`` when its turnaround is 0 too), as Batsim's division gives. Jobs the
simulation did not finish are not in the result, so not in the file.

Speed. ``_jobs.csv`` is written by assembling numpy byte columns (:mod:`._columns`: integers and
integral times by digit arithmetic, other floats by ``repr``, contiguous allocations by
:func:`~._procset.interval_cells`, any other interval set by :func:`~._procset.interval_text`;
the lines laid out in one byte matrix and compacted, :func:`~._columns._lines`) and read a
column at a time from its bytes when it is unquoted
(Batsim's own files and ours): fields by :func:`~._columns._split_fields`, numbers by
:func:`~._columns._decimal_fields`, interval sets by :func:`~._procset.parse_text`, the other
columns made strings on first use; a quoted file or one with CRLF line ends goes through the
``csv`` module line by line, which also reports the bad rows (a test checks both agree).

A converted trace -- every profile a ``delay``, every job with the same five keys, all jobs (and
all profiles) in one layout, whatever it is: this module's writer's, ``json.dump`` with any
indentation, key order or separators (Batsim's converter's ``indent=N, sort_keys=True`` among
them) -- is read from its bytes (:mod:`._batsim_fast`: the layout learned from the first job and
profile, the file checked byte for byte against it with numpy over its quote positions, the
numbers made from their digits, each job's profile found by the bytes of its name; anything else
declines) and its jobs built from those columns; ``document`` and ``records`` are then
parsed (by ``orjson``) when first asked for, so a reader that only wants the jobs does
not pay for a Python object per JSON value. Where that path declines, or where a job is skipped or
refused, the file is parsed as JSON (the reference; a test compares the two on every change of
layout, value and error it declines or takes): by ``orjson`` (``orjson.loads`` of the file's
bytes, half of ``json.loads``'s time), its jobs' fields taken and checked a column at a time (one
C-level ``map`` per field, the types by one ``set`` per column, each delay profile's run time by
one dict access per job, the ids' uniqueness by one comparison of neighbours, a sort only when
they are not ascending), the jobs built a field at a time (:func:`~._columns._make_jobs`).
Where orjson refuses a file the standard library's ``json`` reads it, so a file reads as it did
before orjson: a malformed file is the ``json`` module's error (its message, line and column), and
``NaN``, ``Infinity`` and lone surrogate escapes (which only Python's ``json`` takes) are read as
it reads them. orjson reads an integer beyond 64 bits as a float: where that makes the workload
invalid (an ``id``, a ``res``) the standard library's reading is taken instead, so such a ``res``
is a job too large for the machine, as before. Interpretation: elsewhere (a ``subtime``, a
``walltime``, a ``delay``, a field the reader does not use) such an integer is kept in
``document`` and ``records`` as the float orjson reads (the jobs' values are the same, floats
either way; Batsim's own parser, rapidjson, also reads such integers as doubles).

:func:`write_workload` of jobs builds the JSON text itself from byte columns (what ``json.dumps``
writes, byte for byte: a test checks it), a read workload is written back by ``json.dumps``
(``orjson.dumps`` writes no space after ``,`` and ``:``, so its text is not ``json.dumps``'s). ``benchmarks/formats.py``
measures 100,000 jobs each way.

>>> import io, json
>>> doc = {"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 2, "profile": "p", "walltime": 60}],
...        "profiles": {"p": {"type": "delay", "delay": 20.5}}}
>>> w = read_workload(io.StringIO(json.dumps(doc)))
>>> [(j.id, j.arrival, j.size, j.runtime, j.estimate) for j in w], w.machine_size
([(1, 0.0, 2, 20.5, 60.0)], 4)
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import math
import operator
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import orjson

from ..kernel.jobs import Job
from ..workloads import SkippedLine, SWFHeader, SWFReport, SWFTrace
from ._batsim_fast import DelayColumns, delay_jobs, delay_workload, element_lines
from ._columns import (
    _combine,
    _float_text,
    _gc_paused,
    _int_text,
    _literal,
    _make_jobs,
    _num_column,
    _picker,
    _rows,
    _str_text,
    _take,
)
from ._errors import FileLineError

__all__ = [
    "BatsimError",
    "BatsimReport",
    "BatsimWorkload",
    "JOBS_COLUMNS",
    "PROFILE_TYPES",
    "FINAL_STATES",
    "read_workload",
    "write_workload",
]

#: The columns of Batsim's ``_jobs.csv``, in Batsim's order (``docs/output-jobs.rst``; ``src/export.cpp``).
JOBS_COLUMNS: tuple[str, ...] = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources", "requested_time",
    "success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
    "stretch", "allocated_resources", "consumed_energy", "metadata",
)
#: Batsim's final states (``docs/output-jobs.rst``).
FINAL_STATES = ("COMPLETED_SUCCESSFULLY", "COMPLETED_FAILED", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED",
                "REJECTED")
#: The final state written for a job carrying a Slurm state (module docstring).
_FROM_SLURM = {
    "COMPLETED": "COMPLETED_SUCCESSFULLY", "FAILED": "COMPLETED_FAILED", "OUT_OF_MEMORY": "COMPLETED_FAILED",
    "NODE_FAIL": "COMPLETED_FAILED", "BOOT_FAIL": "COMPLETED_FAILED", "TIMEOUT": "COMPLETED_WALLTIME_REACHED",
    "DEADLINE": "COMPLETED_WALLTIME_REACHED", "CANCELLED": "COMPLETED_KILLED", "PREEMPTED": "COMPLETED_KILLED",
}
#: Profile types, Batsim 4 name -> Batsim 5 name.
PROFILE_TYPES: dict[str, str] = {
    "delay": "DelayProfile",
    "parallel": "ParallelTaskProfile",
    "parallel_homogeneous": "ParallelTaskHomogeneousProfile",
    "parallel_homogeneous_total": "ParallelTaskHomogeneousProfile",
    "composed": "SequentialCompositionProfile",
    "parallel_homogeneous_pfs": "ParallelTaskOnStorageHomogeneousProfile",
    "data_staging": "ParallelTaskDataStagingBetweenStoragesProfile",
    "smpi": "TraceReplayProfile",
    "usage_trace": "TraceReplayProfile",
    "send": "SchedulerSendProfile",
    "recv": "SchedulerRecvProfile",
}
_KIND = {**{k: k for k in PROFILE_TYPES}, "DelayProfile": "delay", "ParallelTaskProfile": "parallel",
         "ParallelTaskHomogeneousProfile": "parallel_homogeneous", "SequentialCompositionProfile": "composed",
         "ParallelTaskOnStorageHomogeneousProfile": "parallel_homogeneous_pfs",
         "ParallelTaskDataStagingBetweenStoragesProfile": "data_staging", "TraceReplayProfile": "smpi",
         "SchedulerSendProfile": "send", "SchedulerRecvProfile": "recv"}
_NO_RUNTIME = frozenset(("parallel_homogeneous_pfs", "data_staging", "smpi", "usage_trace", "send", "recv"))
_SPREAD = "DefinedAmountsSpreadUniformly"
_GZIP_MAGIC = b"\x1f\x8b"


class BatsimError(FileLineError):
    """A Batsim file that cannot be read, or a value that cannot be written: the message names the
    file, the line (when there is one) and the bad value; ``file``, ``line`` and ``problem`` hold
    the parts."""


@dataclass
class BatsimReport(SWFReport):
    """What reading a Batsim workload did (an :class:`~scheduling.workloads.SWFReport`: ``lines`` of
    the file, ``records`` = jobs in the file, ``jobs`` kept, every ``skipped`` job with the line of
    its ``{``, the reason and the value)."""

    REASONS = ("negative submit time", "too large for the machine",  # type: ignore[assignment]
               "no run time without a platform", "no run time for this profile type")


# -- reading text -----------------------------------------------------------------------------------
def _read_bytes(source: str | os.PathLike | IO, what: str) -> tuple[bytes | str, str]:
    """``(data, name)`` of a path (plain or gzip, by its magic bytes) or an open file: bytes, or
    the text an open text file gives."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        name = str(path)
        if not path.exists():
            raise FileNotFoundError(f"{what} {name!r} does not exist")
        if path.is_dir():
            raise BatsimError(name, None, f"is a directory, not a {what}")
        data: Any = path.read_bytes()
    else:
        name = str(getattr(source, "name", "") or f"<{what}>")
        data = source.read()
    if isinstance(data, bytes) and data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise BatsimError(name, None, f"is not a valid gzip file ({exc})") from None
    return data, name


def _decoded(data: bytes | str, name: str) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BatsimError(name, line, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


class _Lines:
    """Lines of the jobs (or profiles), computed on first use from the file's bytes or text (decoded
    only then: the file was read as JSON, so it is UTF-8)."""

    def __init__(self, data: bytes | str | None) -> None:
        self.data = data
        self._text: str | None = None
        self._jobs: list[int] | None = None

    @property
    def text(self) -> str | None:
        if self._text is None and self.data is not None:
            self._text = self.data if isinstance(self.data, str) else self.data.decode("utf-8", "surrogatepass")
        return self._text

    def job(self, i: int) -> int | None:
        text = self.text
        if text is None:
            return None
        if self._jobs is None:
            self._jobs = element_lines(text, "jobs")
        return self._jobs[i] if i < len(self._jobs) else None

    def profile(self, name: str) -> int | None:
        text = self.text
        if text is None:
            return None
        at = text.find(json.dumps(name) + ":")
        if at < 0:
            at = text.find(json.dumps(name))
        return text.count("\n", 0, at) + 1 if at >= 0 else None


# -- profiles ---------------------------------------------------------------------------------------
def _is_number(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


def _fsum(values: Sequence[float]) -> float:
    """``math.fsum``, or ``inf`` where its partial sums overflow (it raises ``OverflowError``)."""
    try:
        return math.fsum(values)
    except OverflowError:
        return math.inf


def _finite_sum(values: Sequence[float]) -> bool:
    """Whether the (non-negative) ``values`` are all finite: one C-level sum, which is finite
    exactly then unless it overflows, in which case each value is checked."""
    if math.isfinite(_fsum(values)):
        return True
    return all(map(math.isfinite, values))


class _Profiles:
    """Each profile's kind, checked, and its run time on ``n`` hosts (memoised)."""

    def __init__(self, profiles: Mapping[str, Any], name: str, lines: _Lines, host_speed: float | None,
                 bandwidth: float | None) -> None:
        self.raw = profiles
        self.file = name
        self.lines = lines
        self.speed = host_speed
        self.bandwidth = bandwidth
        self._kind: dict[str, str] | None = {}
        self._quick: list[str] = []  # delay profiles whose kind is not yet in _kind (see kind)
        self.fixed_n: dict[str, int] = {}  # hosts of a parallel profile
        self.matrix: dict[str, np.ndarray] = {}
        self._time: dict[tuple[str, int], float | str] = {}
        #: The run time of each delay profile (most of a converted trace's: one per run time), checked
        #: a column at a time.
        self.delay: dict[str, float] = {}
        names = list(profiles)
        values = list(profiles.values())
        quick: list[str] = []
        if set(map(type, values)) <= {dict}:
            types = list(map(dict.get, values, itertools.repeat("type")))
            delay: list[str]
            amounts: list[Any]
            if types.count("delay") + types.count("DelayProfile") == len(types):  # a converted trace's
                delay, amounts = names, list(map(dict.get, values, itertools.repeat("delay")))
            else:
                delay = [k for k, t in zip(names, types, strict=True) if t == "delay" or t == "DelayProfile"]
                amounts = list(map(dict.get, map(profiles.__getitem__, delay), itertools.repeat("delay")))
            amount_types = set(map(type, amounts))
            if amount_types <= {int, float} and (not amounts or (min(amounts) >= 0 and _finite_sum(amounts))):
                quick = delay
                if len(quick) == len(names):  # every profile a delay: their kinds written when asked for
                    self._kind, self._quick = None, quick
                else:
                    self._kind = dict.fromkeys(quick, "delay")
                self.delay = dict(zip(delay, amounts if amount_types <= {float} else map(float, amounts),
                                      strict=True))
        rest = names if not quick else [] if len(quick) == len(names) else [k for k in names if k not in self.kind]
        for pname in rest:
            self._check(pname, profiles[pname])
            if self.kind[pname] == "delay":
                self.delay[pname] = float(profiles[pname]["delay"])
        #: The profiles whose jobs carry a communication pattern in their attrs.
        self.communicating = {k for k, v in self.kind.items() if k in self.matrix or
                              v in ("parallel_homogeneous", "parallel_homogeneous_total")} \
            if len(self.delay) < len(names) else set()

    @property
    def kind(self) -> dict[str, str]:
        """Each profile's type, by name (Batsim 4 spelling)."""
        if self._kind is None:
            self._kind = dict.fromkeys(self._quick, "delay")
        return self._kind

    def error(self, pname: str, problem: str) -> BatsimError:
        return BatsimError(self.file, self.lines.profile(pname), f"profile {pname!r}: {problem}")

    def _check(self, pname: str, p: Any) -> None:
        if not isinstance(p, dict):
            raise self.error(pname, f"must be a JSON object, got {json.dumps(p)[:60]}")
        ptype = p.get("type")
        if not isinstance(ptype, str):
            raise self.error(pname, f"has no string 'type' (got {ptype!r})")
        kind = _KIND.get(ptype)
        if kind is None:
            raise self.error(pname, f"unknown profile type {ptype!r} (known: {', '.join(sorted(_KIND))})")
        if kind == "smpi" and p.get("trace_type") == "FractionalComputation":
            kind = "usage_trace"
        if ptype == "ParallelTaskHomogeneousProfile" and p.get("generation_strategy") == _SPREAD:
            kind = "parallel_homogeneous_total"
        self.kind[pname] = kind
        if kind == "delay":
            d = p.get("delay")
            if not _is_number(d) or d < 0:  # type: ignore[operator]
                raise self.error(pname, f"'delay' must be a number >= 0, got {d!r}")
        elif kind == "parallel":
            cpu, com = p.get("cpu"), p.get("com")
            if cpu is None and com is None:
                raise self.error(pname, "a parallel profile needs 'cpu' or 'com'")
            n = len(cpu) if isinstance(cpu, list) else None
            for label, values in (("cpu", cpu), ("com", com)):
                if values is not None and (not isinstance(values, list) or not values
                                           or not all(_is_number(v) and v >= 0 for v in values)):
                    raise self.error(pname, f"'{label}' must be a non-empty array of numbers >= 0, got "
                                            f"{json.dumps(values)[:60]}")
            if com is not None:
                m = math.isqrt(len(com))
                if m * m != len(com) or (n is not None and m != n):
                    want = f"{n} x {n} = {n * n}" if n is not None else "a square number of"
                    raise self.error(pname, f"'com' has {len(com)} values, {want} needed (an n x n matrix, row by "
                                            "row)")
                n = m
                mat = np.array(com, dtype=float).reshape(n, n)
                mat.flags.writeable = False
                self.matrix[pname] = mat
            self.fixed_n[pname] = int(n)  # type: ignore[arg-type]
        elif kind in ("parallel_homogeneous", "parallel_homogeneous_total"):
            for label in ("cpu", "com"):
                v = p.get(label, 0)
                if not _is_number(v) or v < 0:
                    raise self.error(pname, f"'{label}' must be a number >= 0, got {v!r}")
        elif kind == "composed":
            seq, repeat = p.get("seq"), p.get("repeat", 1)
            if not isinstance(seq, list) or not seq or not all(isinstance(s, str) for s in seq):
                raise self.error(pname, f"'seq' must be a non-empty array of profile names, got {seq!r}")
            if type(repeat) is not int or repeat < 1:
                raise self.error(pname, f"'repeat' must be an integer >= 1, got {repeat!r}")
            for s in seq:
                if s not in self.raw:
                    raise self.error(pname, f"'seq' names profile {s!r}, which the workload does not define")

    def runtime(self, pname: str, n: int, stack: tuple[str, ...] = ()) -> float | str:
        """The run time on ``n`` hosts, or the reason there is none."""
        key = (pname, n)
        got = self._time.get(key)
        if got is not None:
            return got
        kind = self.kind[pname]
        p = self.raw[pname]
        out: float | str
        if kind == "delay":
            out = float(p["delay"])
        elif kind in _NO_RUNTIME:
            out = "no run time for this profile type"
        elif kind == "composed":
            if pname in stack:
                raise self.error(pname, f"'seq' loops back to itself ({' -> '.join((*stack, pname))})")
            parts = [self.runtime(s, n, (*stack, pname)) for s in p["seq"]]
            bad = next((x for x in parts if isinstance(x, str)), None)
            if bad is not None:
                out = bad
            else:
                total = p.get("repeat", 1) * _fsum(parts)  # type: ignore[arg-type]
                out = total if math.isfinite(total) else "its parts' run times sum past the largest float"
        elif self.speed is None or self.bandwidth is None:
            out = "no run time without a platform"
        else:
            out = self._ptask(pname, kind, p, n)
        self._time[key] = out
        return out

    def _ptask(self, pname: str, kind: str, p: dict, n: int) -> float:
        """SimGrid's parallel task on ``n`` hosts: its most loaded resource's time (module docstring)."""
        assert self.speed is not None and self.bandwidth is not None
        if kind == "parallel":
            flops = np.asarray(p.get("cpu") or [0.0] * self.fixed_n[pname], dtype=float)
            mat = self.matrix.get(pname)
            traffic = 0.0
            if mat is not None:
                off = mat - np.diag(np.diag(mat))
                traffic = float((off.sum(axis=0) + off.sum(axis=1)).max())
            return float(max(float(flops.max()) / self.speed, traffic / self.bandwidth))
        cpu, com = float(p.get("cpu", 0)), float(p.get("com", 0))
        if kind == "parallel_homogeneous_total":
            cpu, com = cpu / n, (com / (n * (n - 1)) if n > 1 else 0.0)
        return float(max(cpu / self.speed, 2 * (n - 1) * com / self.bandwidth))


# -- workloads --------------------------------------------------------------------------------------
class BatsimWorkload(SWFTrace):
    """A Batsim workload as jobs: a workload for :func:`~scheduling.simulate` and a sequence of
    :class:`~scheduling.kernel.jobs.Job` (an :class:`~scheduling.workloads.SWFTrace` in all but its
    source). ``document`` is the JSON object as read (every job and profile; :func:`write_workload`
    writes it back), ``records`` the job objects of the kept jobs (aligned with the jobs),
    ``report`` a :class:`BatsimReport`, ``machine_size`` ``nb_res`` (or the ``machine_size`` given).
    A workload read from its bytes (:mod:`._batsim_fast`) parses ``document`` and ``records`` from
    them when first asked for (``unparsed``: the bytes and the order of the jobs)."""

    def __init__(self, jobs: list[Job], records: list[dict[str, Any]] | None, document: dict[str, Any] | None,
                 report: BatsimReport, machine_size: int | None,
                 unparsed: tuple[bytes, list[int] | None] | None = None) -> None:
        super().__init__(jobs, records, SWFHeader(), report, machine_size)  # type: ignore[arg-type]
        self._document = document
        self._unparsed = unparsed

    def _parse(self) -> None:
        if self._unparsed is not None:
            data, order = self._unparsed
            with _gc_paused():
                self._document = orjson.loads(data)
            raw = self._document["jobs"]
            self._records = list(raw) if order is None else list(map(raw.__getitem__, order))
            self._unparsed = None

    @property
    def document(self) -> dict[str, Any]:
        """The JSON object as read."""
        self._parse()
        return self._document  # type: ignore[return-value]

    @property  # type: ignore[override]
    def records(self) -> list[dict[str, Any]]:
        """The job objects of the kept jobs, aligned with the jobs."""
        self._parse()
        return self._records

    @records.setter  # type: ignore[override]
    def records(self, value: list[dict[str, Any]] | None) -> None:
        self._records = value  # type: ignore[assignment]

    @property
    def profiles(self) -> dict[str, Any]:
        """The profiles by name, as read."""
        return self.document["profiles"]

    def __repr__(self) -> str:
        return f"<BatsimWorkload {self.report.source} {len(self)} jobs on {self.machine_size} resources>"


def read_workload(source: str | os.PathLike | IO | Mapping[str, Any], *, machine_size: int | None = None,
                  too_large: str = "skip", host_speed: float | None = None,
                  bandwidth: float | None = None) -> BatsimWorkload:
    """Read a Batsim workload (a path, plain or gzip; an open file; or the parsed JSON object) as
    jobs, in order of arrival (stable in file order). See the module docstring for the run times,
    the ids, what is kept on ``job.attrs``, what is skipped and reported, and what is an error.

    ``machine_size``: the resources of the machine (default: the workload's ``nb_res``; one of the
    two is needed). ``too_large``: ``"skip"`` (reported) or ``"error"`` for a job whose ``res``
    exceeds it. ``host_speed`` (flop/s) and ``bandwidth`` (bytes/s): the platform parallel-task
    profiles need for a run time. O(size of the file) plus O(jobs log jobs). A converted trace in
    any uniform layout is read from its bytes, its ``document`` parsed when first asked for; any
    other file is parsed by ``orjson``, the standard library's ``json`` reading any file orjson
    refuses (module docstring, "Speed")."""
    if too_large not in ("skip", "error"):
        raise BatsimError("read_workload", None, f"too_large must be 'skip' or 'error', got {too_large!r}")
    for label, v in (("host_speed", host_speed), ("bandwidth", bandwidth)):
        if v is not None and not (_is_number(v) and v > 0):
            raise BatsimError("read_workload", None, f"{label} must be a finite number > 0 or None, got {v!r}")
    with _gc_paused():
        return _read_workload(source, machine_size, too_large, host_speed, bandwidth)


def _read_workload(source: str | os.PathLike | IO | Mapping[str, Any], machine_size: int | None, too_large: str,
                   host_speed: float | None, bandwidth: float | None) -> BatsimWorkload:
    if isinstance(source, Mapping):
        return _from_document(dict(source), "<workload>", None, machine_size, too_large, host_speed, bandwidth)
    data, name = _read_bytes(source, "Batsim workload")
    if isinstance(data, bytes):  # a delay workload of one layout, read from its bytes (or declined)
        columns = delay_workload(data)
        got = None if columns is None else _from_columns(columns, name, data, machine_size)
        if got is not None:
            return got
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:  # the standard library's reading decides: its error, or its value
        return _from_document(_json_document(data, name), name, data, machine_size, too_large, host_speed,
                              bandwidth)
    try:
        return _from_document(doc, name, data, machine_size, too_large, host_speed, bandwidth)
    except BatsimError:  # the standard library's reading decides (its integers beyond 64 bits, which orjson
        # reads as floats, may make a valid workload; else its error is the one raised before orjson)
        return _from_document(_json_document(data, name), name, data, machine_size, too_large, host_speed,
                              bandwidth)


def _from_columns(c: DelayColumns, name: str, data: bytes, machine_size: int | None) -> BatsimWorkload | None:
    """The workload of a delay workload's columns (:func:`~._batsim_fast.delay_jobs`), or ``None``
    where the reader of the JSON document must decide (a job to skip or refuse, ...)."""
    got = delay_jobs(c, machine_size)
    if got is None:
        return None
    jobs, order, reordered, P = got
    report = BatsimReport(source=os.path.basename(name), records=len(jobs), jobs=len(jobs), reordered=reordered)
    report.lines = int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 10)) + (not data.endswith(b"\n"))
    return BatsimWorkload(jobs, None, None, report, P, (data, order))


def _json_document(data: bytes | str, name: str) -> Any:
    """The document as the standard library's ``json`` reads it (NaN, Infinity and integers of any
    size included), or the :class:`BatsimError` naming the file, the line and the column of the
    first thing it cannot read."""
    text = _decoded(data, name)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BatsimError(name, exc.lineno, f"malformed JSON at column {exc.colno}: {exc.msg}") from None


def _from_document(doc: Any, name: str, data: bytes | str | None, machine_size: int | None, too_large: str,
                   host_speed: float | None, bandwidth: float | None) -> BatsimWorkload:
    lines = _Lines(data)
    if not isinstance(doc, dict):
        raise BatsimError(name, 1, f"a workload is a JSON object with 'jobs' and 'profiles', got {type(doc).__name__}")
    for key, kind in (("jobs", list), ("profiles", dict)):
        if not isinstance(doc.get(key), kind):
            raise BatsimError(name, None, f"the workload has no {key!r} {'array' if kind is list else 'object'} "
                                          f"(got {type(doc.get(key)).__name__})")
    nb_res = doc.get("nb_res")
    if nb_res is not None and (type(nb_res) is not int or nb_res < 1):
        raise BatsimError(name, None, f"'nb_res' must be a positive integer, got {nb_res!r}")
    P = machine_size if machine_size is not None else nb_res
    if P is None:
        raise BatsimError(name, None, "the workload has no 'nb_res'; give machine_size")
    if type(P) is not int or P < 1:
        raise BatsimError(name, None, f"machine_size must be a positive integer, got {P!r}")
    profiles = _Profiles(doc["profiles"], name, lines, host_speed, bandwidth)
    report = BatsimReport(source=os.path.basename(name))
    if data:
        newline: Any = "\n" if isinstance(data, str) else b"\n"
        count = (data.count("\n") if isinstance(data, str)  # bytes: one numpy pass (bytes.count is a plain loop)
                 else int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 10)))
        report.lines = count + (not data.endswith(newline))
    raw_jobs: list[Any] = doc["jobs"]
    report.records = len(raw_jobs)
    return _workload_jobs(raw_jobs, doc, profiles, P, too_large, report, name, lines)


def _column(raw_jobs: list[Any], key: str, name: str, lines: _Lines, default: Any = KeyError) -> list[Any]:
    """The value of ``key`` in every job object (``default`` where missing, if given), by one C-level
    ``map``; a job that is not an object, or lacks a required key, is an error naming it."""
    try:
        try:
            return list(map(operator.itemgetter(key), raw_jobs))
        except KeyError:
            if default is KeyError:
                raise
        return list(map(dict.get, raw_jobs, itertools.repeat(key), itertools.repeat(default)))
    except (KeyError, TypeError, AttributeError, IndexError):
        for i, j in enumerate(raw_jobs):
            if not isinstance(j, dict):
                raise BatsimError(name, lines.job(i), f"jobs[{i}] must be a JSON object, got {json.dumps(j)[:60]}"
                                  ) from None
            if key not in j:
                raise BatsimError(name, lines.job(i), f"jobs[{i}] (id {j.get('id')!r}) has no {key!r}") from None
        raise


def _integer_ids(ids: list[Any], id_types: set[type]) -> list[int] | None:
    """Every id as an integer (an integer, or a string of ASCII digits), or ``None`` when one is
    not. O(jobs), C-level."""
    if id_types <= {int}:
        return ids
    if id_types <= {str}:
        joined = "".join(ids)
        if joined.isdigit() and joined.isascii():
            try:
                return list(map(int, ids))
            except ValueError:  # an empty id
                return None
        return None
    if all(type(v) is int or (v.isdigit() and v.isascii()) for v in ids):
        return list(map(int, ids))
    return None


def _distinct(values: list[int]) -> bool:
    """Whether the integers are distinct: one sort of their int64 array (a set beyond 64 bits)."""
    try:
        a = np.fromiter(values, dtype=np.int64, count=len(values))
    except OverflowError:
        return len(set(values)) == len(values)
    if (a[1:] > a[:-1]).all():  # ascending (a converted trace's): distinct without a sort
        return True
    a.sort()
    return bool((a[1:] != a[:-1]).all())


def _same(values: list[Any]) -> list[Any]:
    return values


def _workload_jobs(raw_jobs: list[Any], doc: dict, profiles: _Profiles, P: int, too_large: str,
                   report: BatsimReport, name: str, lines: _Lines) -> BatsimWorkload:
    n = len(raw_jobs)
    ids = _column(raw_jobs, "id", name, lines)
    sub = _column(raw_jobs, "subtime", name, lines)
    res = _column(raw_jobs, "res", name, lines)
    prof = _column(raw_jobs, "profile", name, lines)
    wall = _column(raw_jobs, "walltime", name, lines, None)

    def refuse(i: int, problem: str) -> BatsimError:
        return BatsimError(name, lines.job(i), f"jobs[{i}] (id {ids[i]!r}): {problem}")

    # the columns' types, checked at once; the culprit found only when one is wrong
    id_types = set(map(type, ids))
    if not id_types <= {int, str}:
        i = next(i for i, v in enumerate(ids) if type(v) not in (int, str))
        raise refuse(i, f"'id' must be a string, got {json.dumps(ids[i])}")
    sub_types = set(map(type, sub))
    if not sub_types <= {int, float}:
        i = next(i for i, v in enumerate(sub) if type(v) not in (int, float))
        raise refuse(i, f"'subtime' must be a number, got {json.dumps(sub[i])}")
    sizes_array = _positive_ints(res)
    if sizes_array is None:
        i = next(i for i, v in enumerate(res) if type(v) is not int or v < 1)
        raise refuse(i, f"'res' must be a positive integer, got {json.dumps(res[i])}")
    wall_types = set(map(type, wall))
    if not wall_types <= {int, float, type(None)}:
        i = next(i for i, v in enumerate(wall) if type(v) not in (int, float, type(None)))
        raise refuse(i, f"'walltime' must be a number, got {json.dumps(wall[i])}")
    times: list[Any]
    try:  # a delay profile's run time (one dict access per job), else None
        times = list(map(profiles.delay.__getitem__, prof))
        all_delay = True
    except (KeyError, TypeError):  # a profile of another type, or none
        all_delay = False
        try:
            times = list(map(profiles.delay.get, prof))
        except TypeError:  # an unhashable value (a list, an object)
            times = [None] * n
    if not all_delay:
        for i in [i for i, t in enumerate(times) if t is None]:
            if type(prof[i]) is not str or prof[i] not in profiles.kind:
                raise refuse(i, f"'profile' {prof[i]!r} is not a profile of the workload")
    subtime = np.array(sub, dtype=float)
    if n and not np.isfinite(subtime).all():
        raise refuse(int(np.flatnonzero(~np.isfinite(subtime))[0]), "'subtime' must be finite")
    job_ids = _integer_ids(ids, id_types)  # the ids as integers, when every one is one
    if job_ids is None or not _distinct(job_ids):  # distinct integers are distinct ids: else the ids decide
        str_ids = ids if id_types <= {str} else list(map(str, ids))
        if len(set(str_ids)) != n:
            seen: set[str] = set()
            i = next(i for i, v in enumerate(str_ids) if v in seen or seen.add(v))  # type: ignore[func-returns-value]
            raise refuse(i, "repeats an earlier job's id (ids are unique within a workload)")
        job_ids = list(range(n))  # the job's position ("7" and "007": distinct ids, one integer)
    if profiles.fixed_n:
        for i, (p, r) in enumerate(zip(prof, res, strict=True)):
            fixed = profiles.fixed_n.get(p)
            if fixed is not None and fixed != r:
                raise refuse(i, f"requests {r} resources but its parallel profile {p!r} has {fixed} hosts")
    # run times: one per (profile, res)
    no_time = np.zeros(n, dtype=bool)
    if not all_delay:  # other profiles: one run time per (profile, res); a reason where there is none
        for i in [i for i, t in enumerate(times) if t is None]:
            times[i] = profiles.runtime(prof[i], res[i])
            no_time[i] = isinstance(times[i], str)
    negative = subtime < 0
    big = sizes_array > P
    if too_large == "error" and big.any():
        i = int(np.flatnonzero(big)[0])
        raise refuse(i, f"requests {res[i]} resources, the machine has {P}")
    order: np.ndarray | None
    if negative.any() or big.any() or no_time.any():
        keep = _report_skips(raw_jobs, ids, sub, res, prof, times, negative, big, no_time, profiles, P, report,
                             lines)
        kept = subtime[keep]
        order = keep[np.argsort(kept, kind="stable")]
    else:  # every job kept
        kept = subtime
        order = None if n < 2 or bool((subtime[1:] >= subtime[:-1]).all()) else np.argsort(subtime, kind="stable")
    report.reordered = 0 if order is None and n == len(kept) else int(np.count_nonzero(np.diff(kept) < 0))
    pick: Any = _same if order is None else _picker(order.tolist()) if order.size else (lambda values: [])
    kept_ids, kept_prof = pick(ids), pick(prof)
    matrix = profiles.matrix
    extra: dict[str, dict[str, Any]] = {}
    for p in profiles.communicating & set(prof) if profiles.communicating else ():
        if p in matrix:
            extra[p] = {"com": matrix[p]}
        elif profiles.kind[p] in ("parallel_homogeneous", "parallel_homogeneous_total"):
            extra[p] = {"com_per_pair": float(profiles.raw[p].get("com", 0))}
    if extra:
        attrs = [{"batsim_id": a, "batsim_profile": b, **extra.get(b, {})} for a, b in zip(kept_ids, kept_prof,
                                                                                        strict=True)]
    else:
        attrs = [{"batsim_id": a, "batsim_profile": b} for a, b in zip(kept_ids, kept_prof, strict=True)]
    # the float columns: the file's own float objects where they need no conversion and no reordering,
    # else the arrays' values
    if wall_types <= {int, float}:  # every job has a walltime: its estimate unless <= 0
        w = np.array(wall, dtype=float)
        if order is None and wall_types == {float} and bool((w > 0).all()):
            estimates: list[Any] = wall
        else:
            w = w if order is None else w[order]
            estimates = w.tolist()
            for i in np.flatnonzero(w <= 0).tolist():
                estimates[i] = None
    else:
        estimates = [float(v) if v is not None and v > 0 else None for v in pick(wall)]
    if all_delay:  # the delay profiles' floats
        run = np.fromiter(times, dtype=float, count=n)
        runtimes = times if order is None else pick(times)
        run = run if order is None else run[order]
    else:
        run = np.array([t if not isinstance(t, str) else 0.0 for t in times], dtype=float)
        run = run if order is None else run[order]
        runtimes = run.tolist()
    if order is None and sub_types == {float}:
        arrival, arrivals = subtime, sub
    else:
        arrival = subtime if order is None else subtime[order]
        arrivals = arrival.tolist()
    sizes = pick(res)
    jobs = _make_jobs(pick(job_ids), arrivals, sizes, runtimes, estimates, sizes, attrs, arrays=(arrival, run))
    records = list(raw_jobs) if order is None else pick(raw_jobs)  # a list of its own, not the document's
    report.jobs = len(jobs)
    return BatsimWorkload(jobs, records, doc, report, P)


def _positive_ints(values: list[Any]) -> np.ndarray | None:
    """``values`` as an int64 array when every one is an ``int`` >= 1 (one beyond 64 bits as
    ``2**63 - 1``: larger than any machine), else ``None``. O(n), C-level."""
    if set(map(type, values)) - {int}:
        return None
    try:
        a = np.array(values, dtype=np.int64)
    except OverflowError:  # an integer beyond 64 bits
        if min(values) < 1:
            return None
        return np.fromiter((min(v, _INT64_MAX) for v in values), dtype=np.int64, count=len(values))
    return None if a.size and a.min() < 1 else a


_INT64_MAX = np.iinfo(np.int64).max


def _report_skips(raw_jobs: list[Any], ids: list[Any], sub: list[Any], res: list[Any], prof: list[Any],
                  times: list[Any], negative: np.ndarray, big: np.ndarray, no_time: np.ndarray, profiles: _Profiles,
                  P: int, report: BatsimReport, lines: _Lines) -> np.ndarray:
    """Report every skipped job (one reason each: a negative submit time first, then too large, then
    no run time), in file order; returns the positions of the kept jobs."""
    skip_kind = np.zeros(len(raw_jobs), dtype=np.int8)  # 1 negative subtime, 2 too large, 3 no run time
    skip_kind[negative] = 1
    skip_kind[(skip_kind == 0) & big] = 2
    skip_kind[(skip_kind == 0) & no_time] = 3
    for i in np.flatnonzero(skip_kind).tolist():
        k = int(skip_kind[i])
        if k == 1:
            reason, detail = "negative submit time", f"jobs[{i}] (id {ids[i]!r}): subtime = {sub[i]!r}"
        elif k == 2:
            reason, detail = "too large for the machine", f"jobs[{i}] (id {ids[i]!r}): res = {res[i]} > {P}"
        else:
            reason = str(times[i])
            detail = f"jobs[{i}] (id {ids[i]!r}): profile {prof[i]!r} of type {profiles.raw[prof[i]]['type']!r}"
        report.skipped.append(SkippedLine(lines.job(i) or 0, reason, detail, json.dumps(raw_jobs[i])))
    return np.flatnonzero(skip_kind == 0)


def write_workload(target: str | os.PathLike | IO, workload: Any, *, nb_res: int | None = None,
                   batsim5: bool = False, indent: int | None = None) -> int:
    """Write a Batsim workload JSON; returns the number of jobs written.

    ``workload`` is a :class:`BatsimWorkload` (its ``document`` is written back whole: every job,
    skipped ones too, every profile) or any jobs (an SWF trace, a list of
    :class:`~scheduling.kernel.jobs.Job`): each job becomes ``{"id", "subtime", "res",
    "walltime", "profile"}`` (``res`` its ``size``, else its request as a count; ``walltime`` its
    estimate, left out when it has none; ``id`` its ``attrs["batsim_id"]`` or its id as a
    string) and each distinct run time a ``delay`` profile named by it (``DelayProfile`` with
    ``batsim5=True``). ``nb_res``: default the workload's ``machine_size``, else the largest job.
    Times are written exactly (JSON numbers as Python writes floats). A path ending in ``.gz`` is
    gzipped. O(jobs).

    >>> import io, json
    >>> from scheduling import Job
    >>> out = io.StringIO()
    >>> write_workload(out, [Job(3, 0.0, 2, 10.0, estimate=60.0, size=2)], nb_res=4)
    1
    >>> json.loads(out.getvalue())["profiles"]
    {'10': {'type': 'delay', 'delay': 10.0}}
    """
    with _gc_paused():
        return _write_workload(target, workload, nb_res, batsim5, indent)


def _write_workload(target: str | os.PathLike | IO, workload: Any, nb_res: int | None, batsim5: bool,
                    indent: int | None) -> int:
    if isinstance(workload, BatsimWorkload):
        doc = workload.document
        if nb_res is not None:
            doc = {**doc, "nb_res": nb_res}
    elif indent is None:  # the common case: the text built a column at a time
        jobs = _job_list(workload)
        _write_text(target, _document_text(jobs, workload, nb_res, batsim5))
        return len(jobs)
    else:
        doc = _document(workload, nb_res, batsim5)
    try:
        text = json.dumps(doc, indent=indent, allow_nan=False)
    except ValueError as exc:  # a non-finite number
        raise BatsimError("write_workload", None, f"the workload holds a value JSON cannot write ({exc})") from None
    _write_text(target, text + "\n")
    return len(doc["jobs"])


def _job_list(workload: Any) -> list[Job]:
    jobs = list(workload.jobs(0) if hasattr(workload, "jobs") and callable(workload.jobs) else workload)
    if not all(type(j) is Job for j in jobs):
        for j in jobs:
            if not isinstance(j, Job):
                raise BatsimError("write_workload", None, f"expected jobs, got {j!r}")
    return jobs


def _document_text(jobs: list[Job], workload: Any, nb_res: int | None, batsim5: bool) -> bytes:
    """The text ``json.dumps(_document(...)) + "\\n"`` gives, built a column at a time: each job's
    fields and each profile's as numpy text columns (:mod:`._columns`), assembled with their
    literal keys by one scatter per piece; the strings escaped by the ``json`` module's own
    encoder. O(jobs) numpy work plus one ``repr`` per non-integral time."""
    n = len(jobs)
    arrival = np.fromiter(map(_ARRIVAL, jobs), dtype=float, count=n)
    runtime = np.fromiter(map(_RUNTIME, jobs), dtype=float, count=n)
    sizes = [j.size if j.size is not None else _count(j.request) for j in jobs]
    estimates = list(map(_ESTIMATE, jobs))
    timed = np.flatnonzero(np.fromiter((e is not None for e in estimates), dtype=bool, count=n))
    walltime = np.array([estimates[i] for i in timed.tolist()], dtype=float)
    for label, values, rows in (("arrival", arrival, np.arange(n)), ("estimate", walltime, timed)):
        if not np.isfinite(values).all():
            bad = jobs[int(rows[np.flatnonzero(~np.isfinite(values))[0]])]
            raise BatsimError("write_workload", None, f"job {bad.id}: its {label} {getattr(bad, label)!r} is not a "
                                                      "finite number (JSON has none)")
    if nb_res is None:
        nb_res = getattr(workload, "machine_size", None) or max(sizes, default=1)
    # one delay profile per distinct run time, in order of first use, named by it
    distinct, first, which = np.unique(runtime, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    names = _float_text(distinct[order])
    m = order.size
    head = b'": {"type": ' + (b'"DelayProfile"' if batsim5 else b'"delay"') + b', "delay": '
    profiles = _rows([_literal(b'"', m), names, _literal(head, m), _float_text(distinct[order], json=True),
                      _literal(b"}, ", m)], m)[0]
    named = [a.get("batsim_id") for a in map(_ATTRS, jobs)]
    if named.count(None) == n:
        ids = _rows([_literal(b'"', n), _int_text(np.fromiter(map(_ID, jobs), dtype=np.int64, count=n)),
                     _literal(b'"', n)], n)
    else:
        ids = _str_text([_json_string(str(v) if v is not None else str(j.id))
                         for v, j in zip(named, jobs, strict=True)])
    k = timed.size
    wall = _combine(n, [(timed, _rows([_literal(b', "walltime": ', k), _float_text(walltime, json=True)], k))])
    body = _rows([_literal(b'{"id": ', n), ids, _literal(b', "subtime": ', n), _float_text(arrival, json=True),
                  _literal(b', "res": ', n), _int_text(np.array(sizes, dtype=np.int64)),
                  _literal(b', "profile": "', n), _take(names, rank[which.ravel()]), _literal(b'"', n), wall,
                  _literal(b"}, ", n)], n)[0]
    return (b'{"nb_res": ' + str(int(nb_res)).encode() + b', "jobs": [' + body[:-2].tobytes() + b'], "profiles": {'
            + profiles[:-2].tobytes() + b"}}\n")


_ARRIVAL, _RUNTIME, _ESTIMATE, _ATTRS, _ID = map(operator.attrgetter, ("arrival", "runtime", "estimate", "attrs", "id"))
_json_string = json.encoder.encode_basestring_ascii


def _document(workload: Any, nb_res: int | None, batsim5: bool) -> dict[str, Any]:
    jobs = list(workload.jobs(0) if hasattr(workload, "jobs") and callable(workload.jobs) else workload)
    for j in jobs:
        if not isinstance(j, Job):
            raise BatsimError("write_workload", None, f"expected jobs, got {j!r}")
    sizes = [j.size if j.size is not None else _count(j.request) for j in jobs]
    delay = "DelayProfile" if batsim5 else "delay"
    runtimes = np.array([j.runtime for j in jobs], dtype=float)
    names = _num_column(runtimes)
    profiles = {nm: {"type": delay, "delay": float(t)} for nm, t in zip(names, runtimes.tolist(), strict=True)}
    out_jobs = []
    for j, n, nm in zip(jobs, sizes, names, strict=True):
        d: dict[str, Any] = {"id": str(j.attrs.get("batsim_id", j.id)), "subtime": float(j.arrival), "res": int(n),
                             "profile": nm}
        if j.estimate is not None:
            d["walltime"] = float(j.estimate)
        out_jobs.append(d)
    if nb_res is None:
        nb_res = getattr(workload, "machine_size", None) or max(sizes, default=1)
    return {"nb_res": int(nb_res), "jobs": out_jobs, "profiles": profiles}


def _count(request: Any) -> int:
    if isinstance(request, int) and not isinstance(request, bool):
        return request
    count = getattr(request, "count", None)
    if isinstance(count, int):
        return count
    if isinstance(request, tuple) and len(request) == 2:
        return int(request[0]) * int(request[1])
    raise BatsimError("write_workload", None, f"cannot count the resources of request {request!r}; give jobs a size")


def _write_text(target: str | os.PathLike | IO, text: str | bytes | np.ndarray) -> None:
    """Write ``text`` (str, or UTF-8 bytes, or their uint8 array: written without a copy to a path
    or a binary file) to a path (gzipped when it ends in ``.gz``) or an open file (text or binary)."""
    data: Any = text
    if isinstance(text, np.ndarray):
        binary = isinstance(target, str | os.PathLike | io.BufferedIOBase | io.RawIOBase)
        data = text.data if binary else text.tobytes()  # its memoryview, or a copy for any other writer
    elif isinstance(text, str):
        data = text.encode("utf-8", "surrogatepass")
    if isinstance(target, str | os.PathLike):
        path = Path(target)
        if path.name.endswith(".gz"):
            with gzip.open(path, "wb") as fh:
                fh.write(data)
        else:
            path.write_bytes(data)
    elif isinstance(target, io.TextIOBase):
        target.write(bytes(data).decode("utf-8", "surrogatepass"))
    else:
        target.write(data)
