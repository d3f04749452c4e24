"""Bulk steps of :func:`scheduling.formats.sacct.read_sacct` (private; the module docstring of
:mod:`scheduling.formats.sacct` gives the sources and the rules):

* :func:`_step_lines` -- which lines of a dump are job steps, from each line's first 8 or 16 bytes
  read as 64-bit words (byte comparisons done eight at a time);
* :func:`_factorize_table` -- a column's distinct values through an open table of hashes (no sort),
  for the node lists; :func:`_factorize_few` -- a few distinct values (states, partitions) by
  comparison alone; :func:`_first_uses` -- the distinct codes of some rows, in order of first use;
* :func:`_small_uints` -- counts and ids of up to 8 digits from one word each;
* :func:`_skipped_lines` -- the report's entries for many skipped rows at once, the detail text
  made per reason over that reason's rows (:func:`~.sacct._detail` is the one-row reference) and
  the entries built a field at a time; :func:`_state_counts` -- the kept jobs per state.

Each one is exact or declines (``None``); what it declines is left to the reference code of
:mod:`scheduling.formats.sacct`, :mod:`._sacct_fields` and :mod:`._columns`, which tests compare
it with. Each was kept because it measured faster on the benchmark's dump
(``benchmarks/formats.py --only sacct``) than what it replaces.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..workloads import SkippedLine
from ._columns import _field_hashes, _padded_words, _picker, _rows_at
from .swf_read import _swar8

# -- step lines --------------------------------------------------------------------------------------
_ONES = np.uint64(0x0101010101010101)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
_ONE = np.uint64(1)


def _eq_bytes(words: np.ndarray, byte: int) -> np.ndarray:
    """The high bit of each byte of ``words`` (uint64) that equals ``byte``, every other bit clear:
    the exact form of the "has a zero byte" test over ``words ^ byte * 0x0101...`` (no carry from
    one byte into the next, so no false marks; H. S. Warren, *Hacker's Delight*, 2nd ed., 6-1)."""
    x = words ^ (np.uint64(byte) * _ONES)
    t = ((x & _LOW7) + _LOW7) | x
    return ~t & _HIGH


def _words_at(data: np.ndarray, starts: np.ndarray, offset: int = 0) -> np.ndarray:
    """The little-endian uint64 of bytes ``starts + offset .. + 7`` of ``data`` (contiguous uint8;
    newlines past its end), ``starts`` ascending: gathered through a view of ``data`` as one
    (unaligned) word starting at every byte, no copy of ``data``."""
    at = starts + offset
    out = np.empty(at.size, dtype=np.uint64)
    inner = int(np.searchsorted(at, data.size - 8, side="right"))  # words wholly inside data
    if inner:
        words = np.ndarray(shape=(data.size - 7,), dtype="<u8", buffer=np.ascontiguousarray(data), strides=(1,))
        out[:inner] = words[at[:inner]]
    if inner < at.size:
        base = max(data.size - 8, 0)
        tail = np.concatenate([data[base:], np.full(max(8, int(at[-1]) + 8 - data.size), 10, dtype=np.uint8)])
        out[inner:] = np.lib.stride_tricks.sliding_window_view(tail, 8)[at[inner:] - base].view("<u8").ravel()
    return out


def _eq_ascii(words: np.ndarray, byte: int) -> np.ndarray:
    """:func:`_eq_bytes` of words whose bytes are all ASCII (below ``0x80``): each byte of
    ``x = words ^ byte * 0x0101...`` is then at most ``0x7F``, so ``x + 0x7F`` carries into its
    high bit exactly when it is not zero, and never into the next byte."""
    x = words ^ (np.uint64(byte) * _ONES)
    x += _LOW7
    np.invert(x, out=x)
    x &= _HIGH
    return x


def _step_lines(data: np.ndarray, starts: np.ndarray, lens: np.ndarray, ascii: bool) -> np.ndarray | None:
    """Whether each line of ``data`` (starting at ``starts``, ``lens`` bytes long without its
    newline) is a job step: a ``.`` before the first ``|`` of the line. Each line's first 16 bytes
    are two words; in each, the bytes equal to ``|`` and ``.`` are marked at once
    (:func:`_eq_bytes`; :func:`_eq_ascii` when ``data`` is all ASCII), and the bits below a word's
    lowest ``|`` mark (``(m & -m) - 1``, all bits when it has none) select the bytes before it: a
    ``.`` there comes before the line's first ``|``. The second word is read only for the lines
    with neither in the first (a JobID of 8 or more bytes without a ``.`` in its first 8). A line
    shorter than the window is read as the line reader reads it (``"." in line[:line.find("|")]``,
    no ``|``: all but its last byte). ``None`` (the caller reads a wider window) when a line has
    neither in its first 16 bytes. O(lines) numpy work on one or two words per line.

    >>> data = np.frombuffer(b"12|a\\n12.batch|b\\n123456789|c\\n123456789.0|d\\n", dtype=np.uint8)
    >>> starts = np.array([0, 5, 16, 28])
    >>> _step_lines(data, starts, np.array([4, 10, 11, 13]), True).tolist()
    [False, True, False, True]
    """
    eq = _eq_ascii if ascii else _eq_bytes
    first = _words_at(data, starts, 0)
    bar0, dot0 = eq(first, 124), eq(first, 46)
    before0 = (bar0 & (~bar0 + _ONE)) - _ONE  # all bits when there is no '|' in the word
    step = (dot0 & before0) != 0  # also a '.' in the first word with no '|' there: before any '|'
    long = lens >= 16  # the window inside the line (no newline in it)
    later = np.flatnonzero(((bar0 | dot0) == 0) & long)  # neither in the first word: the second one decides
    if later.size:
        second = _words_at(data, starts[later], 8)
        bar1, dot1 = eq(second, 124), eq(second, 46)
        if ((bar1 | dot1) == 0).any():  # a line with neither in its first 16 bytes
            return None
        step[later] = (dot1 & ((bar1 & (~bar1 + _ONE)) - _ONE)) != 0
    for i in np.flatnonzero(~long).tolist():  # a short line (a few, if any): as the line reader reads it
        line = data[starts[i]:starts[i] + lens[i]].tobytes()
        step[i] = b"." in line[:line.find(b"|")]
    return step


# -- distinct values ---------------------------------------------------------------------------------
def _first_uses(codes: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(used, first)``: the values of ``codes`` (integers in ``[0, m)``) that occur, in order of
    first occurrence, and the position of each one's first occurrence -- ``np.unique(codes,
    return_index=True)`` reordered by position, without a sort of ``codes``: each value's first
    position is a minimum over its positions (``np.minimum.at``), then only the ``<= m`` values
    are ordered. O(codes + m log m).

    >>> used, first = _first_uses(np.array([3, 1, 3, 0, 1]), 5)
    >>> used.tolist(), first.tolist()
    ([3, 1, 0], [0, 1, 3])
    """
    n = codes.size
    first_at = np.full(m, n, dtype=np.int64)
    np.minimum.at(first_at, codes, np.arange(n, dtype=np.int64))
    used = np.flatnonzero(first_at < n)
    first = first_at[used]
    order = np.argsort(first)  # positions are distinct: no ties
    return used[order], first[order]


_MIX2 = np.uint64(0xBF58476D1CE4E5B9)  # an odd 64-bit multiplier (splitmix64's), to hash a row anew


def _factorize_table(data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                     widest: int = 64) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`~._columns._factorize`'s ``(codes, first)`` -- the distinct fields
    ``data[starts[i]:ends[i]]`` numbered in order of first use, ``first[k]`` the row where value
    ``k`` first occurs, ``codes[i]`` row ``i``'s value -- without a sort: each field's bytes
    (zero-padded to whole words, at most ``widest`` bytes) and length are hashed (multiply-xor-
    shift per word, as there), and the rows are put in a table of at least twice as many slots by
    their hash's top bits (one scatter, one gather: each slot keeps one of its rows; hashing by
    open addressing, Knuth, TAOCP vol. 3, section 6.4, but all rows at once: instead of probing
    the next slot, a row that lost its slot goes round again with its hash mixed anew); a row
    whose field equals its slot's row's, word for word, has found its value. Every row of a value has the
    same hash, so a value is found in one round, all its rows at once. Each value's first row is
    then a minimum over its rows (``np.minimum.at``). ``None`` for a field longer than
    ``widest`` or after 8 rounds (the caller then asks :func:`~._columns._factorize`).
    O(fields x words) per round.

    >>> codes, first = _factorize_table(np.frombuffer(b"b|a|b||", dtype=np.uint8), np.array([0, 2, 4, 6]),
    ...                                 np.array([1, 3, 5, 6]))
    >>> codes.tolist(), first.tolist()
    ([0, 1, 0, 2], [0, 1, 3])
    """
    n = starts.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    padded = _padded_words(data, starts, ends, widest)
    if padded is None:
        return None
    lens, cells = padded
    words = [np.ascontiguousarray(w) for w in cells.T]
    key = _field_hashes(lens, words)
    bits = max(4, (2 * n - 1).bit_length())
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, dtype=np.int64)  # only the slots written in a round are read in it
    rep = np.empty(n, dtype=np.int64)  # each row's representative: a row of the same value
    todo = np.arange(n, dtype=np.int64)
    for _ in range(8):
        slot = (key >> shift).astype(np.intp)
        table[slot] = todo
        cand = table[slot]
        same = lens[cand] == lens[todo]
        for w in words:
            same &= w[cand] == w[todo]
        rep[todo[same]] = cand[same]
        if same.all():
            break
        left = ~same
        todo = todo[left]
        key = key[left] * _MIX2
        key ^= key >> np.uint64(31)
    else:
        return None
    first_at = np.full(n, n, dtype=np.int64)
    np.minimum.at(first_at, rep, np.arange(n, dtype=np.int64))
    of_row = first_at[rep]  # each row's value's first row
    first = np.flatnonzero(of_row == np.arange(n))  # ascending: in order of first use
    code_of = np.empty(n, dtype=np.int64)
    code_of[first] = np.arange(first.size)
    return code_of[of_row], first


def _factorize_few(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, few: int = 8,
                   widest: int = 64) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_factorize_table`'s ``(codes, first)`` for a column of at most ``few`` distinct values
    (a state, a partition), by comparison alone: the fields' bytes are read as words (at most
    ``widest`` bytes), and the first row left's value is taken off the rows left -- the rows of
    its length whose words, masked to its bytes, equal its words --, then the next's; ``None``
    beyond ``few`` values or ``widest`` bytes (the caller hashes them). O(fields x words x values).

    >>> codes, first = _factorize_few(np.frombuffer(b"b|a|b||", dtype=np.uint8), np.array([0, 2, 4, 6]),
    ...                               np.array([1, 3, 5, 6]))
    >>> codes.tolist(), first.tolist()
    ([0, 1, 0, 2], [0, 1, 3])
    """
    n = starts.size
    codes = np.empty(n, dtype=np.int64)
    if n == 0:
        return codes, np.zeros(0, dtype=np.int64)
    lens = ends - starts
    top = int(lens.max())
    if top > widest:
        return None
    width = max(8, -(-top // 8) * 8)
    words = _rows_at(data, starts, width).view(np.uint64)  # each field and the bytes after it
    rest = None  # the rows left (None: all of them)
    first: list[int] = []
    while True:
        i = 0 if rest is None else int(rest[0])
        size = int(lens[i])
        keep = np.zeros(width, dtype=np.uint8)
        keep[:size] = 0xFF
        mask = keep.view(np.uint64)
        value = words[i] & mask
        w = words if rest is None else words[rest]
        same = (lens if rest is None else lens[rest]) == size
        for j in range(width // 8):
            if mask[j]:
                same &= (w[:, j] & mask[j]) == value[j]
        at = np.flatnonzero(same) if rest is None else rest[same]
        codes[at] = len(first)
        first.append(i)
        rest = np.flatnonzero(~same) if rest is None else rest[~same]
        if not rest.size:
            return codes, np.array(first, dtype=np.int64)
        if len(first) == few:
            return None


def _pick_objects(values: Sequence[Any], codes: np.ndarray) -> list[Any]:
    """``[values[c] for c in codes]`` (a negative code counts from the end), the same objects: the
    values as a numpy object array, gathered at once and listed (a C loop each, no Python call per
    code). O(values + codes).

    >>> _pick_objects(["a", None, "b"], np.array([2, 0, -1, 2])), _pick_objects([[1]], np.array([0]))
    (['b', 'a', 'b', 'b'], [[1]])
    """
    return np.fromiter(values, dtype=object, count=len(values))[codes].tolist()


# -- integers ----------------------------------------------------------------------------------------
_LOW_BYTES = np.array([(1 << (8 * (8 - n))) - 1 if n < 8 else 0 for n in range(9)], dtype=np.uint64)
_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_ZEROS = np.uint64(0x3030303030303030)
_SIXES = np.uint64(0x0606060606060606)
_TOPS = np.uint64(0xF0F0F0F0F0F0F0F0)


def _small_uints(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """:func:`~._columns._uints` of fields of 1 to 8 ASCII digits, from one word each: the 8 bytes
    that end the field (gathered at once, :func:`_words_at`), its bytes before the field set to
    ``'0'``, checked to be digits eight at a time (``0x30``-``0x39``: high nibble 3 before and
    after adding 6) and combined pairwise by three multiply-and-shift steps (the SWAR decimal
    conversion the SWF reader uses, :func:`~.swf_read._swar8`). ``None`` for any other column
    (longer or empty fields, a non-digit). ``ends`` ascending. O(fields).

    >>> data = np.frombuffer(b"7|xxxxxxxx|12|0070|3|", dtype=np.uint8)
    >>> _small_uints(data, np.array([0, 11, 14, 19]), np.array([1, 13, 18, 20])).tolist()
    [7, 12, 70, 3]
    """
    lens = ends - starts
    if lens.size == 0:
        return np.zeros(0, dtype=np.int64)
    if int(lens.min()) < 1 or int(lens.max()) > 8:
        return None
    low = _LOW_BYTES[lens]  # the bytes before each field
    head = int(np.searchsorted(ends, 8))  # fields ending in the first 8 bytes: from a padded copy
    words = np.empty(lens.size, dtype=np.uint64)
    if head:
        padded = np.concatenate([np.full(8, 48, dtype=np.uint8), data[:16]])
        words[:head] = _words_at(padded, ends[:head])
    words[head:] = _words_at(data, ends[head:] - 8)
    w = (words & ~low) | (_ZEROS & low)
    if ((w & _TOPS) != _ZEROS).any() or (((w + _SIXES) & _TOPS) != _ZEROS).any():
        return None
    return _swar8(w & _NIBBLES).astype(np.int64)


# -- the report --------------------------------------------------------------------------------------
def _state_counts(codes: np.ndarray, names: Sequence[str]) -> dict[str, int]:
    """How many of ``codes`` name each state (``names[code]``; several codes may share a name), in
    order of first use, as ``dict(Counter(names[c] for c in codes))`` gives it: counted by
    ``bincount``, each used code's first position found by one comparison (a few codes). O(codes x used).

    >>> _state_counts(np.array([1, 0, 2, 1]), ["COMPLETED", "FAILED", "COMPLETED"])
    {'FAILED': 2, 'COMPLETED': 2}
    """
    counts = np.bincount(codes, minlength=len(names))
    used = np.flatnonzero(counts).tolist()
    first = {c: int(np.argmax(codes == c)) for c in used}
    out: dict[str, int] = {}
    for c in sorted(used, key=first.__getitem__):
        out[names[c]] = out.get(names[c], 0) + int(counts[c])
    return out


#: Reasons whose detail names the State alone.
_BY_STATE = frozenset(("unknown state", "still running", "requeued", "revoked", "state not kept"))
_TIMES = frozenset(("bad time", "unknown submit time", "unknown end time", "start before submit", "end before start"))
_SKIPPED_SLOTS = ("line", "reason", "detail", "_text", "_rows")
_BY_FIELDS = getattr(SkippedLine, "__slots__", None) == _SKIPPED_SLOTS


def _skipped_lines(rows: list[int], codes: list[int], reasons: Sequence[str], not_started: int, no_start: int,
                   column: Callable[[str, list[int]], list[Any]], node_counts: Callable[[list[int]], list[int]],
                   ids: np.ndarray, size: int | None, line_of: Mapping[int, int] | Sequence[int],
                   texts: list[str]) -> list[SkippedLine]:
    """The report's entries of the skipped ``rows`` (their reason ``codes`` into ``reasons``),
    in the order of ``rows``: the line, the reason, the detail -- the text of
    :func:`~.sacct._detail`, made per reason over all rows of that reason -- and the line as read
    (``texts``). ``column(name, rows)``: the named column's texts at those rows (``""`` for a
    missing column); ``node_counts(rows)``: how many nodes each row's node list names. The entries
    are built a field at a time through the slots' descriptors (as :func:`~._columns._make_jobs`
    builds jobs; immutable entries, so no check is skipped), by the constructor if
    :class:`~scheduling.workloads.SkippedLine` changes shape. O(rows)."""
    details: list[str] = [""] * len(rows)
    # the positions of each reason (one numpy comparison per reason present; all of them for one)
    code_at = np.asarray(codes, dtype=np.int64)
    present = np.unique(code_at).tolist()
    groups = {code: np.flatnonzero(code_at == code).tolist() if len(present) > 1 else None for code in present}
    for code, ks in groups.items():
        at = rows if ks is None else [rows[k] for k in ks]
        jobs = column("JobID", at)
        r = reasons[code]
        made: list[str]
        if r in _BY_STATE or code == not_started:
            made = [f"job {j}: State = {s!r}" for j, s in zip(jobs, column("State", at), strict=True)]
        elif code == no_start:
            made = [f"job {j}: State = {s!r}, Start = {b!r}, NodeList = {e!r}"
                    for j, s, b, e in zip(jobs, column("State", at), column("Start", at), column("NodeList", at),
                                          strict=True)]
        elif r == "other partition":
            made = [f"job {j}: Partition = {p!r}" for j, p in zip(jobs, column("Partition", at), strict=True)]
        elif r in _TIMES:
            made = [f"job {j}: Submit = {a!r}, Start = {b!r}, End = {c!r}"
                    for j, a, b, c in zip(jobs, column("Submit", at), column("Start", at), column("End", at),
                                          strict=True)]
        elif r == "non-integer field":
            made = [f"job {j}: NNodes = {v!r}" for j, v in zip(jobs, column("NNodes", at), strict=True)]
        elif r == "bad time limit":
            made = [f"job {j}: Timelimit = {v!r}" for j, v in zip(jobs, column("Timelimit", at), strict=True)]
        elif r in ("node count mismatch", "repeated node"):
            made = [f"job {j}: NNodes = {v}, NodeList = {e!r} ({c} nodes)"
                    for j, v, e, c in zip(jobs, column("NNodes", at), column("NodeList", at), node_counts(at),
                                          strict=True)]
        elif r == "too large for the machine":
            made = [f"job {j}: NNodes = {v} > {size}" for j, v in zip(jobs, column("NNodes", at), strict=True)]
        else:
            made = [f"job {j}: id {i} repeats an earlier job's" for j, i in zip(jobs, ids[at].tolist(), strict=True)]
        if ks is None:
            details = made
            break
        for k, d in zip(ks, made, strict=True):
            details[k] = d
    lines = [line_of[i] for i in rows]
    why = list(map(reasons.__getitem__, codes))
    if not _BY_FIELDS:
        return list(map(SkippedLine, lines, why, details, texts))
    out = list(map(object.__new__, itertools.repeat(SkippedLine, len(rows))))
    columns: tuple[Iterable[Any], ...] = (lines, why, details, texts, itertools.repeat(None))
    for name, values in zip(_SKIPPED_SLOTS, columns, strict=True):
        collections.deque(map(getattr(SkippedLine, name).__set__, out, values), maxlen=0)
    return out


def _body_lines(data: np.ndarray, line_index: list[int] | None, n: int, parsable1: bool) -> list[str]:
    """The ``n`` job lines of ``data`` (bytes, each line ending with a newline) as read: one decode
    and one split of the whole body (no copy of the bytes); ``line_index``: the job lines among
    the lines of ``data`` (``None``: all of them); ``parsable1``: drop each line's trailing ``|``."""
    lines = str(np.ascontiguousarray(data).data, "utf-8", "replace").split("\n")
    if line_index is None:
        del lines[n:]  # the empty string after the last newline
    else:
        lines = _picker(line_index)(lines) if n else []
    if parsable1:
        lines = [ln[:-1] for ln in lines]
    return lines
