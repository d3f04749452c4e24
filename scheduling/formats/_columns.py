"""Column routines the SWF, Batsim and Slurm readers and writers share (private): a file's fields a
column at a time rather than a line at a time.

* :func:`_columns` -- the fields of many lines as columns, from one split of the whole text;
* :func:`_picker` -- the items at given positions of a list;
* :func:`_make_jobs` -- :class:`~scheduling.kernel.jobs.Job` values built a field at a time;
* :func:`_gc_paused` -- no cyclic garbage collection while a file's objects are built;
* for writing, :func:`_num_column` (floats as text that reads back exactly) and :func:`_quoted`
  (CSV quoting where a field needs it);
* **byte columns** -- a column of text fields as ``(data, lengths)``, the bytes of all fields end to
  end and each one's length: made from integers (:func:`_int_text`, digit arithmetic over the
  column), floats (:func:`_float_text`) and strings (:func:`_str_text`), assembled into lines with
  separators (:func:`_rows`, one scatter per column); or as **cells**, a ``(fields, width)`` byte
  matrix with each field in its row between NUL bytes (:func:`_int_cells`, :func:`_float_cells`,
  :func:`_literal_cells`), assembled with packed columns into lines by :func:`_lines` (one block
  copy per column into a matrix of the lines, one compaction); read back from a file's bytes
  (:func:`_split_fields` finds every field of every line with one pass per separator byte,
  :func:`_field_strings` makes one column's strings with one decode and one split,
  :func:`_decimal_fields` its numbers, :func:`_uints` its unsigned integers, :func:`_factorize`
  its distinct values, :func:`_rows_at` the bytes at given offsets as the rows of a matrix).

The SWF reader (:mod:`.swf_read`, :mod:`.swf_load`) uses the same methods on its own columns, and
its parser the same idea (numpy over the bytes, a per-line reference for anything else). Every
fast path here is exact or declines: a value it does not take is left to Python's own conversion
or to the line-by-line reader, never approximated.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import itertools
import operator
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ..kernel.jobs import Job


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a file's rows and jobs are built: the readers make no
    reference cycles, and the collector's passes over the growing lists would cost as much as
    building them (the SWF reader does the same)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_LINEAR = Job.__dataclass_fields__["speedup"].default  # a Job's default speedup
_JOB_FIELDS = ("id", "arrival", "request", "runtime", "speedup", "estimate", "size", "attrs", "comm")
#: Whether jobs may be built field by field (see :func:`_make_jobs`).
_JOB_BY_FIELDS = tuple(Job.__dataclass_fields__) == _JOB_FIELDS and Job.__slots__ == _JOB_FIELDS


def _make_jobs(ids: list[int], arrivals: list[float], requests: list[Any], runtimes: list[float],
               estimates: list[float | None], sizes: list[int], attrs: list[dict[str, Any]], *,
               arrays: tuple[np.ndarray, np.ndarray] | None = None) -> list[Job]:
    """``Job(id, arrival, request, runtime, estimate=, size=, attrs=)`` for each position.

    :class:`~scheduling.kernel.jobs.Job` is a frozen slotted dataclass whose ``__post_init__``
    refuses a non-finite arrival and a run time that is negative or not finite (its communication
    fraction is 0 here). When the columns pass those checks (done here on whole arrays), the same
    jobs are built by storing each field over all jobs with the slots' descriptors (the SWF
    reader's method, a third of the time of a constructor call per job); otherwise, or if ``Job``
    changes shape, the constructor builds them and refuses the bad job by its id. ``arrays``:
    the float64 arrays ``arrivals`` and ``runtimes`` were made from (``tolist``), so the lists
    hold plain floats and need no check of their own."""
    if arrays is not None:
        arr, run = arrays
        plain = True
    else:
        arr = np.asarray(arrivals, dtype=float)
        run = np.asarray(runtimes, dtype=float)
        plain = all(v.__class__ is float for v in arrivals) and all(v.__class__ is float for v in runtimes)
    valid = plain and bool(np.isfinite(arr).all() and np.isfinite(run).all() and (run >= 0).all())
    if not (_JOB_BY_FIELDS and valid):
        return list(map(Job, ids, arrivals, requests, runtimes, itertools.repeat(_LINEAR), estimates, sizes, attrs))
    jobs = list(map(object.__new__, itertools.repeat(Job, len(ids))))
    columns: tuple[Iterable[Any], ...] = (ids, arrivals, requests, runtimes, itertools.repeat(_LINEAR), estimates,
                                          sizes, attrs, itertools.repeat(0.0))
    for fname, column in zip(_JOB_FIELDS, columns, strict=True):
        collections.deque(map(getattr(Job, fname).__set__, jobs, column), maxlen=0)
    return jobs


def _columns(lines: list[str], sep: str, width: int) -> list[list[str]] | None:
    """The fields of ``lines`` as ``width`` columns, when every line has exactly ``width`` fields
    separated by ``sep`` (the common case: one split of the whole text and a slice per column, no
    per-line work); ``None`` otherwise (the caller then goes line by line and reports the bad ones).
    O(characters)."""
    if not lines:
        return [[] for _ in range(width)]
    joined = "\n".join(lines)
    flat = joined.replace("\n", sep).split(sep)
    if len(flat) != width * len(lines):
        return None
    raw = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    seps = np.flatnonzero(raw == ord(sep))
    ends = np.append(np.flatnonzero(raw == 10), raw.size)
    per_line = np.diff(np.searchsorted(seps, ends), prepend=0)
    if not (per_line == width - 1).all():
        return None
    return [flat[k::width] for k in range(width)]


def _picker(idx: list[int]) -> Any:
    """A function taking the items at ``idx`` of a list, as a list (``operator.itemgetter``)."""
    if len(idx) > 1:
        get = operator.itemgetter(*idx)
        return lambda values: list(get(values))
    return lambda values: [values[i] for i in idx]


def _num_column(values: np.ndarray) -> list[str]:
    """Each float of ``values`` as text that reads back to it: an integer when integral, else
    Python's shortest decimal; ``inf``, ``-inf`` and ``nan`` as such."""
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    whole = finite & (values == np.round(values)) & (np.abs(values) < 1e15)
    if whole.all():
        return list(map(str, values.astype(np.int64).tolist()))
    out = np.empty(values.size, dtype=object)
    out[whole] = list(map(str, values[whole].astype(np.int64).tolist()))
    rest = ~whole
    out[rest] = list(map(repr, values[rest].tolist()))
    return out.tolist()


def _quoted(column: list[str]) -> list[str]:
    """CSV quoting (RFC 4180) of the strings that need it."""
    if not any(("," in s or '"' in s or "\n" in s or "\r" in s) for s in column):
        return column
    return [('"' + s.replace('"', '""') + '"') if ("," in s or '"' in s or "\n" in s or "\r" in s) else s
            for s in column]


# -- text a column at a time, as bytes --------------------------------------------------------------
# A column of n text fields is a pair (data, lengths): the bytes of every field end to end (uint8)
# and each field's length. Writers assemble lines from such columns and literal pieces with one
# numpy scatter per piece (:func:`_rows`); readers find the fields of a whole file with one pass per
# separator (:func:`_split_fields`) and turn a column back into strings or numbers without a
# Python object per field (:func:`_field_strings`, :func:`_decimal_fields`).
_Col = tuple[np.ndarray, np.ndarray]
_POW10_I64 = 10 ** np.arange(19, dtype=np.int64)  # 10**0 .. 10**18
_POW10_F = 10.0 ** np.arange(23)  # exact floats
_MAX_DIGITS = 15  # a mantissa below 10**15 < 2**53 is exact in a float64


def _literal(text: bytes, n: int) -> _Col:
    """The same ``text`` in each of ``n`` fields."""
    one = np.frombuffer(text, dtype=np.uint8)
    return np.tile(one, n), np.full(n, one.size, dtype=np.int64)


def _int_text(values: np.ndarray) -> _Col:
    """Each integer of ``values`` in decimal (``str(int)``), as a column: the digits of all values
    one place at a time (a ``divmod`` by 10 over the column per digit of the longest value),
    then the leading places each value does not use dropped. O(values x digits) numpy work.

    >>> data, lengths = _int_text(np.array([0, 7, -1, 1234]))
    >>> data.tobytes(), lengths.tolist()
    (b'07-11234', [1, 1, 2, 4])
    """
    v = np.asarray(values, dtype=np.int64).ravel()
    if v.size == 0:
        return np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.int64)
    if v.min() == np.iinfo(np.int64).min:  # |v| overflows: Python formats it
        return _str_text(list(map(str, v.tolist())))
    cells, used, lengths = _digit_cells(v)
    return cells[used], lengths


def _digit_cells(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cells, used, lengths)`` of int64 values (at least one, none the int64 minimum): each
    value's text right-aligned in its row of ``cells`` (``0`` digits before it), ``used`` its
    places, ``lengths`` its length (:func:`_int_text`)."""
    neg = v < 0
    a = np.abs(v)
    most = int(a.max())
    ndig = np.ones(v.size, dtype=np.int64)  # each value's digits: one more per power of ten it reaches
    for power in _POW10_I64[1:int(np.searchsorted(_POW10_I64, most, side="right"))]:
        ndig += a >= power
    signed = int(neg.any())
    width = int(ndig.max()) + signed
    cells = np.empty((v.size, width), dtype=np.uint8)
    # below 2**32 (times in seconds, ids, counts): uint32 lanes, whose division by 10 numpy
    # vectorises several times faster than int64's; the same digits
    rest = a.astype(np.uint32) if width - signed <= 9 else a.copy()
    for place in range(width - 1, signed - 1, -1):  # the last digit first
        q = rest // 10
        cells[:, place] = (rest - q * 10) + 48
        rest = q
    lengths = ndig + neg
    if signed:
        cells[neg, width - lengths[neg]] = 45  # "-"
    used = np.arange(width) >= (width - lengths)[:, None]
    return cells, used, lengths


# -- text a column at a time, as cells ---------------------------------------------------------------
# A column may also be a pair (cells, lengths): an (n, width) uint8 matrix holding each field in its
# row with NUL bytes around it (the text itself holds none), for :func:`_lines`, which assembles
# lines from such blocks with one copy per column and one compaction, where :func:`_rows` scatters
# every byte of a packed column through an index of its own.
def _int_cells(values: np.ndarray) -> _Col:
    """Each integer of ``values`` in decimal, as cells (right-aligned): :func:`_int_text`'s digits,
    the places a value does not use set to NUL.

    >>> cells, lengths = _int_cells(np.array([5, -12]))
    >>> cells.tobytes(), lengths.tolist()
    (b'\\x00\\x005-12', [1, 3])
    """
    v = np.asarray(values, dtype=np.int64).ravel()
    if v.size == 0:
        return np.zeros((0, 0), dtype=np.uint8), np.zeros(0, dtype=np.int64)
    if v.min() == np.iinfo(np.int64).min:  # |v| overflows: Python formats it
        return _str_cells(list(map(str, v.tolist())))
    cells, used, lengths = _digit_cells(v)
    cells[~used] = 0
    return cells, lengths


def _str_cells(strings: list[str]) -> _Col:
    """ASCII strings without NUL as cells (left-aligned): one conversion to a fixed-width byte
    array."""
    if not strings:
        return np.zeros((0, 0), dtype=np.uint8), np.zeros(0, dtype=np.int64)
    fixed = np.array(strings, dtype="S")
    width = fixed.dtype.itemsize
    return (fixed.view(np.uint8).reshape(len(strings), width),
            np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)))


def _literal_cells(text: bytes, n: int) -> _Col:
    """The same ``text`` (no NUL) in each of ``n`` fields, as cells (a read-only broadcast view)."""
    one = np.frombuffer(text, dtype=np.uint8)
    return np.broadcast_to(one, (n, one.size)), np.full(n, one.size, dtype=np.int64)


def _float_cells(values: np.ndarray) -> _Col:
    """:func:`_float_text` (``json=False``) as cells: integral values by :func:`_int_cells`, the
    others one ``repr`` each, the two kinds of rows in one matrix."""
    v = np.asarray(values, dtype=float).ravel()
    whole = np.abs(v) < 1e15  # finite too
    whole &= v == np.trunc(v)
    zero = v == 0
    if zero.any():
        whole &= ~(zero & np.signbit(v))  # -0.0: repr
    if whole.all():
        return _int_cells(v.astype(np.int64))
    idx, rest = np.flatnonzero(whole), np.flatnonzero(~whole)
    ints, int_lens = _int_cells(v[idx].astype(np.int64))
    other, other_lens = _str_cells(list(map(float.__repr__, v[rest].tolist())))
    width = max(ints.shape[1], other.shape[1])
    cells = np.zeros((v.size, width), dtype=np.uint8)
    cells[idx, width - ints.shape[1]:] = ints
    cells[rest, :other.shape[1]] = other
    lengths = np.empty(v.size, dtype=np.int64)
    lengths[idx] = int_lens
    lengths[rest] = other_lens
    return cells, lengths


def _lines(pieces: list[_Col], n: int, sep: bytes = b"", end: bytes = b"", head: bytes = b"") -> np.ndarray:
    """``head`` then the bytes of ``_rows(pieces, n, sep, end)``, where a piece may also be cells
    (``data`` of two dimensions, above): the rows laid out in one ``(n, W)`` matrix of NUL bytes
    (below the rows ``head`` needs), the separators and ``end`` written in their columns, each
    cell piece copied as one block and each packed piece scattered into its slot, then every NUL
    dropped (one boolean compaction, row by row: the lines end to end). A NUL in ``head``, in a
    packed field, in ``sep`` or ``end``, or a matrix of more than four times the text (a field far
    wider than the others) takes :func:`_rows` instead. O(n x W).

    >>> _lines([_int_cells(np.array([1, 22])), _str_text(["a", "bc"]), _literal_cells(b"x", 2)], 2, b",",
    ...        b"\\n", b"h\\n").tobytes()
    b'h\\n1,a,x\\n22,bc,x\\n'
    """
    if len(sep) > 1 or len(end) > 1:
        raise ValueError(f"_lines: sep and end are at most one byte, got {sep!r} and {end!r}")
    widths = [data.shape[1] if data.ndim == 2 else int(lens.max()) if n else 0 for data, lens in pieces]
    W = sum(widths) + len(sep) * (len(pieces) - 1) + len(end)
    text = sum(int(lens.sum()) for _, lens in pieces) + n * (W - sum(widths))
    if (b"\0" in sep + end + head or n * W > 4 * text + 4096 or W == 0
            or any(data.ndim == 1 and data.size and not data.all() for data, _ in pieces)):
        packed = [(data[data != 0], lens) if data.ndim == 2 else (data, lens) for data, lens in pieces]
        body = _rows(packed, n, sep, end)[0]
        return np.concatenate([np.frombuffer(head, dtype=np.uint8), body]) if head else body
    top = -(-len(head) // W)  # rows of the matrix holding head
    matrix = np.zeros((top + n, W), dtype=np.uint8)
    matrix.reshape(-1)[:len(head)] = np.frombuffer(head, dtype=np.uint8)
    out = matrix[top:]
    flat = matrix.reshape(-1)
    at = 0
    for k, ((data, lens), width) in enumerate(zip(pieces, widths, strict=True)):
        if data.ndim == 2:
            out[:, at:at + width] = data
        elif data.size:  # byte j of field i goes to row i, slot column (j - its start)
            where = np.repeat(np.arange(top * W + at, (top + n) * W, W) - (np.cumsum(lens) - lens), lens)
            where += np.arange(data.size)
            flat[where] = data
        at += width
        if sep and k < len(pieces) - 1:
            out[:, at] = sep[0]
            at += 1
    if end:
        out[:, at] = end[0]
    return matrix[matrix != 0]


def _str_text(strings: list[str]) -> _Col:
    """The UTF-8 bytes of each string, as a column. O(characters)."""
    joined = "".join(strings)
    if joined.isascii():
        lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        return np.frombuffer(joined.encode("ascii"), dtype=np.uint8), lengths
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    return (np.frombuffer(b"".join(encoded), dtype=np.uint8),
            np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)))


def _float_text(values: np.ndarray, *, json: bool = False) -> _Col:
    """Each float of ``values`` as text that reads back to it, as a column: an integral value below
    ``1e15`` as an integer (``json=True``: with ``.0``, as ``float.__repr__`` and the ``json``
    module write it), any other as ``repr`` (Python's shortest round-tripping decimal; ``inf``,
    ``nan``). Integral values are converted by numpy, the others one ``repr`` each.

    >>> data, lengths = _float_text(np.array([3.0, 0.5, -2.0]))
    >>> data.tobytes(), lengths.tolist()
    (b'30.5-2', [1, 3, 2])
    >>> _float_text(np.array([3.0, -0.0]), json=True)[0].tobytes()
    b'3.0-0.0'
    """
    v = np.asarray(values, dtype=float)
    whole = np.isfinite(v) & (v == np.round(v)) & (np.abs(v) < 1e15) & ~((v == 0) & np.signbit(v))
    if whole.all():
        col = _int_text(v.astype(np.int64))
        return _rows([col, _literal(b".0", v.size)], v.size) if json else col
    n = v.size
    idx = np.flatnonzero(whole)
    ints = _int_text(v[idx].astype(np.int64))
    if json:
        ints = _rows([ints, _literal(b".0", idx.size)], idx.size)
    rest = np.flatnonzero(~whole)
    other = _str_text(list(map(float.__repr__, v[rest].tolist())))
    return _combine(n, [(idx, ints), (rest, other)])


def _combine(n: int, parts: list[tuple[np.ndarray, _Col]]) -> _Col:
    """One column of ``n`` fields from ``parts``, each ``(rows, column)`` giving the fields of those
    rows (the parts' rows disjoint; a row in no part is empty)."""
    lengths = np.zeros(n, dtype=np.int64)
    for rows, (_, lens) in parts:
        lengths[rows] = lens
    starts = np.cumsum(lengths) - lengths
    out = np.empty(int(lengths.sum()), dtype=np.uint8)
    for rows, (data, lens) in parts:
        if data.size:
            out[np.repeat(starts[rows] - (np.cumsum(lens) - lens), lens) + np.arange(data.size)] = data
    return out, lengths


def _take(col: _Col, rows: np.ndarray) -> _Col:
    """The fields at ``rows`` (any order, repeats allowed) of a column."""
    data, lengths = col
    starts = np.cumsum(lengths) - lengths
    lens = lengths[rows]
    src = np.repeat(starts[rows] - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))
    return data[src], lens


def _rows(pieces: list[_Col], n: int, sep: bytes = b"", end: bytes = b"") -> _Col:
    """Row ``i`` of the result is the ``i``-th field of every piece, end to end, the pieces separated
    by ``sep`` and the row ended by ``end`` (pieces: columns of ``n`` fields; :func:`_literal`
    makes constant ones; ``sep`` and ``end`` are at most one byte each). The separators are filled
    in once, then each piece is scattered into place. O(bytes).

    >>> data, lengths = _rows([_int_text(np.array([1, 22])), _str_text(["a", "bc"])], 2, b",", b"\\n")
    >>> data.tobytes(), lengths.tolist()
    (b'1,a\\n22,bc\\n', [4, 6])
    """
    if len(sep) > 1 or len(end) > 1:
        raise ValueError(f"_rows: sep and end are at most one byte, got {sep!r} and {end!r}")
    lengths = np.full(n, len(sep) * (len(pieces) - 1) + len(end), dtype=np.int64)
    for _, lens in pieces:
        lengths += lens
    out = np.full(int(lengths.sum()), sep[0] if sep else 0, dtype=np.uint8)
    at = np.cumsum(lengths) - lengths  # where each row's next piece goes
    count = np.arange(max((data.size for data, _ in pieces), default=0))  # one for every piece (no allocation each)
    for data, lens in pieces:
        if data.size:
            width = int(lens[0])
            if data.size == n * width and (lens == width).all():  # fields of one width: a row matrix
                out[at[:, None] + count[:width]] = data.reshape(n, width)
            else:  # byte j of field i goes to at[i] + (j - its start)
                where = np.repeat(at - (np.cumsum(lens) - lens), lens)
                where += count[:data.size]
                out[where] = data
        at += lens + len(sep)
    if end and n:
        out[at - len(sep)] = end[0]
    return out, lengths


def _split_fields(data: np.ndarray, sep: int, width: int,
                  line_ends: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """``(starts, ends)``, two ``(lines, width)`` arrays: the fields of every line of ``data`` (bytes
    as uint8, each line ending with a newline, the last one too) when every line has exactly
    ``width`` fields separated by the byte ``sep``; ``None`` otherwise (the caller then reads line
    by line and reports the bad lines). A field is ``data[starts[i, k]:ends[i, k]]``. Both arrays
    are column-major (views of ``(width, lines)`` arrays), so that a column ``starts[:, k]``, which
    the readers take one at a time, is contiguous: made by one transposing copy of the separators'
    positions (about 1 ms for 95,000 lines of 10 fields), it saves a strided pass over the table in
    each later per-column step (0.3 ms each, dozens of them).
    ``line_ends``: where the newlines of ``data`` are, ascending, when the caller knows them (then
    only the separators are looked for, and each line's ``width - 1`` of them checked to lie
    between its newline and the one before). O(bytes).

    >>> starts, ends = _split_fields(np.frombuffer(b"a,bc\\n,d\\n", dtype=np.uint8), ord(","), 2)
    >>> starts.tolist(), ends.tolist()
    ([[0, 2], [5, 6]], [[1, 4], [5, 7]])
    >>> [a.tolist() for a in _split_fields(np.frombuffer(b"a,bc\\n,d\\n", dtype=np.uint8), ord(","), 2,
    ...                                    np.array([4, 7]))] == [starts.tolist(), ends.tolist()]
    True
    """
    if line_ends is not None and width > 1:
        lines = line_ends.size
        bounds = np.flatnonzero(data == sep)
        if bounds.size != lines * (width - 1):
            return None
        ends_t = np.empty((width, lines), dtype=np.int64)  # column-major: a row per field
        ends_t[:-1] = bounds.reshape(lines, width - 1).T
        if lines and not ((ends_t[-2] < line_ends).all() and (ends_t[0, 1:] > line_ends[:-1]).all()):
            return None  # a line's separators not between its newline and the one before
        ends_t[-1] = line_ends
    else:
        newline = data == 10
        lines = int(np.count_nonzero(newline))
        bounds = np.flatnonzero(newline | (data == sep))
        if bounds.size != lines * width or (lines and not newline[bounds[width - 1::width]].all()):
            return None
        ends_t = np.empty((width, lines), dtype=np.int64)
        ends_t[:] = bounds.reshape(lines, width).T
    starts_t = np.empty_like(ends_t)
    np.add(ends_t[:-1], 1, out=starts_t[1:])
    starts_t[0, :1] = 0
    np.add(ends_t[-1, :-1], 1, out=starts_t[0, 1:])
    return starts_t.T, ends_t.T


def _gather(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, sep: int = 10) -> np.ndarray:
    """The fields ``data[starts[i]:ends[i]]`` end to end, each followed by the byte ``sep``."""
    lens = ends - starts
    step = lens + 1
    at = np.cumsum(step) - step
    src = np.repeat(starts - at, step) + np.arange(int(step.sum()))
    if ends.size and int(ends.max()) >= data.size:  # a field ending the buffer: its separator slot is made up
        src = np.minimum(src, data.size - 1) if data.size else np.zeros(src.size, dtype=np.int64)
        data = data if data.size else np.zeros(1, dtype=np.uint8)
    out = data[src]
    out[at + lens] = sep
    return out


def _field_strings(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, errors: str = "strict") -> list[str]:
    """The fields ``data[starts[i]:ends[i]]`` (fields hold no newline) as strings, decoded as UTF-8
    with ``errors``: one gather, one decode and one split, no Python work per field.

    >>> _field_strings(np.frombuffer(b"ab,,c", dtype=np.uint8), np.array([0, 3, 4]), np.array([2, 3, 5]))
    ['ab', '', 'c']
    """
    if starts.size == 0:
        return []
    return _gather(data, starts, ends)[:-1].tobytes().decode("utf-8", errors).split("\n")


def _decimal_fields(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, ok)``: each field ``data[starts[i]:ends[i]]`` as a float when it is a plain decimal
    -- an optional sign, at most 15 digits, at most one point (``-12``, ``3.25``, ``.5``) -- and
    ``ok[i]`` whether it is one. The digits make an integer mantissa below ``10**15``, exact in a
    float64; dividing it by the power of ten of its fraction digits (exact up to ``10**22``) is
    correctly rounded, so the value is the one ``float(text)`` gives. Other fields (empty, an
    exponent, ``inf``, more digits) are not ``ok`` (value NaN): the caller converts those few with
    ``float`` or reports them. The fields are laid out right-aligned in a ``width x fields``
    byte matrix (width: the longest, at most 17 bytes), so each step is one numpy operation over
    the matrix. O(fields x width).

    >>> v, ok = _decimal_fields(np.frombuffer(b"12|-0.25||1e3", dtype=np.uint8), np.array([0, 3, 9, 10]),
    ...                         np.array([2, 8, 9, 13]))
    >>> v.tolist()[:2], ok.tolist()
    ([12.0, -0.25], [True, True, False, False])
    """
    n = starts.size
    lens = ends - starts
    if n == 0:
        return np.zeros(0), np.zeros(0, dtype=bool)
    width = int(min(lens.max(), _MAX_DIGITS + 2))
    ok = (lens >= 1) & (lens <= width)
    if width == 0:
        return np.full(n, np.nan), ok
    pad = width - lens  # the places before each field
    place = np.arange(width)[:, None]
    cells = data[np.clip(ends - width + place, 0, data.size - 1)]  # width x fields: place-major, so that
    used = place >= pad  # the sums over a field's places are whole-row additions
    digit = (cells >= 48) & (cells <= 57) & used
    dot = (cells == 46) & used
    lead = place == np.minimum(pad, width - 1)  # each field's first place
    minus = (lead & (cells == 45) & used).any(axis=0)
    sign = lead & ((cells == 45) | (cells == 43)) & used
    ndig = digit.sum(axis=0)
    ok &= ~(used & ~(digit | dot | sign)).any(axis=0) & (ndig >= 1) & (ndig <= _MAX_DIGITS) & (dot.sum(axis=0) <= 1)
    after = np.cumsum(digit[::-1], axis=0)[::-1] - digit  # digits right of each place
    mantissa = ((cells.astype(np.int64) - 48) * digit * _POW10_I64[np.minimum(after, 18)]).sum(axis=0)
    values = mantissa.astype(np.float64)
    if dot.any():
        frac = (after * dot).sum(axis=0)  # the digits right of the point
        values /= _POW10_F[np.minimum(frac, 22)]
    np.negative(values, out=values, where=minus)
    values[~ok] = np.nan
    return values, ok


def _rows_at(data: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """``(len(starts), width)`` bytes: row ``i`` holds ``data[starts[i]:starts[i] + width]``, newlines
    past the end of ``data`` (``starts`` ascending, at least 0). One gather, no index per byte and
    no copy of ``data``: each window of ``width`` bytes as one item of a strided array over
    ``data`` (a sliding window view where ``data`` is not contiguous bytes); the rows that reach
    past the end come from a padded copy of the last ``width`` bytes."""
    inner = int(np.searchsorted(starts, data.size - width, side="right"))  # rows wholly inside data
    if starts.size and inner == starts.size and width and data.dtype == np.uint8 and data.flags.c_contiguous:
        # each window of ``width`` bytes as one item of a strided array: one fancy index copies whole rows
        # (half the time of indexing the 2-D sliding window view, which copies a row in ``width`` steps)
        windows = np.ndarray((data.size - width + 1,), dtype=f"V{width}", buffer=data, strides=(1,))
        return windows[starts].view(np.uint8).reshape(starts.size, width)
    out = np.empty((starts.size, width), dtype=np.uint8)
    if inner:
        out[:inner] = np.lib.stride_tricks.sliding_window_view(data, width)[starts[:inner]]
    if inner < starts.size:
        base = max(data.size - width, 0)
        tail = np.concatenate([data[base:], np.full(width, 10, dtype=np.uint8)])
        out[inner:] = np.lib.stride_tricks.sliding_window_view(tail, width)[starts[inner:] - base]
    return out


_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit multiplier (the golden ratio's fraction)


def _padded_words(data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                  widest: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(lens, words)`` for at least one field ``data[starts[i]:ends[i]]``: the fields' lengths
    and their bytes zero-padded to whole 64-bit words, one row of ``words`` (a ``uint64`` view) per
    field; ``None`` when a field is longer than ``widest`` bytes. The padding is one byte-wide
    comparison when the rows are shorter than 256 bytes (4 times faster than an int64 one).
    O(fields x words)."""
    lens = ends - starts
    top = int(lens.max())
    if top > widest:
        return None
    width = max(8, -(-top // 8) * 8)
    cells = _rows_at(data, starts, width)
    small = np.uint8 if width < 256 else np.int64
    np.multiply(cells, np.less(np.arange(width, dtype=small), lens.astype(small)[:, None]), out=cells)
    return lens, cells.view(np.uint64)


def _factorize(data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
               widest: int = 64) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, first)``: the distinct fields ``data[starts[i]:ends[i]]``, numbered in order of
    first use -- ``first[k]``: the row where value ``k`` first occurs, ``codes[i]``: row ``i``'s
    value -- found without a Python object per field: each field's bytes (zero-padded to whole
    64-bit words, at most ``widest`` bytes) and length are hashed (a multiply-xor-shift per word,
    the mixing step of the usual multiplicative hashes: Knuth, TAOCP vol. 3, section 6.4, with the
    golden-ratio multiplier) and the hashes ranked -- peeled off one value at a time when there are
    at most :data:`_FEW` (:func:`_peel`), else by ``numpy.unique`` --; every field is then
    compared, word by word, with its value's first occurrence, so a hash collision cannot merge
    two values (``None`` then, and for a field longer than ``widest``: the caller goes through the
    strings). O(fields x words + fields log fields), O(fields x values) for a few values.

    >>> codes, first = _factorize(np.frombuffer(b"b|a|b|", dtype=np.uint8), np.array([0, 2, 4]), np.array([1, 3, 5]))
    >>> codes.tolist(), first.tolist()
    ([0, 1, 0], [0, 1])
    """
    n = starts.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    padded = _padded_words(data, starts, ends, widest)
    if padded is None:
        return None
    lens, words = padded
    h = _field_hashes(lens, words.T)
    peeled = _peel(h, _FEW)
    if peeled is not None:
        codes, first = peeled
    else:  # many values: ranked by a sort
        _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
        by_use = np.argsort(first)  # the values in order of first use
        rank = np.empty_like(by_use)
        rank[by_use] = np.arange(by_use.size)
        codes, first = rank[inverse.ravel()], first[by_use]
    rep = first[codes]
    if not ((lens[rep] == lens).all() and (words[rep] == words).all()):
        return None
    return codes, first


def _field_hashes(lens: np.ndarray, columns: Iterable[np.ndarray]) -> np.ndarray:
    """One 64-bit hash per field from its length and its bytes as 64-bit words (``columns``: the
    fields' first words, then their second words...): a multiply by :data:`_MIX`, an xor of the
    word and a shift-xor per word (:func:`_factorize`'s mixing). O(fields x words)."""
    h = lens.astype(np.uint64)
    for w in columns:
        h *= _MIX
        h ^= w
        h ^= h >> np.uint64(29)
    return h


_FEW = 8  # a column of at most this many distinct values is factorized by peeling them off one by one


def _peel(keys: np.ndarray, few: int) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_factorize`'s ``(codes, first)`` of ``keys`` when they hold at most ``few`` distinct
    values (a state, a partition): the first row's value taken off the rest, then the next's, one
    comparison over the rows left per value, O(rows x values); ``None`` beyond ``few``."""
    codes = np.empty(keys.size, dtype=np.int64)
    rest = np.arange(keys.size)
    first: list[int] = []
    while rest.size:
        if len(first) == few:
            return None
        i = int(rest[0])
        same = keys[rest] == keys[i]
        codes[rest[same]] = len(first)
        first.append(i)
        rest = rest[~same]
    return codes, np.array(first, dtype=np.int64)


def _uints(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, most: int = 15) -> np.ndarray | None:
    """The fields ``data[starts[i]:ends[i]]`` (``starts`` ascending) as int64 when every one is 1 to
    ``most`` (at most 18) ASCII digits, else ``None`` (the caller converts the column another way).
    The fields' bytes are read as rows of a matrix (:func:`_rows_at`) and the digits combined
    one place at a time (Horner's rule over the columns). O(fields x digits).

    >>> _uints(np.frombuffer(b"12|007|3", dtype=np.uint8), np.array([0, 3, 7]), np.array([2, 6, 8])).tolist()
    [12, 7, 3]
    """
    lens = ends - starts
    if lens.size == 0:
        return np.zeros(0, dtype=np.int64)
    width = int(lens.max())
    if int(lens.min()) < 1 or width > min(most, 18):
        return None
    d = _rows_at(data, starts, width).astype(np.int64)
    d -= 48
    inside = np.arange(width) < lens[:, None]
    if ((d.view(np.uint64) > 9) & inside).any():  # below '0' wraps round
        return None
    value = d[:, 0].copy()
    for j in range(1, width):
        more = inside[:, j]
        value[more] = value[more] * 10 + d[more, j]
    return value
