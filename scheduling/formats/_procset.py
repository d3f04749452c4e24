"""Batsim's interval sets of resource ids (``0-3 8``), written and read a whole column at a time (private).

Source: Batsim's documentation, "Interval set" (``docs/interval-set.rst`` of ``oar-team/batsim``):
an interval set is a set of closed integer intervals; an interval ``[a, b]`` is written ``a-b``, or
``a`` when ``a = b``; intervals are separated by one space. Any writing of the set is valid
(``1-2 3 5 7``, ``5 2-2 7 1-3``); the *canonical* one has disjoint, maximal intervals in ascending
order with single ids written alone, and is the one every implementation must read and write.
:func:`format_intervals` writes the canonical form; :func:`parse_intervals` reads any form
(overlaps and any order) and returns the ascending distinct ids, so writing and reading back gives
the same ids exactly.

**Why not the** ``procset`` **package** (the Python library the Batsim documentation lists): it
builds one Python object per interval and per set, and converts one string at a time. A schedule
of 100,000 jobs is converted here as two numpy columns -- the node ids of every job end to end and
the offsets where each job's ids begin (a CSR layout) -- with the run boundaries found by
``numpy.diff`` and the strings parsed from one byte buffer, so the ``_jobs.csv`` reader and writer
keep the pace of the SWF reader (``benchmarks/formats.py``). The format is the four rules above;
it needs no dependency.

Interpretations: whitespace other than single spaces (several spaces, tabs, leading or trailing
blanks) is accepted between intervals; ids are non-negative decimal integers; ``a-b`` with
``a > b``, a sign, a dangling ``-`` or any other character is an :class:`IntervalSetError` naming
the text. Complexity: O(characters + ids) numpy work per column, O(jobs) Python strings.

>>> format_intervals([0, 1, 2, 3, 8])
'0-3 8'
>>> parse_intervals("5 2-2 7 1-3").tolist()
[1, 2, 3, 5, 7]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ._columns import _combine, _int_cells, _int_text, _literal, _rows

__all__ = ["IntervalSetError", "format_intervals", "parse_intervals", "format_column", "parse_column", "interval_text",
           "interval_cells", "parse_text"]


class IntervalSetError(ValueError):
    """A string that is not an interval set; ``index`` is its position in the column (0 for a single
    string), ``text`` the string."""

    def __init__(self, text: str, problem: str, index: int = 0) -> None:
        self.text = text
        self.index = index
        super().__init__(f"not an interval set: {text!r} ({problem})")


def _as_ids(nodes: Iterable[int] | np.ndarray) -> np.ndarray:
    a = np.asarray(nodes if isinstance(nodes, np.ndarray) else list(nodes))
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind not in "iu":
        raise IntervalSetError(str(nodes)[:60], f"ids must be integers, got dtype {a.dtype}")
    return a.astype(np.int64, copy=False).ravel()


def format_column(ids: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The canonical interval set of each job: job ``i`` holds ``ids[offsets[i]:offsets[i+1]]``,
    ascending and distinct (as :attr:`~scheduling.SimulationResult.placements` holds them; checked).
    An empty job gives ``""``. O(ids) numpy work (:func:`interval_text`) and one split.

    >>> format_column(np.array([0, 1, 2, 5, 3]), np.array([0, 4, 4, 5]))
    ['0-2 5', '', '3']
    """
    data, lengths = interval_text(ids, offsets)
    n = lengths.size
    if n == 0:
        return []
    text = _rows([(data, lengths), _literal(b"\n", n)], n)[0]
    return text[:-1].tobytes().decode("ascii").split("\n")


def interval_text(ids: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`format_column` as bytes: ``(data, lengths)``, the ASCII text of every job's interval
    set end to end (uint8) and each one's length. The run boundaries come from ``numpy.diff``,
    the digits from :func:`~._columns._int_text`, the ``-`` and spaces from one scatter each: no
    Python object per job or interval. O(ids).

    >>> data, lengths = interval_text(np.array([0, 1, 2, 5, 3]), np.array([0, 4, 4, 5]))
    >>> data.tobytes(), lengths.tolist()
    (b'0-2 53', [5, 0, 1])
    """
    ids = np.asarray(ids, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n = offsets.size - 1
    if n < 0 or offsets[0] != 0 or offsets[-1] != ids.size or (np.diff(offsets) < 0).any():
        raise ValueError(f"offsets must rise from 0 to {ids.size}, got {offsets[:5].tolist()}...")
    if ids.size == 0:
        return np.zeros(0, dtype=np.uint8), np.zeros(n, dtype=np.int64)
    if ids.min() < 0:
        raise IntervalSetError(str(ids.min()), "ids must be >= 0")
    step = np.diff(ids)
    first = np.zeros(ids.size, dtype=bool)  # an id that begins a job
    first[offsets[:-1][offsets[:-1] < offsets[1:]]] = True
    if (step[~first[1:]] <= 0).any():
        bad = int(np.flatnonzero((step <= 0) & ~first[1:])[0])
        raise IntervalSetError(f"{ids[bad]} {ids[bad + 1]}", "a job's ids must be ascending and distinct")
    begins = first.copy()
    begins[1:] |= step != 1  # an id that begins an interval
    lo_at = np.flatnonzero(begins)
    hi_at = np.append(lo_at[1:], ids.size) - 1
    runs = lo_at.size
    multi = np.flatnonzero(hi_at > lo_at)  # "a-b" rather than "a"
    job_of_run = np.searchsorted(offsets, lo_at, side="right") - 1
    spaced = np.flatnonzero(job_of_run[1:] == job_of_run[:-1])  # runs followed by another of their job
    text = _rows([_int_text(ids[lo_at]), _combine(runs, [(multi, _literal(b"-", multi.size))]),
                  _combine(runs, [(multi, _int_text(ids[hi_at[multi]]))]),
                  _combine(runs, [(spaced, _literal(b" ", spaced.size))])], runs)
    lengths = np.bincount(job_of_run, weights=text[1], minlength=n).astype(np.int64)
    return text[0], lengths


def interval_cells(ids: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`interval_text` as cells (a ``(jobs, width)`` byte matrix, each job's text in its row
    between NUL bytes, and the lengths: for :func:`~._columns._lines`) when every job's ids are one
    run of consecutive ids (``a`` or ``a-b``: a contiguous allocation) or none; ``None`` otherwise
    (several runs, ids out of order or negative, bad offsets: :func:`interval_text` writes or
    refuses those). The first and last id of each job from the offsets, the digits by
    :func:`~._columns._int_cells`: no work per interval beyond that. O(ids) numpy work.

    >>> cells, lengths = interval_cells(np.array([4, 5, 6, 9]), np.array([0, 3, 3, 4]))
    >>> [bytes(row[row != 0]) for row in cells], lengths.tolist()
    ([b'4-6', b'', b'9'], [3, 0, 1])
    >>> interval_cells(np.array([0, 2]), np.array([0, 2])) is None
    True
    """
    ids = np.asarray(ids, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n = offsets.size - 1
    if n < 1 or offsets[0] != 0 or offsets[-1] != ids.size or ids.size == 0:
        return None
    counts = np.diff(offsets)
    if (counts < 0).any() or ids.min() < 0:
        return None
    first = np.zeros(ids.size, dtype=bool)  # an id that begins a job
    first[offsets[:-1][counts > 0]] = True
    if not (np.diff(ids)[~first[1:]] == 1).all():  # within each job: consecutive ids
        return None
    used = np.flatnonzero(counts)
    lo = ids[offsets[used]]
    hi = ids[offsets[used + 1] - 1]
    multi = np.flatnonzero(hi > lo)  # "a-b" rather than "a" (positions in used)
    low, low_lens = _int_cells(lo)
    high, high_lens = _int_cells(hi[multi])
    w = low.shape[1]
    cells = np.zeros((n, w + 1 + high.shape[1]) if multi.size else (n, w), dtype=np.uint8)
    cells[used, :w] = low
    lengths = np.zeros(n, dtype=np.int64)
    lengths[used] = low_lens
    if multi.size:
        rows = used[multi]
        cells[rows, w] = 45  # "-"
        cells[rows, w + 1:] = high
        lengths[rows] += 1 + high_lens
    return cells, lengths


def format_intervals(nodes: Iterable[int] | np.ndarray) -> str:
    """The canonical interval set of ``nodes`` (any order, repeats ignored).

    >>> format_intervals([8, 3, 2, 1, 0, 3])
    '0-3 8'
    >>> format_intervals([])
    ''
    """
    a = np.unique(_as_ids(nodes))
    return format_column(a, np.array([0, a.size]))[0]


#: Byte classes of the parser: 1 digit, 2 space or tab, 3 '-', 4 newline (between strings), 0 other.
_CLASS = np.zeros(256, dtype=np.int8)
_CLASS[np.frombuffer(b"0123456789", dtype=np.uint8)] = 1
_CLASS[[ord(" "), ord("\t")]] = 2
_CLASS[ord("-")] = 3
_CLASS[ord("\n")] = 4
_MAX_DIGITS = 18  # an id below 10**18 fits an int64


def parse_column(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, offsets)``: the ascending distinct ids of every interval set of ``texts``, end to end,
    and where each string's ids begin (``offsets[i]:offsets[i+1]``; ``len(texts) + 1`` offsets).
    Any valid writing is read (module docstring); anything else raises :class:`IntervalSetError`
    naming the first bad string and its ``index``. O(characters + ids) numpy work.

    >>> ids, offsets = parse_column(["0-2 5", "", "3 1"])
    >>> ids.tolist(), offsets.tolist()
    ([0, 1, 2, 5, 1, 3], [0, 4, 4, 6])
    """
    n = len(texts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    joined = "\n".join(texts)
    if joined.count("\n") != n - 1 or not joined.isascii():
        _first_bad(texts, "a character other than digits, '-' and spaces")
    return parse_text(joined.encode("ascii"), n, texts)


def parse_text(raw: bytes | np.ndarray, n: int, texts: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parse_column` of ``n`` interval sets given as ASCII bytes separated by newlines (no
    newline after the last), as a reader gathers a column from its file. A bad set raises
    :class:`IntervalSetError` naming it (its text from ``texts`` when given, else from ``raw``).

    >>> ids, offsets = parse_text(b"0-2 5\\n\\n3 1", 3)
    >>> ids.tolist(), offsets.tolist()
    ([0, 1, 2, 5, 1, 3], [0, 4, 4, 6])
    """
    body = np.frombuffer(raw, dtype=np.uint8) if isinstance(raw, bytes) else np.asarray(raw, dtype=np.uint8)
    buf = np.empty(body.size + 2, dtype=np.uint8)
    buf[0] = buf[-1] = 10
    buf[1:-1] = body
    if texts is None:
        texts = _Texts(buf)
    if int(np.count_nonzero(buf == 10)) != n + 1:
        raise ValueError(f"parse_text: {n} interval sets expected, the bytes hold "
                         f"{int(np.count_nonzero(buf == 10)) - 1}")
    cls = _CLASS[buf]
    if (cls == 0).any():
        _first_bad(texts, "a character other than digits, '-' and spaces", _string_at(buf, np.flatnonzero(cls == 0)))
    digit = cls == 1
    edge = np.diff(digit.astype(np.int8))
    starts = np.flatnonzero(edge == 1) + 1  # first digit of each number
    ends = np.flatnonzero(edge == -1) + 1  # one past its last digit
    dash = np.flatnonzero(cls == 3)
    # a '-' must sit between two digits: "a-b"
    bad_dash = dash[~(digit[dash - 1] & digit[dash + 1])]
    if bad_dash.size:
        _first_bad(texts, "a '-' not between two ids", _string_at(buf, bad_dash))
    lead = cls[starts - 1] == 3  # the number is the b of an "a-b"
    trail = cls[ends] == 3  # the number is the a of an "a-b"
    both = lead & trail
    if both.any():
        _first_bad(texts, "an interval with two '-'", _string_at(buf, starts[both]))
    width = ends - starts
    if (width > _MAX_DIGITS).any():
        _first_bad(texts, "an id too large", _string_at(buf, starts[width > _MAX_DIGITS]))
    # the numbers' values: each digit times its power of ten, summed per number
    pos = np.flatnonzero(digit)
    begins = np.zeros(buf.size, dtype=bool)
    begins[starts] = True
    number_of = np.cumsum(begins[pos]) - 1
    power = (ends[number_of] - pos - 1).astype(np.int64)
    values = np.add.reduceat((buf[pos].astype(np.int64) - 48) * (10 ** power), np.searchsorted(pos, starts)) \
        if pos.size else np.zeros(0, dtype=np.int64)
    a_idx = np.flatnonzero(~lead)
    lo = values[a_idx]
    hi = np.where(trail[a_idx], values[np.minimum(a_idx + 1, values.size - 1)], lo)
    if (hi < lo).any():
        _first_bad(texts, "an interval a-b with a > b", _string_at(buf, starts[a_idx[hi < lo]]))
    newlines = np.flatnonzero(cls == 4)  # n + 1 of them: before the first string and after each
    owner = np.searchsorted(newlines, starts[a_idx]) - 1  # the string of each interval
    length = hi - lo + 1
    total = int(length.sum())
    first = np.cumsum(length) - length
    ids = np.arange(total, dtype=np.int64) - np.repeat(first - lo, length)
    job = np.repeat(owner, length)
    inc = np.diff(ids) > 0
    same = job[1:] == job[:-1]
    if (same & ~inc).any():  # not canonical: sort each string's ids and drop repeats
        order = np.lexsort((ids, job))
        ids, job = ids[order], job[order]
        keep = np.ones(ids.size, dtype=bool)
        keep[1:] = (ids[1:] != ids[:-1]) | (job[1:] != job[:-1])
        ids, job = ids[keep], job[keep]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(job, minlength=n), out=offsets[1:])
    return ids, offsets


class _Texts(Sequence):
    """The strings of a parser buffer (newline, string, newline, ..., newline), for messages."""

    def __init__(self, buf: np.ndarray) -> None:
        self._lines = buf[1:-1].tobytes().decode("ascii", "replace").split("\n")

    def __getitem__(self, i: Any) -> Any:
        return self._lines[i]

    def __len__(self) -> int:
        return len(self._lines)


def _string_at(buf: np.ndarray, positions: np.ndarray) -> int:
    """Index of the string holding the first of ``positions`` of the parser's buffer."""
    return int(np.count_nonzero(buf[: int(positions[0])] == 10)) - 1


def _first_bad(texts: Sequence[str], problem: str, index: int | None = None) -> None:
    if index is None:
        index = next((i for i, t in enumerate(texts) if "\n" in t or not t.isascii()), 0)
    raise IntervalSetError(texts[index], problem, index)


def parse_intervals(text: str) -> np.ndarray:
    """The ascending distinct ids of one interval set (any valid writing; ``""`` is the empty set).

    >>> parse_intervals("0-3 8").tolist()
    [0, 1, 2, 3, 8]
    >>> parse_intervals("3-1")
    Traceback (most recent call last):
    ...
    scheduling.formats._procset.IntervalSetError: not an interval set: '3-1' (an interval a-b with a > b)
    """
    if not isinstance(text, str):
        raise IntervalSetError(repr(text), f"expected a string, got {type(text).__name__}")
    return parse_column([text])[0]
