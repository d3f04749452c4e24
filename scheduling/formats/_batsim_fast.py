"""A Batsim workload of delay profiles in any uniform layout, read a column at a time from its bytes.

:func:`delay_workload` reads a delay workload -- a JSON object with ``nb_res``, a ``jobs`` array and a
``profiles`` object, in any order, beside other members of scalar value (``version``, ``command``,
``date``, ...) -- whose jobs all share one layout and whose profiles all share one layout. The layout
is learned from the file itself: the first job (and the first profile) is tokenised by regular
expressions into its keys, the kind of each value (a string or a number) and the exact bytes between
the values (indentation, newlines and separators included), and the separator between the first two
elements; every element is then checked against that template. So it reads the files of this
module's writer (one line, ``"id", "subtime", "res", "profile", "walltime"``), those of
``json.dump(..., indent=N, sort_keys=True)`` -- the layout of Batsim's own converter,
``tools/swf_to_batsim_workload_delay.py`` in ``oar-team/batsim``, which writes integer ids and
integral delays, its top-level members sorted (``command``, ``date``, ``description``, ``jobs``,
``nb_res``, ``profiles``, ``version``) -- and those of any other key order, indentation or
separators, e.g.::

    {"nb_res": 4, "jobs": [{"id": "1", "subtime": 0.0, "res": 2, "profile": "20", "walltime": 60.0}, ...],
     "profiles": {"20": {"type": "delay", "delay": 20.0}, ...}}

A job has exactly the keys ``id`` (a string of 1 to 15 ASCII digits, or an integer of at most 15
digits), ``subtime``, ``res`` (an integer), ``profile`` (a string) and ``walltime``; a profile exactly
``type`` (``delay`` or ``DelayProfile``) and ``delay`` (at least 0); no string holds an escape or a
control character, every number is a JSON number without exponent of at most 15 digits.

Method (this module's own): every quote of the file is found by one numpy pass. An element's text
is its template's fixed pieces with its values between them, so its quotes are a fixed number ``q``
(two per key, two per string value) and the quotes of element ``k`` are quotes ``k*q`` to
``k*q + q - 1`` of its collection; each fixed piece holding a quote is placed by that quote (a
piece without one by the string value beside it, or, the last, by the element's end), and checked
at once for all elements (one gather and one comparison per piece); the elements follow one another
while the text between them (the last piece, the separator, the next element's text up to its first
quote) and each next element's pieces match, and the collection's closing bracket must follow the
last one. Each byte of the jobs and profiles is thus covered by a piece checked byte for byte, a
string value (between two successive quotes, checked for escapes and control characters where it is
read) or a number (checked digit by digit): a file it reads is valid JSON with the values a JSON
parser gives. The numbers are made from their digits (Horner's rule over the columns of a byte
matrix: an integer mantissa below ``10**15``, exact in a float64, divided by a power of ten, exact up
to ``10**22``, so correctly rounded: the value a JSON parser gives); the strings by one decode
(:func:`~._columns._field_strings`); each job's profile by the bytes of its name (a 64-bit hash of
each name, one sort of the profiles' hashes and one search per job, every match confirmed byte for
byte). Anything else -- jobs of two layouts, a missing, repeated or extra key, a value of another
kind, a nested value, an escape, an exponent, 16 or more digits, a number JSON does not allow
(``01``, ``.5``, ``5.``, ``+1``), ``-0`` (an integer 0 to a JSON parser), a profile of another type
or with a negative delay, a repeated profile name or top-level key, two names of one hash, invalid
UTF-8 -- makes it return ``None``, and the caller parses the file as JSON (the reference, which also
reports every error). Integral and non-integral numbers are both read as floats (``subtime``,
``walltime``, ``delay``: the reader converts them to floats either way).

O(bytes) numpy work, plus one Python string per id and per job's profile name; the template is
learned in O(size of one element).

:func:`element_lines` finds the line of each job of any workload's text, for the messages of the
jobs the reader skips or refuses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from ..kernel.jobs import Job
from ._columns import _field_strings, _make_jobs, _picker, _rows_at

__all__ = ["DelayColumns", "delay_jobs", "delay_workload", "element_lines"]

_WS = re.compile(rb"[ \t\r\n]*")  # JSON's whitespace
_KEY = re.compile(rb'"([^"\\\x00-\x1f]*)"[ \t\r\n]*:[ \t\r\n]*')  # a key without escapes, its ':'
_STRING = rb'"[^"\\\x00-\x1f]*"'
_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_VALUE = re.compile(_STRING + rb"|" + _NUMBER)  # a value of a job or a profile
_SCALAR = re.compile(_STRING + rb"|" + _NUMBER + rb"|true|false|null")  # another top-level member's
_NB_RES = re.compile(rb"0|[1-9][0-9]{0,17}")
#: The keys of a job and of a profile, each with whether its value is a string (``None``: either).
_JOB_KEYS: dict[bytes, bool | None] = {b"id": None, b"subtime": False, b"res": False, b"profile": True,
                                       b"walltime": False}
_PROFILE_KEYS: dict[bytes, bool | None] = {b"type": True, b"delay": False}
_MIX = np.uint64(0x9E3779B97F4A7C15)
_POW10 = 10 ** np.arange(16, dtype=np.int64)


@dataclass
class DelayColumns:
    """A delay workload's columns, in file order: ``nb_res``; the ``id`` values (strings, or
    integers where the file's ids are integers) and their integers; ``subtime``, ``res``,
    ``walltime`` (float64, int64, float64); each job's ``profile`` name and its profile's ``delay``
    (float64)."""

    nb_res: int
    ids: list[str] | list[int]
    int_ids: np.ndarray
    subtime: np.ndarray
    res: np.ndarray
    walltime: np.ndarray
    profile: list[str]
    delay: np.ndarray


@dataclass(frozen=True)
class _Layout:
    """An element's template: each value's key (``b""``: a profile's name), whether it is a string
    (else a number), and the fixed text before each value and after the last (``len(keys) + 1``)."""

    keys: tuple[bytes, ...]
    strings: tuple[bool, ...]
    pieces: tuple[bytes, ...]


def _ws(data: bytes, p: int) -> int:
    """The position after the whitespace at ``p``."""
    m = _WS.match(data, p)
    return p if m is None else m.end()


def _object_layout(data: bytes, p: int) -> tuple[_Layout, int] | None:
    """The template of the flat JSON object at ``p`` (string and number values only) and the
    position after its ``}``, or ``None``. O(size of the object)."""
    if data[p:p + 1] != b"{":
        return None
    keys: list[bytes] = []
    strings: list[bool] = []
    pieces: list[bytes] = []
    piece_at, at = p, _ws(data, p + 1)
    if data[at:at + 1] == b"}":
        return None
    while True:
        key = _KEY.match(data, at)
        value = None if key is None else _VALUE.match(data, key.end())
        if key is None or value is None:
            return None
        keys.append(key.group(1))
        strings.append(data[value.start()] == 34)
        pieces.append(data[piece_at:value.start()])
        piece_at = value.end()
        at = _ws(data, piece_at)
        if data[at:at + 1] == b",":
            at = _ws(data, at + 1)
        elif data[at:at + 1] == b"}":
            pieces.append(data[piece_at:at + 1])
            return _Layout(tuple(keys), tuple(strings), tuple(pieces)), at + 1
        else:
            return None


def _matches(buf: np.ndarray, starts: np.ndarray, text: bytes) -> np.ndarray:
    """For each of ``starts`` (ascending, at least 0), whether ``text`` stands there: each window of
    ``len(text)`` bytes of ``buf`` (contiguous bytes) as one fixed-width string of a strided array,
    gathered and compared whole (one fancy index, one comparison; ``text`` holds no NUL, so the
    comparison's stripping of trailing NULs cannot make a different window equal)."""
    w = len(text)
    if not w:
        return np.ones(starts.size, dtype=bool)
    inner = int(np.searchsorted(starts, buf.size - w, side="right"))  # windows wholly inside buf
    out = np.zeros(starts.size, dtype=bool)
    if inner:
        windows = np.ndarray((buf.size - w + 1,), dtype=f"S{w}", buffer=buf, strides=(1,))
        out[:inner] = windows[starts[:inner]] == text
    return out


def _elements(data: bytes, buf: np.ndarray, quotes: np.ndarray, lay: _Layout, start: int, sep: bytes,
              single: bool) -> tuple[list[tuple[np.ndarray, np.ndarray]], int] | None:
    """The elements of a collection laid out as ``lay``, the first at ``start``, joined by ``sep``
    (module docstring): each value's ``(starts, ends)`` (a string's inside its quotes) over the
    elements, and the position after the last element; ``None`` where an element does not match."""
    pieces, strings = lay.pieces, lay.strings
    K = len(strings)
    q = sum(p.count(b'"') for p in pieces) + 2 * sum(strings)
    i0 = int(np.searchsorted(quotes, start))
    M = min(1, (quotes.size - i0) // q) if single else (quotes.size - i0) // q
    if M == 0:
        return None
    Q = quotes[i0:i0 + M * q].reshape(M, q)
    # the template's quote columns: each piece's first quote and offset, each string's opening quote
    anchor: list[tuple[int, int] | None] = []
    opens: list[int] = []
    col = 0
    for i, p in enumerate(pieces):
        offset = p.find(b'"')
        anchor.append(None if offset < 0 else (col, offset))
        col += p.count(b'"')
        if i < K:
            opens.append(col)
            col += 2 * strings[i]
    off0 = pieces[0].find(b'"') if anchor[0] is not None else len(pieces[0])
    if anchor[0] is None and not strings[0]:
        return None
    # how far the elements may go: the text between an element and the next, up to the next one's first quote
    link = pieces[K] + sep + pieces[0][:off0]
    m1 = M
    if M > 1:
        bad = np.flatnonzero(~_matches(buf, Q[1:, 0] - len(link), link))
        m1 = 1 + int(bad[0]) if bad.size else M
    Q = Q[:m1]
    starts: list[np.ndarray | None] = []
    ok = np.ones(m1, dtype=bool)
    for i, p in enumerate(pieces):  # each piece placed by its quote, else by a string beside it
        a = anchor[i]
        if a is not None:
            s = Q[:, a[0]] - a[1]
        elif i and strings[i - 1]:
            s = Q[:, opens[i - 1] + 1] + 1
        elif i < K and strings[i]:
            s = Q[:, opens[i]] - len(p)
        elif i == K:  # placed by the element's end, below
            starts.append(None)
            continue
        else:
            return None
        ok &= _matches(buf, s, p)
        starts.append(s)
    for i in range(K):  # a string value between its pieces
        if strings[i]:
            ok &= starts[i] + len(pieces[i]) == Q[:, opens[i]]  # type: ignore[operator]
            if starts[i + 1] is not None:
                ok &= starts[i + 1] == Q[:, opens[i] + 1] + 1
    bad = np.flatnonzero(~ok)
    n = int(bad[0]) if bad.size else m1
    if n == 0 or starts[0][0] != start:  # type: ignore[index]
        return None
    Q = Q[:n]
    first = starts[0][:n]  # type: ignore[index]
    end_last = data.find(b"}", int(Q[-1, -1]) + 1) + 1  # the last piece ends with its only '}'
    if end_last == 0:
        return None
    ends = np.append(first[1:] - len(sep), end_last)
    if starts[K] is None:
        starts[K] = ends - len(pieces[K])
        if not _matches(buf, starts[K], pieces[K]).all():  # type: ignore[arg-type]
            return None
    elif not (starts[K][:n] + len(pieces[K]) == ends).all():  # type: ignore[index]
        return None
    spans = []
    for i in range(K):
        if strings[i]:
            spans.append((Q[:, opens[i]] + 1, Q[:, opens[i] + 1]))
        else:
            spans.append((starts[i][:n] + len(pieces[i]), starts[i + 1][:n]))  # type: ignore[index]
    return spans, end_last


def _collection(data: bytes, buf: np.ndarray, quotes: np.ndarray, pos: int,
                jobs: bool) -> tuple[dict[bytes, tuple[np.ndarray, np.ndarray]], int] | None:
    """The jobs array (``jobs``) or the profiles object at ``pos``: each key's value spans (a
    profile's name under ``b""``) and the position after its closing bracket, or ``None``."""
    opening, closing = (b"[", b"]") if jobs else (b"{", b"}")
    if data[pos:pos + 1] != opening:
        return None
    start = _ws(data, pos + 1)
    if jobs:
        got = _object_layout(data, start)
        if got is None:
            return None
        lay, end = got
        expected: dict[bytes, bool | None] = _JOB_KEYS
    else:
        name = _KEY.match(data, start)
        got = None if name is None else _object_layout(data, name.end())
        if name is None or got is None:
            return None
        value, end = got
        lay = _Layout((b"", *value.keys), (True, *value.strings),
                      (b"", data[name.end(1) + 1:name.end()] + value.pieces[0], *value.pieces[1:]))
        expected = {b"": True, **_PROFILE_KEYS}
    if len(lay.keys) != len(expected) or set(lay.keys) != expected.keys() or any(
            expected[k] is not None and expected[k] != s for k, s in zip(lay.keys, lay.strings, strict=True)):
        return None
    after = _ws(data, end)
    if data[after:after + 1] == b",":
        sep, single = data[end:_ws(data, after + 1)], False
    elif data[after:after + 1] == closing:
        sep, single = b"", True
    else:
        return None
    got_elements = _elements(data, buf, quotes, lay, start, sep, single)
    if got_elements is None:
        return None
    spans, end = got_elements
    after = _ws(data, end)
    if data[after:after + 1] != closing:
        return None
    return dict(zip(lay.keys, spans, strict=True)), after + 1


def delay_workload(data: bytes) -> DelayColumns | None:
    """The columns of a delay workload in a uniform layout (module docstring), or ``None`` when
    ``data`` is not one. O(bytes).

    >>> c = delay_workload(b'{"nb_res": 4, "jobs": [{"id": "7", "subtime": 1.5, "res": 2, "profile": "p", '
    ...                    b'"walltime": 60}], "profiles": {"p": {"type": "delay", "delay": 20.25}}}')
    >>> c.ids, c.int_ids.tolist(), c.subtime.tolist(), c.res.tolist(), c.walltime.tolist(), c.delay.tolist()
    (['7'], [7], [1.5], [2], [60.0], [20.25])
    >>> text = json.dumps({"jobs": [{"id": 3, "subtime": 0.0, "walltime": 9.0, "res": 1, "profile": "5"}],
    ...                    "nb_res": 2, "profiles": {"5": {"type": "delay", "delay": 5}}, "version": 0},
    ...                   indent=4, sort_keys=True)
    >>> c = delay_workload(text.encode())
    >>> c.ids, c.walltime.tolist(), c.delay.tolist()
    ([3], [9.0], [5.0])
    >>> delay_workload(b'{"nb_res": 4, "jobs": []}') is None
    True
    """
    if not (data.isascii() or _utf8(data)):
        return None
    pos = _ws(data, 0)
    if data[pos:pos + 1] != b"{":
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(buf == 34)
    found: dict[bytes, object] = {}
    pos = _ws(data, pos + 1)
    while True:
        key = _KEY.match(data, pos)
        if key is None or key.group(1) in found:
            return None
        name, pos = key.group(1), key.end()
        got: tuple[object, int] | None
        if name == b"jobs" or name == b"profiles":
            got = _collection(data, buf, quotes, pos, name == b"jobs")
        else:
            value = (_NB_RES if name == b"nb_res" else _SCALAR).match(data, pos)
            got = None if value is None else (value.group(), value.end())
        if got is None:
            return None
        found[name], pos = got
        pos = _ws(data, pos)
        if data[pos:pos + 1] == b",":
            pos = _ws(data, pos + 1)
        elif data[pos:pos + 1] == b"}":
            break
        else:
            return None
    if _ws(data, pos + 1) != len(data) or not {b"nb_res", b"jobs", b"profiles"} <= found.keys():
        return None
    jobs: dict[bytes, tuple[np.ndarray, np.ndarray]] = found[b"jobs"]  # type: ignore[assignment]
    profiles: dict[bytes, tuple[np.ndarray, np.ndarray]] = found[b"profiles"]  # type: ignore[assignment]
    kind = _kinds(buf, *profiles[b"type"])
    subtime = _decimals(buf, *jobs[b"subtime"])
    res = _integers(buf, *jobs[b"res"], leading_zeros=False)
    walltime = _decimals(buf, *jobs[b"walltime"])
    delay = _decimals(buf, *profiles[b"delay"])
    id_at = jobs[b"id"]
    # string ids end at their closing quote; a number ends where its next piece begins (',', '}' or
    # whitespace: never a quote)
    quoted = buf[id_at[1][0]] == 34
    int_ids = _integers(buf, *id_at, leading_zeros=bool(quoted))
    if kind is None or subtime is None or walltime is None or delay is None or res is None or int_ids is None:
        return None
    if (delay < 0).any():  # an error of the workload (every profile is checked, used or not)
        return None
    # each job's profile: by a hash of its name's bytes, confirmed byte for byte
    which = _match(buf, *jobs[b"profile"], *profiles[b""])
    if which is None:
        return None
    try:
        ids = _field_strings(buf, *id_at) if quoted else int_ids.tolist()
        profile = _field_strings(buf, *jobs[b"profile"])
    except UnicodeDecodeError:
        return None
    return DelayColumns(int(found[b"nb_res"]), ids, int_ids, subtime, res, walltime, profile,  # type: ignore[call-overload]
                        delay[which])


def delay_jobs(c: DelayColumns, machine_size: int | None) -> tuple[list[Job], list[int] | None, int, int] | None:
    """``(jobs, order, reordered, machine size)``: the jobs of a delay workload's columns in order of
    arrival (stable in file order), as the Batsim reader builds them from its JSON document (its id
    the integer of its ``id``, ``size`` and request its ``res``, run time its profile's ``delay``,
    estimate its ``walltime`` when above 0, ``attrs`` ``batsim_id`` and ``batsim_profile``), the
    file positions of the jobs in that order (``None``: as in the file) and how many came earlier
    than the job before them; ``None`` where the JSON reader must decide: a job it skips or refuses
    (a negative ``subtime``, a ``res`` below 1 or above the machine), ids that are not distinct
    integers, an ``nb_res`` or ``machine_size`` that is not a positive integer. O(jobs) numpy work
    plus the jobs' objects."""
    P = machine_size if machine_size is not None else c.nb_res
    if (c.nb_res < 1 or type(P) is not int or P < 1 or (c.subtime < 0).any() or (c.res < 1).any()
            or (c.res > P).any() or not _distinct(c.int_ids)):
        return None
    n = len(c.ids)
    order = None if n < 2 or bool((c.subtime[1:] >= c.subtime[:-1]).all()) else np.argsort(c.subtime, kind="stable")

    def pick(a: np.ndarray) -> np.ndarray:
        return a if order is None else a[order]

    arrival, run, wall = pick(c.subtime), pick(c.delay), pick(c.walltime)
    estimates: list[float | None] = wall.tolist()
    for i in np.flatnonzero(wall <= 0).tolist():
        estimates[i] = None
    sizes = pick(c.res).tolist()
    strings = (c.ids, c.profile) if order is None else map(_picker(order.tolist()), (c.ids, c.profile))
    attrs = [{"batsim_id": a, "batsim_profile": b} for a, b in zip(*strings, strict=True)]
    jobs = _make_jobs(pick(c.int_ids).tolist(), arrival.tolist(), sizes, run.tolist(), estimates, sizes, attrs,
                      arrays=(arrival, run))
    reordered = 0 if order is None else int(np.count_nonzero(np.diff(c.subtime) < 0))
    return jobs, None if order is None else order.tolist(), reordered, P


def _distinct(a: np.ndarray) -> bool:
    """Whether the int64 values are distinct: ascending (a converted trace's), else one sort."""
    if (a[1:] > a[:-1]).all():
        return True
    a = np.sort(a)
    return bool((a[1:] != a[:-1]).all())


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _all_at(buf: np.ndarray, starts: np.ndarray, text: bytes) -> bool:
    """Whether ``text`` stands at each of ``starts`` (ascending)."""
    return bool((_rows_at(buf, starts, len(text)) == np.frombuffer(text, dtype=np.uint8)).all())


def _all_equal(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, text: bytes) -> bool:
    """Whether every span ``buf[starts[i]:ends[i]]`` is ``text``."""
    if not (ends - starts == len(text)).all():
        return False
    if not text:
        return True
    return bool((_rows_at(buf, starts, len(text)) == np.frombuffer(text, dtype=np.uint8)).all())


def _kinds(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """Whether each profile type is ``delay`` or ``DelayProfile`` (else ``None``)."""
    lens = ends - starts
    short = lens == 5
    if not (short | (lens == 12)).all():
        return None
    if short.any() and not _all_equal(buf, starts[short], ends[short], b"delay"):
        return None
    if (~short).any() and not _all_equal(buf, starts[~short], ends[~short], b"DelayProfile"):
        return None
    return short


def _numbers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """``(mantissa, fraction digits, negative)`` of each field when every one is a JSON number
    without exponent, of at most 15 digits (``-?(0|[1-9][0-9]*)(\\.[0-9]+)?``), else ``None``: the
    fields' bytes as the rows of a matrix, the digits combined a place at a time (Horner's rule)."""
    n = starts.size
    lens = ends - starts
    if n == 0 or lens.min() < 1 or lens.max() > 17:
        return None
    width = int(lens.max())
    rows = _rows_at(buf, starts, width)
    inside = np.arange(width) < lens[:, None]
    d = rows - np.uint8(48)  # a digit's value; anything else above 9
    digit = (d <= 9) & inside
    dot = (rows == 46) & inside
    neg = rows[:, 0] == 45
    other = inside & ~digit & ~dot
    other[:, 0] &= ~neg
    ndot = dot.sum(axis=1)
    if other.any() or (ndot > 1).any() or (digit.sum(axis=1) > 15).any():
        return None
    lead = neg.astype(np.int64)  # the first digit's place
    r = np.arange(n)
    c, nxt = rows[r, np.minimum(lead, width - 1)], rows[r, np.minimum(lead + 1, width - 1)]
    if not (digit[r, np.minimum(lead, width - 1)] & (lead < lens) & digit[r, lens - 1]).all():  # '-', '.5', '5.'
        return None
    if ((c == 48) & (lead + 1 < lens) & (nxt != 46)).any():  # '01'
        return None
    mantissa = np.zeros(n, dtype=np.int64)
    for j in range(width):
        mantissa = np.where(digit[:, j], mantissa * 10 + d[:, j], mantissa)
    fraction = np.where(ndot == 1, lens - 1 - dot.argmax(axis=1), 0)
    return mantissa, fraction, neg


def _decimals(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The fields as float64 when each is a JSON number of :func:`_numbers` (else ``None``): an
    integer mantissa below ``10**15`` (exact in a float64) divided by the power of ten of its
    fraction (exact up to ``10**22``) is correctly rounded: the value a JSON parser gives. ``-0``
    (the integer 0 to a JSON parser, ``-0.0`` here) is declined. A column of integral floats
    (``12.0``, as Python writes them) is read as the integers before the ``.0``."""
    if starts.size and (ends - starts).min() >= 3 and _all_at(buf, ends - 2, b".0"):
        whole = _integers(buf, starts, ends - 2, leading_zeros=False)
        if whole is not None:
            return whole.astype(np.float64)
    got = _numbers(buf, starts, ends)
    if got is None:
        return None
    mantissa, fraction, neg = got
    if (neg & (mantissa == 0)).any():
        return None
    values = mantissa.astype(np.float64)
    if fraction.any():
        values /= 10.0 ** fraction
    np.negative(values, out=values, where=neg)
    return values


def _integers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, leading_zeros: bool) -> np.ndarray | None:
    """The fields as int64 when each is 1 to 15 ASCII digits (a JSON integer: no leading zero, unless
    ``leading_zeros``, for the digits of a string), else ``None``."""
    lens = ends - starts
    if lens.size == 0 or lens.min() < 1 or lens.max() > 15:
        return None
    width = int(lens.max())
    pad = width - lens  # the fields right-aligned in rows of ``width`` bytes: place j is worth 10**(width-1-j)
    d = _rows_at(buf, ends - width, width) - np.uint8(48)
    inside = np.arange(width) >= pad[:, None]
    if ((d > 9) & inside).any():
        return None
    if not leading_zeros and ((d[np.arange(lens.size), pad] == 0) & (lens > 1)).any():
        return None
    d[~inside] = 0
    return d.astype(np.int64) @ _POW10[width - 1::-1]


def _name_keys(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray,
               width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Each name's bytes as a ``width``-wide row (zero past its end) and a 64-bit hash of the row;
    ``None`` if a name holds an escape or a control character (JSON's rules for them are left to
    the parser)."""
    rows = _rows_at(buf, starts, width)
    past = np.arange(width) >= (ends - starts)[:, None]
    if ((rows < 32) | (rows == 92))[~past].any():  # a control character or an escape
        return None
    rows[past] = 0
    h = (ends - starts).astype(np.uint64) * _MIX
    for j in range(width):
        h = (h ^ rows[:, j]) * _MIX
        h ^= h >> np.uint64(29)
    return rows, h


def _match(buf: np.ndarray, job_starts: np.ndarray, job_ends: np.ndarray, starts: np.ndarray,
           ends: np.ndarray) -> np.ndarray | None:
    """For each job name, the index of the profile of the same name; ``None`` when a name has no
    profile, two profiles share a name or a hash (the JSON parser decides those cases)."""
    width = int(max((job_ends - job_starts).max(), (ends - starts).max()))
    if width == 0 or width > 64:
        return None
    profiles, jobs = _name_keys(buf, starts, ends, width), _name_keys(buf, job_starts, job_ends, width)
    if profiles is None or jobs is None:
        return None
    (prow, ph), (jrow, jh) = profiles, jobs
    order = np.argsort(ph)
    sh = ph[order]
    if (sh[1:] == sh[:-1]).any():  # a repeated name (or hash)
        return None
    at = np.searchsorted(sh, jh)
    at[at == sh.size] = 0
    which = order[at]
    if not (sh[at] == jh).all() or not (prow[which] == jrow).all() or not ((ends - starts)[which]
                                                                         == job_ends - job_starts).all():
        return None
    return which


def element_lines(text: str, key: str) -> list[int]:
    """The line of the first character of each element of the top-level array ``key`` of the JSON
    object ``text`` (for messages: computed only when a job is skipped or refused). O(size).

    >>> element_lines('{"nb_res": 1, "jobs": [\\n  {"id": "a"},\\n  {"id": "b"}]}', "jobs")
    [2, 3]
    """
    dec = json.JSONDecoder()
    ws = " \t\r\n"
    pos = 0
    n = len(text)

    def skip(p: int) -> int:
        while p < n and text[p] in ws:
            p += 1
        return p

    pos = skip(pos)
    if pos >= n or text[pos] != "{":
        return []
    pos += 1
    starts: list[int] = []
    while True:
        pos = skip(pos)
        if pos >= n or text[pos] == "}":
            break
        name, pos = dec.raw_decode(text, pos)
        pos = skip(pos) + 1  # the ':'
        pos = skip(pos)
        if name == key and text[pos:pos + 1] == "[":
            pos = skip(pos + 1)
            while pos < n and text[pos] != "]":
                starts.append(pos)
                _, pos = dec.raw_decode(text, pos)
                pos = skip(pos)
                if text[pos:pos + 1] == ",":
                    pos = skip(pos + 1)
            break
        _, pos = dec.raw_decode(text, pos)
        pos = skip(pos)
        if text[pos:pos + 1] == ",":
            pos += 1
    if not starts:
        return []
    newlines = np.flatnonzero(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) == 10)
    return (np.searchsorted(newlines, np.array(starts)) + 1).tolist()
