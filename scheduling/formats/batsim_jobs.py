"""Batsim's output ``_jobs.csv``: one row per job with its times, final state and the interval set
of the resources it ran on (``allocated_resources``, e.g. ``0-3 8``), written from any
:class:`~scheduling.SimulationResult` and read back exactly (:class:`BatsimSchedule`).

The columns, their order and meanings are Batsim's (``docs/output-jobs.rst`` and the writer in
``src/export.cpp`` of ``oar-team/batsim``): :data:`JOBS_COLUMNS`. The workload JSON side is
:mod:`scheduling.formats.batsim`.
"""

from __future__ import annotations

import csv
import io
import itertools
import operator
import os
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from ..kernel.jobs import Job
from ..workloads import SWFReport
from ._columns import (
    _columns,
    _decimal_fields,
    _field_strings,
    _float_cells,
    _gather,
    _gc_paused,
    _int_cells,
    _lines,
    _literal,
    _literal_cells,
    _quoted,
    _split_fields,
    _str_text,
)
from ._procset import IntervalSetError, interval_cells, interval_text, parse_column, parse_text
from .batsim import _FROM_SLURM, JOBS_COLUMNS, BatsimError, _decoded, _read_bytes, _write_text

__all__ = ["BatsimSchedule", "write_jobs_csv", "read_jobs_csv", "jobs_csv_name"]

def jobs_csv_name(name: str) -> str:
    """The file name Batsim gives the jobs file of output prefix ``name``: ``<name>_jobs.csv``.

    >>> jobs_csv_name("FirstFree-FCFS")
    'FirstFree-FCFS_jobs.csv'
    """
    return f"{name}_jobs.csv"


def write_jobs_csv(target: str | os.PathLike | IO, result: Any, jobs: Iterable[Job] | None = None, *,
                   workload_name: str = "w0") -> int:
    """Write the finished jobs of ``result`` (a :class:`~scheduling.SimulationResult`) as Batsim's
    ``_jobs.csv`` (:data:`JOBS_COLUMNS`, one line per job in the result's order); returns the
    number of jobs written. ``jobs`` (the workload's jobs, matched by id) give each job's Batsim id
    and profile name (``attrs["batsim_id"]``, ``attrs["batsim_profile"]``), its requested resources
    (``size``) and time (``estimate``) and its Slurm state (``attrs["state"]``); without them the
    result's ``requested`` count is written and ``requested_time`` is ``-1``. See the module
    docstring for the values. O(jobs + nodes) numpy work.

    >>> import io
    >>> from scheduling import Job, simulate
    >>> from topoalloc import FirstFree; from topologies import SwitchTree
    >>> jobs = [Job(0, 0.0, 3, 5.0), Job(1, 1.0, 2, 2.0)]
    >>> r = simulate(FirstFree(SwitchTree.uniform((2, 4))), "FCFS", jobs, jobs=None, record_placement=True)
    >>> out = io.StringIO(); write_jobs_csv(out, r)
    2
    >>> print(out.getvalue().splitlines()[1])
    0,w0,,0,3,-1,1,COMPLETED_SUCCESSFULLY,0,5,5,0,5,1,0-2,-1,
    """
    with _gc_paused():
        return _write_jobs_csv(target, result, jobs, workload_name)


def _write_jobs_csv(target: str | os.PathLike | IO, result: Any, jobs: Iterable[Job] | None,
                    workload_name: str) -> int:
    if not isinstance(workload_name, str) or any(c in workload_name for c in ",\n\r\""):
        raise BatsimError("write_jobs_csv", None, f"workload_name {workload_name!r} must be a string without a CSV "
                                                  "delimiter")
    table = result.table
    n = len(table)
    ids = table["id"]
    id_list = ids.tolist()
    found: list[Job | None] = []
    if jobs is not None:
        listed = jobs if isinstance(jobs, list) else list(jobs)
        job_ids = list(map(_ID, listed))
        if job_ids == id_list and bool((ids[1:] > ids[:-1]).all()):  # the result's own order, distinct ids
            found = list(listed)
        else:
            by_id = dict(zip(job_ids, listed, strict=True))
            found = list(map(by_id.get, id_list))
    every = bool(found) and type(None) not in set(map(type, found))  # every job known: C-level passes below
    attrs = list(map(_ATTRS, found)) if every else [j.attrs if j is not None else _NO_ATTRS for j in found] \
        if found else [_NO_ATTRS] * n
    arrival, start, end = table["arrival"], table["start"], table["end"]
    execution = end - start
    turnaround = end - arrival
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = turnaround / execution
    req_res = table["requested"].astype(np.int64)
    req_time = np.full(n, -1.0)
    if found:  # the workload's own request and estimate, where the job is known
        sizes = list(map(_SIZE, found)) if every else [j.size if j is not None else None for j in found]
        if sizes.count(None) == 0:
            req_res = np.fromiter(sizes, dtype=np.int64, count=n)
        else:
            known = np.flatnonzero(np.fromiter((v is not None for v in sizes), dtype=bool, count=n))
            req_res[known] = np.array([sizes[k] for k in known.tolist()], dtype=np.int64)
        est = list(map(_ESTIMATE, found)) if every else [j.estimate if j is not None else None for j in found]
        if est.count(None) == 0:
            req_time = np.fromiter(est, dtype=float, count=n)
        else:
            known = np.flatnonzero(np.fromiter((v is not None for v in est), dtype=bool, count=n))
            req_time[known] = np.array([est[k] for k in known.tolist()], dtype=float)
    named, profiles, slurm = (_values(attrs, key) for key in ("batsim_id", "batsim_profile", "state"))
    if named.count(None) == n:
        job_id = _int_cells(ids)
    else:
        job_id = _str_text(_quoted([str(v) if v is not None else str(i) for v, i in zip(named, id_list, strict=True)]))
    profile = _literal_cells(b"", n) if profiles.count(None) == n else _str_text(
        _quoted(["" if v is None else str(v) for v in profiles]))
    if slurm.count(None) == n:
        state, success = _literal_cells(b"COMPLETED_SUCCESSFULLY", n), _literal_cells(b"1", n)
    else:
        states = [_FROM_SLURM.get(s if s is not None else "COMPLETED", "COMPLETED_SUCCESSFULLY") for s in slurm]
        state = _str_text(states)
        success = _str_text(["1" if s == "COMPLETED_SUCCESSFULLY" else "0" for s in states])
    placements = getattr(result, "placements", None)
    if placements:
        empty = np.zeros(0, dtype=np.int64)
        parts = list(map(placements.get, id_list, itertools.repeat(empty)))
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=n), out=offsets[1:])
        nodes = np.concatenate(parts) if parts else empty
        alloc = interval_cells(nodes, offsets) or interval_text(nodes, offsets)  # cells: contiguous allocations
    else:
        alloc = _literal_cells(b"", n)
    # the numbers and constants as cells, the strings packed: one matrix of the lines (_lines)
    name = workload_name.encode("utf-8")
    columns = [job_id, _literal(name, n) if b"\0" in name else _literal_cells(name, n), profile, _float_cells(arrival),
               _int_cells(req_res), _float_cells(req_time), success, state, _float_cells(start),
               _float_cells(execution), _float_cells(end), _float_cells(start - arrival), _float_cells(turnaround),
               _float_cells(stretch), alloc, _literal_cells(b"-1", n), _literal_cells(b"", n)]
    _write_text(target, _lines(columns, n, b",", b"\n", (",".join(JOBS_COLUMNS) + "\n").encode("ascii")))
    return n


_NO_ATTRS: dict[str, Any] = {}
_ID, _ATTRS, _SIZE, _ESTIMATE = map(operator.attrgetter, ("id", "attrs", "size", "estimate"))


def _values(attrs: list[Any], key: str) -> list[Any]:
    """``a.get(key)`` of each job's ``attrs``: one C-level ``map`` over plain dicts."""
    try:
        return list(map(dict.get, attrs, itertools.repeat(key)))
    except TypeError:  # an attrs mapping that is not a dict
        return [a.get(key) for a in attrs]


@dataclass
class BatsimSchedule:
    """A Batsim ``_jobs.csv`` as columns (:func:`read_jobs_csv`). Every column of the file is in
    ``columns`` (name -> list of strings, or a float array for the numeric ones); the common ones
    are attributes: ``job_id`` (strings), ``ids`` (int64 when every job id is an integer, else
    ``None``), ``submission_time``, ``starting_time``, ``finish_time`` (float, NaN where empty: a
    rejected job), ``final_state``; the nodes of each job are ``placements`` (job id -> read-only
    ascending node ids, keyed by the integer ids when there are any, else by the strings).
    The schedule's columns (``submission_time``, ``starting_time``, ``finish_time``,
    ``requested_number_of_resources``, ``allocated_resources``) are converted and checked when the
    file is read; the others that hold numbers (``requested_time``, ``success``, and the derived
    ``execution_time``, ``waiting_time``, ``turnaround_time``, ``stretch``, ``consumed_energy``)
    on first access (a value that is not a number is then a :class:`BatsimError` naming its line;
    ``success`` is an int64 column when every value is an integer). ``report`` lists the rows
    skipped."""

    source: str
    header: tuple[str, ...]
    columns: MutableMapping[str, Any]
    nodes: np.ndarray
    offsets: np.ndarray
    report: SWFReport = field(default_factory=SWFReport)

    def __len__(self) -> int:
        return len(self.job_id)

    @property
    def job_id(self) -> list[str]:
        return self.columns["job_id"]

    @property
    def ids(self) -> np.ndarray | None:
        got = self.columns.get("_ids")
        return got if isinstance(got, np.ndarray) else None

    def __getattr__(self, name: str) -> Any:
        cols = self.__dict__.get("columns")
        if cols is not None and name in cols:
            value = cols[name]
            if (name in _DERIVED or name == "success") and isinstance(value, list):  # converted on first use
                value = self._derived(name, value)
                if name == "success" and np.isfinite(value).all() and (value == np.round(value)).all():
                    value = value.astype(np.int64)
                cols[name] = value
            return value
        raise AttributeError(name)

    def _derived(self, name: str, values: list[str]) -> np.ndarray:
        filled = [v if v else "nan" for v in values]
        try:
            return np.array(filled, dtype=float)
        except ValueError:
            for i, v in enumerate(filled):
                try:
                    float(v)
                except ValueError:
                    raise BatsimError(self.source, self.columns["_lines"][i], f"{name} = {v!r} is not a number"
                                      ) from None
            raise

    @property
    def placements(self) -> Mapping[Any, np.ndarray]:
        keys = self.ids.tolist() if self.ids is not None else self.job_id
        return _CSRPlacements(keys, self.nodes, self.offsets)

    def schedule(self) -> list[tuple[Any, float, float, int]]:
        """``(id, start, end, nodes)`` per job, in file order (comparable with
        :meth:`~scheduling.SimulationResult.schedule`)."""
        keys = self.ids.tolist() if self.ids is not None else self.job_id
        return list(zip(keys, self.columns["starting_time"].tolist(), self.columns["finish_time"].tolist(),
                        np.diff(self.offsets).tolist(), strict=True))


class _CSRPlacements(Mapping):
    """Job id -> its node ids, a read-only view of one array (built once per key on access)."""

    def __init__(self, keys: Sequence[Any], nodes: np.ndarray, offsets: np.ndarray) -> None:
        self._index = {k: i for i, k in enumerate(keys)}
        self._nodes = nodes
        self._offsets = offsets

    def __getitem__(self, key: Any) -> np.ndarray:
        i = self._index[key]
        view = self._nodes[self._offsets[i]:self._offsets[i + 1]]
        view.flags.writeable = False
        return view

    def __iter__(self) -> Iterator[Any]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


#: Numeric columns converted (and checked) when the file is read; the derived ones on first use.
_FLOAT_COLUMNS = ("submission_time", "starting_time", "finish_time")
_DERIVED = ("requested_time", "execution_time", "waiting_time", "turnaround_time", "stretch", "consumed_energy")
_INT_COLUMNS = ("requested_number_of_resources",)
_NEEDED = ("job_id", "submission_time", "starting_time", "finish_time", "allocated_resources")


def read_jobs_csv(source: str | os.PathLike | IO) -> BatsimSchedule:
    """Read a Batsim ``_jobs.csv`` (ours or Batsim's: columns found by name from the header, in any
    order; ``job_id``, ``submission_time``, ``starting_time``, ``finish_time`` and
    ``allocated_resources`` are required). Empty numeric fields (a rejected job's) read as NaN; a
    row with another field count, a number that does not parse or an interval set that does not
    parse is skipped and listed in ``report`` (line, reason, value). O(bytes) with numpy
    conversions and the interval sets parsed a column at a time.
    """
    with _gc_paused():
        return _read_jobs_csv(source)


def _read_jobs_csv(source: str | os.PathLike | IO) -> BatsimSchedule:
    data, name = _read_bytes(source, "Batsim jobs file")
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b'"' not in raw and b"\r" not in raw:
        columnar = _jobs_csv_columns(raw, name)
        if columnar is not None:
            return columnar
    text = _decoded(data, name)
    quoted = '"' in text or "\r" in text
    if quoted:  # quoted fields or CRLF: the csv module
        lines: list[str] = []
        rows = list(csv.reader(io.StringIO(text)))
        head = rows[0] if rows else []
    else:  # unquoted (as Batsim and write_jobs_csv write it): plain splits
        lines = text.split("\n")
        if lines and not lines[-1]:
            lines.pop()
        head = lines[0].split(",") if lines else []
    report = SWFReport(source=os.path.basename(name))
    report.lines = len(rows) if quoted else len(lines)
    if not head or head == [""]:
        raise BatsimError(name, 1, "no header line (a Batsim jobs file starts with 'job_id,...')")
    header = tuple(h.strip() for h in head)
    missing = [c for c in _NEEDED if c not in header]
    if missing:
        raise BatsimError(name, 1, f"the header lacks column{'s' if len(missing) > 1 else ''} "
                                   f"{', '.join(missing)} (got {','.join(header)[:120]})")
    width = len(header)
    fast = None if quoted else _columns(lines[1:], ",", width)
    if fast is not None:
        cols = dict(zip(header, fast, strict=True))
        nrows = len(lines) - 1
        line_no = list(range(2, nrows + 2))
    else:
        body = rows[1:] if quoted else [ln.split(",") if ln else [] for ln in lines[1:]]
        line_no = list(range(2, len(body) + 2))
        good = [len(r) == width for r in body]
        if not all(good):
            for r, ln, ok in zip(body, line_no, good, strict=True):
                if not ok and r:
                    report.skip(ln, "wrong field count", f"{len(r)} fields, expected {width}", ",".join(r))
            body = [r for r, ok in zip(body, good, strict=True) if ok]
            line_no = [ln for ln, ok in zip(line_no, good, strict=True) if ok]
        nrows = len(body)
        cols = dict(zip(header, map(list, zip(*body, strict=True)), strict=True)) if body else {h: [] for h in header}
    report.records = nrows
    keep = np.ones(nrows, dtype=bool)
    converted: dict[str, np.ndarray] = {}
    for c in (*_FLOAT_COLUMNS, *_INT_COLUMNS):
        if c in cols:
            converted[c] = _floats(cols[c], c, line_no, keep, report)
    try:
        nodes, offsets = parse_column(cols["allocated_resources"])
    except IntervalSetError:
        nodes, offsets = _parse_each(cols["allocated_resources"], line_no, keep, report)
    if not keep.all():
        idx = np.flatnonzero(keep)
        cols = {k: [v[i] for i in idx.tolist()] for k, v in cols.items()}
        converted = {k: v[idx] for k, v in converted.items()}
        lengths = np.diff(offsets)[idx]
        starts = offsets[:-1][idx]
        nodes = np.concatenate([nodes[s:s + n] for s, n in zip(starts.tolist(), lengths.tolist(), strict=True)]) \
            if idx.size else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(idx.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
    out: dict[str, Any] = dict(cols)
    for c, v in converted.items():
        out[c] = v.astype(np.int64) if c in _INT_COLUMNS and np.isfinite(v).all() else v
    job_id = out["job_id"]
    joined = "".join(job_id)
    if joined.isdigit() and joined.isascii() and min(map(len, job_id)) > 0:
        out["_ids"] = np.array(list(map(int, job_id)), dtype=np.int64)
    elif not job_id:
        out["_ids"] = np.zeros(0, dtype=np.int64)
    out["_lines"] = line_no if keep.all() else [ln for ln, k in zip(line_no, keep.tolist(), strict=True) if k]
    report.skipped.sort(key=lambda s: s.line)
    report.jobs = len(job_id)
    return BatsimSchedule(name, header, out, nodes, offsets, report)


def _jobs_csv_columns(raw: bytes, name: str) -> BatsimSchedule | None:
    """:func:`read_jobs_csv` of an unquoted file without carriage returns, a column at a time from
    the bytes (:func:`~._columns._split_fields`): the numbers by :func:`~._columns._decimal_fields`
    (the few values it does not take by ``float``), the interval sets from the column's bytes,
    the other columns turned into strings when first used. ``None`` when the file is anything but
    well formed (a header problem, a line with another field count, a value or an interval set
    that does not parse, text that is not UTF-8): the line-by-line reader then reads it, reports
    its bad lines and raises its errors, so this path never changes a result. O(bytes)."""
    cut = raw.find(b"\n")
    head_bytes = raw if cut < 0 else raw[:cut]
    try:
        header = tuple(h.strip() for h in head_bytes.decode("utf-8").split(","))
    except UnicodeDecodeError:
        return None
    if not header or header == ("",) or any(c not in header for c in _NEEDED):
        return None
    body = b"" if cut < 0 else raw[cut + 1:]
    if body and not body.endswith(b"\n"):
        body += b"\n"
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return None
    data = np.frombuffer(body, dtype=np.uint8)
    width = len(header)
    fields = _split_fields(data, ord(","), width)
    if fields is None:
        return None
    starts, ends = fields
    n = starts.shape[0]
    where = {h: k for k, h in enumerate(header)}  # a repeated name: its last column, as dict(zip(...)) gives
    values: dict[str, Any] = {}
    for c in (*_FLOAT_COLUMNS, *_INT_COLUMNS):
        if c in where:
            k = where[c]
            v, ok = _decimal_fields(data, starts[:, k], ends[:, k])
            odd = np.flatnonzero(~ok & (ends[:, k] > starts[:, k]))
            if odd.size:  # an exponent, inf, nan, more than 15 digits: float() (which Batsim's files never need)
                try:
                    v[odd] = list(map(float, _field_strings(data, starts[odd, k], ends[odd, k])))
                except ValueError:
                    return None
            values[c] = v.astype(np.int64) if c in _INT_COLUMNS and np.isfinite(v).all() else v
    k = where["allocated_resources"]
    try:
        nodes, offsets = parse_text(_gather(data, starts[:, k], ends[:, k])[:-1], n) if n else \
            (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
    except IntervalSetError:
        return None
    k = where["job_id"]
    lens = ends[:, k] - starts[:, k]
    digits = _gather(data, starts[:, k], ends[:, k], ord("0"))
    if n == 0:
        values["_ids"] = np.zeros(0, dtype=np.int64)
    elif lens.min() > 0 and ((digits >= 48) & (digits <= 57)).all():
        if lens.max() <= 15:
            values["_ids"] = _decimal_fields(data, starts[:, k], ends[:, k])[0].astype(np.int64)
        else:
            values["_ids"] = np.array(list(map(int, _field_strings(data, starts[:, k], ends[:, k]))), dtype=np.int64)
    values["_lines"] = range(2, n + 2)

    def column(c: str) -> list[str]:
        j = where[c]
        return _field_strings(data, starts[:, j], ends[:, j])

    report = SWFReport(source=os.path.basename(name))
    report.lines = n + 1
    report.records = report.jobs = n
    return BatsimSchedule(name, header, _LazyColumns(header, column, values), nodes, offsets, report)


class _LazyColumns(MutableMapping):
    """Column name -> its values, each text column turned into strings when first used."""

    def __init__(self, names: Sequence[str], load: Any, values: dict[str, Any]) -> None:
        self._order = list(dict.fromkeys([*names, *values]))
        self._lazy = set(names) - set(values)
        self._load = load
        self._values = values

    def __getitem__(self, key: str) -> Any:
        if key in self._values:
            return self._values[key]
        if key in self._lazy:
            got = self._values[key] = self._load(key)
            return got
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._values and key not in self._lazy:
            self._order.append(key)
        self._values[key] = value

    def __delitem__(self, key: str) -> None:
        if key not in self._values and key not in self._lazy:
            raise KeyError(key)
        self._values.pop(key, None)
        self._lazy.discard(key)
        self._order.remove(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, key: object) -> bool:
        return key in self._values or key in self._lazy


def _floats(values: list[str], column: str, line_no: list[int], keep: np.ndarray, report: SWFReport) -> np.ndarray:
    """The column as floats (empty: NaN); a value that does not parse skips its row (reported)."""
    filled = [v if v else "nan" for v in values] if "" in values else values
    try:
        return np.array(filled, dtype=float)
    except ValueError:
        out = np.full(len(values), np.nan)
        for i, v in enumerate(filled):
            try:
                out[i] = float(v)
            except ValueError:
                if keep[i]:
                    keep[i] = False
                    report.skip(line_no[i], "non-numeric field", f"{column} = {v!r}", v)
        return out


def _parse_each(texts: list[str], line_no: list[int], keep: np.ndarray,
                report: SWFReport) -> tuple[np.ndarray, np.ndarray]:
    parts = []
    for i, t in enumerate(texts):
        try:
            parts.append(parse_column([t])[0])
        except IntervalSetError as exc:
            parts.append(np.zeros(0, dtype=np.int64))
            if keep[i]:
                keep[i] = False
                report.skip(line_no[i], "bad interval set", f"allocated_resources = {t!r}: {exc}", t)
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([p.size for p in parts], out=offsets[1:])
    return (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)), offsets

