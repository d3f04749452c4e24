"""Field parsers of ``sacct --parsable2`` dumps over the file's bytes (private: the column-at-a-time
reading of :mod:`scheduling.formats.sacct`, whose module docstring gives the sources and the rules).

* :func:`_drop_steps` -- the job lines of a dump, its step lines dropped in bulk;
* :func:`_fast_times` -- ``YYYY-MM-DDTHH:MM:SS`` fields as ``datetime64[s]`` from their digits;
* :func:`_limit_seconds` -- ``Timelimit`` fields in the forms sacct prints, from their digits;
* :func:`_map_nodelists` -- many node lists mapped to node ids at once.

Each one is exact or declines: what it does not take is left to the reference parsers of
:mod:`scheduling.formats.sacct` (``parse_timelimit``, ``numpy.datetime64``, ``expand_nodelist``),
which tests compare it with.
"""

from __future__ import annotations

import re

import numpy as np

from ._columns import _field_strings, _rows_at
from ._sacct_fast import _factorize_table, _step_lines

_NO_TIME = frozenset(("Unknown", "None", ""))


_LIMIT_WIDTH = 20  # "D-HH:MM:SS" with up to 10 digits of days


def _limit_seconds(cells: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(seconds, ok)`` of time limits in the forms sacct prints (``sacct(1)``, ``Timelimit`` in
    the ``Elapsed`` format ``[DD-[HH:]]MM:SS``; here ``MM:SS``, ``HH:MM:SS``, ``D-HH:MM:SS`` in
    ASCII digits, at most 10 of days), given as the :data:`_LIMIT_WIDTH` bytes before each one's
    end (``cells``, a row each; the bytes before its start are ignored) and its length. ``ok`` is
    false for any other text (the caller asks :func:`~.sacct.parse_timelimit`), whose seconds are
    meaningless. The value is :func:`~.sacct.parse_timelimit`'s (interpretation kept from it:
    minutes and seconds are not range-checked). Each digit place is one column of ``cells``, so
    the work is a few numpy operations over the texts. O(texts x width)."""
    def digit(j: int) -> tuple[np.ndarray, np.ndarray]:  # the value at place j from the end, and whether a digit
        v = cells[:, -j] - np.uint8(48)  # below '0' wraps round
        return v.astype(np.int64), v <= 9

    (s1, ok1), (s2, ok2), (m1, ok4), (m2, ok5), (h1, ok7), (h2, ok8) = (digit(j) for j in (1, 2, 4, 5, 7, 8))
    mm_ss = (lens >= 5) & ok1 & ok2 & (cells[:, -3] == 58) & ok4 & ok5
    hh = (lens >= 8) & (cells[:, -6] == 58) & ok7 & ok8
    secs = (s2 * 10 + s1) + 60 * (m2 * 10 + m1) + 3600 * (h2 * 10 + h1) * hh
    ndays = lens - 9  # the digits of the day count, before the '-'
    day = (ndays >= 1) & (ndays <= 10) & (cells[:, -9] == 45)
    if day.any():
        days = np.zeros(lens.size, dtype=np.int64)
        for k in range(1, int(ndays[day].max()) + 1):  # the k-th digit from the '-', leftwards
            v, ok = digit(9 + k)
            used = day & (ndays >= k)
            day &= ok | ~used
            days += np.where(used, v, 0) * 10 ** (k - 1)
        secs += days * 86400 * day
    return secs, mm_ss & ((lens == 5) | (hh & ((lens == 8) | day)))


_ITEMS = re.compile(r"(?:[^,\[]|\[[^\]]*\])+")
_SIMPLE = re.compile(r"([^\[\],]*)\[([0-9,\-]+)\]([^\[\],]*)")


#: The line breaks of ``str.splitlines`` other than ``\n`` that are single bytes (``\r``, ``\v``, ``\f``,
#: the file, group and record separators); ``\x85``, U+2028 and U+2029 are not ASCII.
_ODD_BREAKS = np.array([13, 11, 12, 28, 29, 30], dtype=np.uint8)
_JOBID_WINDOW = 32  # bytes at the start of each line in which its JobID field must end (see _drop_steps)


def _drop_steps(data: np.ndarray, parsable1: bool,
                ascii: bool = False) -> tuple[np.ndarray, np.ndarray, int, np.ndarray] | None:
    """``(job bytes, job line indices, lines, newlines)``: the lines of ``data`` (each ending with a
    newline) whose first field, the ``JobID``, has no ``.`` -- the job lines, end to end, each with
    its newline --, their indices among the lines, the number of lines, and where the job lines'
    newlines are in the job bytes (for :func:`~._columns._split_fields`). Most lines of a dump are
    steps (a job's ``.batch`` and ``.extern`` at least): dropping them first leaves a third of the
    bytes to split into fields. Each line's first 16 bytes are read as two words
    (:func:`~._sacct_fast._step_lines`; ``ascii``: ``data`` holds no byte above ``0x7F``), or, when
    a JobID is longer or the dump is ``--parsable``, its first :data:`_JOBID_WINDOW` bytes at once
    (a sliding window gathered at the line starts) for its first ``|`` and first ``.``; ``None``
    (the caller splits every line) when a line has no ``|`` there, or (``--parsable``) only its
    trailing one, where the line reader, which drops that ``|`` first, could read another JobID,
    and when ``data`` holds a line break of ``str.splitlines`` other than ``\\n`` (found with the
    newlines: the bytes below ``0x20``; the caller then reads the dump line by line).
    O(lines x window) plus O(job bytes)."""
    ends = np.flatnonzero(data < 32)  # the control bytes: newlines, and any line break of another kind
    codes = data[ends]
    if (codes != 10).any():
        if np.isin(codes, _ODD_BREAKS).any():
            return None
        ends = ends[codes == 10]
    n = ends.size
    if not n:
        return None
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lens = ends - starts
    step = None if parsable1 else _step_lines(data, starts, lens, ascii)  # a JobID of up to 15 bytes: two words
    if step is None:
        head = _rows_at(data, starts, _JOBID_WINDOW)  # lines x window
        bar = head == 124
        first_bar = bar.argmax(axis=1)
        row = np.arange(n)
        found = bar[row, first_bar] & (first_bar < lens)
        if parsable1:
            found &= first_bar < lens - 1
        if not found.all():
            return None
        dot = head == 46
        first_dot = dot.argmax(axis=1)
        step = dot[row, first_dot] & (first_dot < first_bar)
    job_lines = np.flatnonzero(~step)
    if job_lines.size == n:
        return data, job_lines, n, ends
    keep = lens[job_lines] + 1  # with its newline
    widest = int(keep.max()) if keep.size else 0
    if widest * job_lines.size <= 4 * int(keep.sum()):  # lines of similar length: one window gather
        # each row's bytes up to its newline (a byte-wide comparison when the lines are short: 4x faster)
        small = np.uint8 if widest < 256 else np.int64
        inside = np.less(np.arange(widest, dtype=small), keep.astype(small)[:, None])
        out = _rows_at(data, starts[job_lines], widest)[inside]
    else:  # a few long lines: a mask over the bytes
        out = data[np.repeat(~step, lens + 1)]
    return out, job_lines, n, np.cumsum(keep) - 1


_NAT = np.iinfo(np.int64).min
_TIME_PLACES = np.array([0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18])  # the digits of YYYY-MM-DDTHH:MM:SS
_MARK_PLACES = np.array([4, 7, 10, 13, 16])
_MARKS = np.array([45, 45, 84, 58, 58], dtype=np.uint8)  # '-', '-', 'T', ':', ':'
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
_LEAP_DAYS = _MONTH_DAYS + (np.arange(13) == 2)
#: Per month 1-12 (index 0 unused) of a common year, then (index + 13) of a leap year: its days, and
#: the days of the year before it.
_MONTH_DAYS2 = np.concatenate([_MONTH_DAYS, _LEAP_DAYS]).astype(np.int32)
_DAYS_BEFORE2 = np.concatenate([np.cumsum(_MONTH_DAYS) - _MONTH_DAYS,
                                np.cumsum(_LEAP_DAYS) - _LEAP_DAYS]).astype(np.int32)


def _fast_times(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`~.sacct._times` of fields in the bytes: ``YYYY-MM-DDTHH:MM:SS`` (a valid date and time of a
    year >= 1) converted to seconds since the epoch by the days-from-civil formula (proleptic
    Gregorian, numpy's own; :func:`_civil_seconds`), ``Unknown``, ``None`` and empty as NaT; ``None``
    when a field is anything else (the caller then asks :func:`~.sacct._times`, which decides what
    is bad). O(fields)."""
    lens = ends - starts
    n = lens.size
    whole = lens == 19
    if whole.all():  # every field a time (Submit, End): no gather, no scatter
        secs = _civil_seconds(_rows_at(data, starts, 19)) if n else np.zeros(0, dtype=np.int64)
        return None if secs is None else (secs.view("datetime64[s]"), np.zeros(n, dtype=bool))
    full = np.flatnonzero(whole)
    out = np.full(n, _NAT, dtype=np.int64)
    if not _no_times(data, starts, ends, np.flatnonzero(~whole)):
        return None
    if full.size:
        secs = _civil_seconds(_rows_at(data, starts[full], 19))  # one row of 19 bytes per time
        if secs is None:
            return None
        out[full] = secs
    return out.view("datetime64[s]"), np.zeros(n, dtype=bool)


def _no_times(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, rows: np.ndarray) -> bool:
    """Whether the fields at ``rows`` are all ``Unknown``, ``None`` or empty (no time: NaT)."""
    if not np.isin(ends[rows] - starts[rows], (0, 4, 7)).all():
        return False
    return set(_field_strings(data, starts[rows], ends[rows], "replace")) <= _NO_TIME


def _civil_seconds(cells: np.ndarray) -> np.ndarray | None:
    """Seconds since the epoch (int64) of ``YYYY-MM-DDTHH:MM:SS`` times given as the rows of a
    ``(times, 19)`` byte matrix; ``None`` when a row is anything else: a separator or digit out of
    place, or no valid date and time of a year >= 1. Each year present (from the smallest to the
    largest) gets its first day by the days-from-civil formula (H. Hinnant, "chrono-Compatible
    Low-Level Date Algorithms", ``days_from_civil``: numpy's proleptic Gregorian calendar) and its
    leap flag; each time is then a lookup of its year plus the days before its month (a table per
    leap flag) plus its day. O(times + years).

    >>> cells = np.frombuffer(b"1970-01-02T00:00:01" b"2024-02-29T23:59:59", dtype=np.uint8).reshape(2, 19)
    >>> _civil_seconds(cells).tolist(), int(np.datetime64("2024-02-29T23:59:59", "s").astype(np.int64))
    ([86401, 1709251199], 1709251199)
    """
    if not (cells[:, _MARK_PLACES] == _MARKS).all():
        return None
    d8 = cells[:, _TIME_PLACES]
    d8 -= np.uint8(48)  # below '0' wraps round
    if (d8 > 9).any():
        return None
    # the two-digit groups (century, year, month, day, hour, minute, second), a row each: made in
    # uint8 (at most 99) over the digits' rows (``d8.T``, a row per place), then widened once
    places = d8.T
    d10 = (places[0::2] * np.uint8(10) + places[1::2]).astype(np.int32)
    y = d10[0] * 100 + d10[1]
    m, day, hh, mm, ss = d10[2], d10[3], d10[4], d10[5], d10[6]
    if not y.size:
        return np.zeros(0, dtype=np.int64)
    y0 = int(y.min())
    if y0 < 1 or not ((m >= 1) & (m <= 12)).all():
        return None
    years = np.arange(y0, int(y.max()) + 1, dtype=np.int64)
    leap_y = (years % 4 == 0) & ((years % 100 != 0) | (years % 400 == 0))
    yy = years - 1  # days from civil of each year's January 1st
    era = yy // 400
    yoe = yy - era * 400
    jan1 = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + 306 - 719468
    yi = y - y0  # each time's year among ``years``
    at = leap_y.view(np.uint8)[yi] * np.int32(13) + m  # its month in the tables of its year's kind
    if not ((day >= 1) & (day <= _MONTH_DAYS2[at]) & (hh <= 23) & (mm <= 59) & (ss <= 59)).all():
        return None
    days = jan1[yi] + (_DAYS_BEFORE2[at] + day - 1)
    return days * 86400 + (hh * 3600 + mm * 60 + ss)


_ONE_RANGE = re.compile(r"([^\[\],]*)\[([0-9]+)-([0-9]+)\]([^\[\],]*)")  # prefix[lo-hi]suffix
_NAME_PARTS = re.compile(r"(.*?)([0-9]+)([^0-9]*)")


def _map_nodelists(exprs: list[str], index: dict[str, int]
                   ) -> tuple[list[np.ndarray | None], np.ndarray, np.ndarray]:
    """:func:`~.sacct._node_ids` of the node lists ``exprs`` written in the simple forms (``a1``,
    ``p[001-004,9]s``, comma-separated) whose every name is a node of ``index``, all at once:
    each range becomes ``(first id, count)`` through the topology's names grouped by prefix,
    suffix and digit count (``node0007`` is value 7 of family ``("node", "", 4)``, a range's name
    ``f"{i:0{w}d}"`` having ``max(w, len(str(i)))`` digits), so the ids come from one numpy gather
    and the per-list sorting from one ``lexsort`` (none when every list's ids already ascend, as a
    topology numbered along its names gives them). Lists in other forms or naming an unknown node
    are left out (the caller maps them one by one and reports them). Returned as columns, a value
    per list: its ids (ascending, read-only; ``None`` when left out), how many (-1 when left out)
    and whether one repeats. O(names + nodes) plus O(ranges) Python work: worth it when the lists
    are not far fewer than the topology's nodes."""
    sizes = np.full(len(exprs), -1, dtype=np.int64)
    repeats = np.zeros(len(exprs), dtype=bool)
    out: list[np.ndarray | None] = [None] * len(exprs)
    if not exprs:
        return out, sizes, repeats
    family: dict[tuple[str, str, int], dict[int, int]] = {}
    for nm, i in index.items():
        m = _NAME_PARTS.fullmatch(nm)
        if m is not None:
            family.setdefault((m.group(1), m.group(3), len(m.group(2))), {})[int(m.group(2))] = i
    tables: dict[tuple[str, str, int], tuple[int, int]] = {}  # family -> (offset in lookup, size)
    parts = [np.full(1, -1, dtype=np.int64)]  # lookup[0]: unknown
    at = 1
    for key, members in family.items():
        size = max(members) + 1
        table = np.full(size, -1, dtype=np.int64)
        table[list(members)] = list(members.values())
        tables[key] = (at, size)
        parts.append(table)
        at += size
    direct = at  # then every id as itself: a plain name's entry
    parts.append(np.arange(max(index.values(), default=-1) + 1, dtype=np.int64))
    lookup = np.concatenate(parts)
    # the lists of one bracket (p[001-004,9]s), all at once; the others one by one, in Python
    done, f_owner, f_begin, f_length = _bracket_ranges(exprs, tables)
    owner: list[int] = []  # per range: its list, where its values start in lookup, how many
    begin: list[int] = []
    length: list[int] = []
    ok = done.copy()  # the lists mapped
    one_range = _ONE_RANGE.fullmatch
    for i in np.flatnonzero(~done).tolist():
        e = exprs[i]
        ranges: list[tuple[int, int]] | None
        if "[" not in e and "," not in e:  # one name (the commonest form after one range)
            node = index.get(e)
            ranges = None if node is None else [(direct + node, 1)]
        elif (m := one_range(e)) is not None:  # one range of one digit count, as _ranges reads it
            prefix, lo_s, hi_s, suffix = m.groups()
            w, lo, hi = len(lo_s), int(lo_s), int(hi_s)
            where = tables.get((prefix, suffix, w))
            if lo <= hi < 10 ** w and where is not None and hi < where[1]:
                ranges = [(where[0] + lo, hi - lo + 1)]
            else:
                ranges = _ranges(e, index, tables, direct)
        else:
            ranges = _ranges(e, index, tables, direct)
        if ranges is None:
            continue
        ok[i] = True
        for b, c in ranges:
            owner.append(i)
            begin.append(b)
            length.append(c)
    if not ok.any():
        return out, sizes, repeats
    good_at = np.flatnonzero(ok)
    compact = np.full(len(exprs), -1, dtype=np.int64)  # each mapped list's place among ``good``
    compact[good_at] = np.arange(good_at.size)
    of_range = np.concatenate([f_owner, np.array(owner, dtype=np.int64)])
    starts = np.concatenate([f_begin, np.array(begin, dtype=np.int64)])
    lens = np.concatenate([f_length, np.array(length, dtype=np.int64)])
    if owner and f_owner.size:  # both paths: the ranges list by list (each list's own in its order)
        order = np.argsort(of_range, kind="stable")
        of_range, starts, lens = of_range[order], starts[order], lens[order]
    of_range = compact[of_range]
    lists_n = good_at.size
    # each id's place in lookup: consecutive within a range, a jump to the next range's start
    # (one int32 pass and a running sum: no index arrays of the ids' size but this one)
    last = starts + lens - 1
    place = np.ones(int(lens.sum()), dtype=np.int32)
    place[0] = starts[0]
    place[(np.cumsum(lens) - lens)[1:]] = starts[1:] - last[:-1]
    np.cumsum(place, out=place)
    ids = lookup[place]
    bounds = np.zeros(lists_n + 1, dtype=np.int64)
    np.cumsum(np.bincount(of_range, weights=lens, minlength=lists_n).astype(np.int64), out=bounds[1:])
    # The common case, decided per range from prefix counts over ``lookup``: every range's ids
    # known and strictly ascending, and each range's first id above the last of the range before
    # it in its list -- then every list is sorted and repeats nothing, with no pass over the ids.
    known = np.zeros(lookup.size + 1, dtype=np.int64)  # [j]: the unknown entries among lookup[:j]
    np.cumsum(lookup < 0, out=known[1:])
    steps = np.zeros(lookup.size, dtype=np.int64)  # [j]: the descents and ties among lookup[:j + 1]
    np.cumsum(lookup[1:] <= lookup[:-1], out=steps[1:])
    if ((known[last + 1] == known[starts]).all() and (steps[last] == steps[starts]).all()
            and ((lookup[starts[1:]] > lookup[last[:-1]]) | (of_range[1:] != of_range[:-1])).all()):
        unknown = np.zeros(lists_n, dtype=bool)
        same = unknown
    else:  # per id: unknown names, lists sorted, repeats found
        of = np.repeat(of_range, lens)
        unknown = np.zeros(lists_n, dtype=bool)
        unknown[of[ids < 0]] = True
        inside = of[1:] == of[:-1]  # of is non-decreasing: the ranges were listed list by list
        if not ((ids[1:] >= ids[:-1]) | ~inside).all():  # some list's ids not ascending yet: sorted within lists
            order = np.lexsort((ids, of))
            ids = ids[order]
        same = np.zeros(lists_n, dtype=bool)
        same[of[1:][(ids[1:] == ids[:-1]) & inside]] = True
    ids.flags.writeable = False
    cuts = bounds.tolist()
    lists: list[np.ndarray | None] = [ids[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    mapped = good_at[~unknown]
    sizes[mapped] = np.diff(bounds)[~unknown]
    repeats[mapped] = same[~unknown]
    if mapped.size == len(exprs):  # (the common case: every list mapped)
        return lists, sizes, repeats
    for i, k in zip(mapped.tolist(), np.flatnonzero(~unknown).tolist(), strict=True):
        out[i] = lists[k]
    return out, sizes, repeats


_NONE = np.zeros(0, dtype=np.int64)


def _bracket_ranges(exprs: list[str], tables: dict[tuple[str, str, int], tuple[int, int]]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ranges of the node lists of one bracket, ``prefix[items]suffix`` (``node[0001-0004,0009]``,
    ``a[07-12]-ib``; the form ``python-hostlist`` and :func:`_ranges` read: a prefix and a suffix
    without ``,``, ``[`` or ``]``, items ``lo`` or ``lo-hi`` of ASCII digits), found for all lists at
    once with numpy over their bytes joined by newlines: ``(done, owner, begin, length)`` -- which
    lists were mapped, and per range its list (an index into ``exprs``, ranges list by list in
    their order), where its values start in the lookup of ``tables`` (as :func:`_ranges` gives it)
    and how many. A list is taken only when every range ascends, has at most 9 digits, and its family
    ``(prefix, suffix, digits of lo)`` is in ``tables`` and holds ``hi`` (so the range stays within one
    digit count: a family of ``w`` digits holds values below ``10 ** w``); every other list (other forms,
    ``gpu[8-12]``, an unknown family) is left to :func:`_ranges`, so the result is exactly its. The prefixes
    and suffixes are numbered through :func:`~._sacct_fast._factorize_table`, each distinct one looked up
    once. O(bytes) numpy work plus O(families) Python work.

    >>> done, owner, begin, length = _bracket_ranges(["n[01-03,07]", "n05", "x[1-2]"], {("n", "", 2): (1, 10)})
    >>> done.tolist(), owner.tolist(), begin.tolist(), length.tolist()
    ([True, False, False], [0, 0], [2, 8], [3, 1])
    """
    k = len(exprs)
    done = np.zeros(k, dtype=bool)
    nothing = done, _NONE, _NONE, _NONE
    joined = "\n".join(exprs) + "\n"
    if not k or not joined.isascii() or joined.count("\n") != k:  # a newline inside a list: not here
        return nothing
    buf = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    nl = np.flatnonzero(buf == 10)
    first = np.empty(k, dtype=np.int64)  # each list's first byte
    first[0] = 0
    first[1:] = nl[:-1] + 1
    eol = buf == 10
    eid = np.cumsum(eol, dtype=np.int32)  # each byte's list (a newline: the list it ends)
    eid -= eol
    lb_at, rb_at = np.flatnonzero(buf == 91), np.flatnonzero(buf == 93)  # '[' and ']'
    lb_of, rb_of = eid[lb_at], eid[rb_at]
    cand = (np.bincount(lb_of, minlength=k) == 1) & (np.bincount(rb_of, minlength=k) == 1)
    if not cand.any():
        return nothing
    lb = np.full(k, -1, dtype=np.int64)
    rb = np.full(k, -1, dtype=np.int64)
    lb[lb_of], rb[rb_of] = lb_at, rb_at  # (the lists with one of each are read right)
    cand &= rb > lb + 1  # a non-empty content
    digit = (buf >= 48) & (buf <= 57)
    # the content (between the brackets) of the candidates: digits, ',' and '-', each of those two
    # between digits; a ',' outside it is another form
    at = np.flatnonzero(cand)
    inside = np.cumsum(np.bincount(lb[at] + 1, minlength=buf.size) - np.bincount(rb[at], minlength=buf.size)) > 0
    sep = np.flatnonzero(((buf == 44) | (buf == 45)) & inside)
    cand[eid[inside & ~digit & (buf != 44) & (buf != 45)]] = False
    cand[eid[sep[~(digit[sep - 1] & digit[sep + 1])]]] = False
    comma = np.flatnonzero((buf == 44) & ~inside)
    cand[eid[comma]] = False
    cand &= digit[lb + 1] & digit[rb - 1]
    # the digit runs of the candidates' contents: one item bound each
    dpos = np.flatnonzero(digit & inside)
    dpos = dpos[cand[eid[dpos]]]
    if not dpos.size:
        return nothing
    new = np.ones(dpos.size, dtype=bool)
    new[1:] = dpos[1:] != dpos[:-1] + 1
    t_first = np.flatnonzero(new)  # each run's first digit among dpos
    ts = dpos[t_first]
    te = np.append(dpos[t_first[1:] - 1], dpos[-1]) + 1  # one past each run's last digit
    width = te - ts
    t_of = eid[ts]
    cand[t_of[width > 9]] = False
    run = np.cumsum(new) - 1
    place = np.minimum(te[run] - 1 - dpos, 17)  # the digit's power of ten (long runs: their list is out)
    value = np.add.reduceat((buf[dpos] - np.uint8(48)).astype(np.int64) * 10 ** place, t_first)
    after = buf[te]  # '-' (a range's low end), ',' or ']'
    before = buf[ts - 1]  # '-' (a range's high end), ',' or '['
    cand[t_of[(after == 45) & (before == 45)]] = False  # lo-mid-hi
    low = before != 45  # each item's first run: its lo; a range's hi is the run after it
    lo_i = np.flatnonzero(low)
    hi_i = np.where(after[lo_i] == 45, lo_i + 1, lo_i)
    lo, hi, w, item_of = value[lo_i], value[hi_i], width[lo_i], t_of[lo_i]
    cand[item_of[hi < lo]] = False
    # the families: each candidate's prefix and suffix numbered, each distinct triple looked up once
    cat = np.flatnonzero(cand)
    if not cat.size:
        return nothing
    pre = _factorize_table(buf, first[cat], lb[cat])
    suf = _factorize_table(buf, rb[cat] + 1, nl[cat])
    if pre is None or suf is None:
        return nothing
    pcode = np.full(k, -1, dtype=np.int64)
    scode = np.full(k, -1, dtype=np.int64)
    pcode[cat], scode[cat] = pre[0], suf[0]
    pre_text = _field_strings(buf, first[cat][pre[1]], lb[cat][pre[1]])
    suf_text = _field_strings(buf, rb[cat][suf[1]] + 1, nl[cat][suf[1]])
    keep = cand[item_of]
    lo, hi, w, item_of = lo[keep], hi[keep], w[keep], item_of[keep]
    key = (pcode[item_of] * len(suf_text) + scode[item_of]) * 10 + w
    used, back = np.unique(key, return_inverse=True)
    offset = np.full(used.size, -1, dtype=np.int64)
    size = np.zeros(used.size, dtype=np.int64)
    for j, kk in enumerate(used.tolist()):
        ps, ww = divmod(kk, 10)
        where = tables.get((pre_text[ps // len(suf_text)], suf_text[ps % len(suf_text)], ww))
        if where is not None:
            offset[j], size[j] = where
    bad = (offset[back] < 0) | (hi >= size[back])
    cand[item_of[bad]] = False
    keep = cand[item_of]
    done[:] = cand
    return done, item_of[keep], (offset[back] + lo)[keep], (hi - lo + 1)[keep]


def _ranges(expr: str, index: dict[str, int], tables: dict[tuple[str, str, int], tuple[int, int]],
            direct: int) -> list[tuple[int, int]] | None:
    """The ranges of a node list in the simple forms as ``(start in lookup, count)`` (a plain name:
    its id's entry at ``direct + id``), or ``None`` (another form, an unknown name, a range value
    outside its family's table)."""
    out = []
    for item in (_ITEMS.findall(expr) if "[" in expr else expr.split(",")):
        if "[" not in item:
            i = index.get(item)
            if i is None:
                return None
            out.append((direct + i, 1))
            continue
        m = _SIMPLE.fullmatch(item)
        if m is None:
            return None
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            lo_s, dash, hi_s = r.partition("-")
            if not (lo_s.isascii() and lo_s.isdigit()) or (dash and not (hi_s.isascii() and hi_s.isdigit())):
                return None
            lo = int(lo_s)
            hi = int(hi_s) if dash else lo
            if hi < lo:
                return None
            w = len(lo_s)
            while lo <= hi:  # the values of one digit count at a time: [8-12] is 8-9 (1 digit), 10-12 (2)
                digits = max(w, len(str(lo)))
                top = min(hi, 10 ** digits - 1)
                where = tables.get((prefix, suffix, digits))
                if where is None or top >= where[1]:
                    return None
                out.append((where[0] + lo, top - lo + 1))
                lo = top + 1
    return out if (",".join(_ITEMS.findall(expr)) == expr if "[" in expr else True) else None
