"""Reading an SWF file into its header and records, every line that is not a record reported.

:func:`read_swf` parses a file (plain text or gzip, recognised by its magic bytes, not its name) into
an :class:`~scheduling.formats.swf_records.SWFHeader` and
:class:`~scheduling.formats.swf_records.SWFRecord` values, reporting every line it cannot parse
(``malformed line``, ``wrong field count``, ``non-numeric field``, ``non-integer field``) in an
:class:`~scheduling.formats.swf_records.SWFReport`. :func:`~scheduling.formats.swf_load.load_swf`
builds jobs on the same parser.

**Speed.** The file is read in pieces of 256 KiB. In each, numpy finds the lines and tokens and
converts every token of the plain forms ``[+-]digits[.digits]`` (at most 15 digits, at most 8 on
either side of the point, where the conversion is exact and equals Python's ``int``/``float``) from
the 64-bit words that end its digit groups (:func:`_digits`). A line that is anything else (a
comment, a letter, an exponent, a wrong field count, a fraction in an integer field...) goes to the
per-line parser (:func:`_parse_line`), which decides whether and why it is skipped, so the records
and the report are exactly those of reading line by line (a test checks this on every shared trace
and on crafted files). O(bytes) numpy work plus O(records) Python objects. A file that is not a
trace (a directory, a truncated or corrupt gzip stream) raises
:class:`~scheduling.formats.swf_records.SWFReadError` naming it.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import zlib
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from ._columns import _gc_paused
from .swf_records import (
    _FLOAT_COLS,
    _INT_COLS,
    _INT_FIELDS,
    SWF_FIELDS,
    SkippedLine,
    SWFHeader,
    SWFReadError,
    SWFRecord,
    SWFReport,
    _new_record,
)

__all__ = ["read_swf"]

_GZIP_MAGIC = b"\x1f\x8b"


# -- opening --------------------------------------------------------------------------------------
_BLOCK = 1 << 18  # bytes of text parsed at a time (numpy's temporaries stay in the cache)


def _describe(name: str) -> str:
    return f"SWF file {name!r}" if name else "the SWF stream"


def _read_blocks(raw: IO[bytes], gz: bool, name: str) -> Iterator[bytes]:
    """The (decompressed) bytes of ``raw`` in blocks; a broken gzip stream is an
    :class:`~scheduling.formats.swf_records.SWFReadError`."""
    stream: IO[bytes] | gzip.GzipFile = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
    try:
        while True:
            block = stream.read(_BLOCK)
            if not block:
                return
            yield block
    except EOFError:
        raise SWFReadError(f"{_describe(name)} is a truncated gzip file: the compressed data ends before "
                           "the end-of-stream marker (an incomplete download or copy?)") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise SWFReadError(f"{_describe(name)} is not a valid gzip file ({exc})") from None


def _open_blocks(source: str | os.PathLike | IO) -> tuple[Iterator[bytes], str, bool]:
    r"""``(blocks, name, text)``: the bytes of ``source`` (a path, or a binary or text file object;
    gzip recognised by its magic bytes) in blocks, its name, and whether it was a text stream (whose
    lines end at ``\n`` only, as the stream gives them; a file's ``\r\n`` and ``\r`` end lines too)."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        name = str(path)
        if not path.exists():
            raise FileNotFoundError(f"SWF file {name!r} does not exist")
        if path.is_dir():
            raise SWFReadError(f"SWF file {name!r} is a directory, not a trace file")

        def from_path() -> Iterator[bytes]:
            with open(path, "rb") as fh:
                gz = fh.read(2) == _GZIP_MAGIC
                fh.seek(0)
                yield from _read_blocks(fh, gz, name)

        return from_path(), name, False
    name = str(getattr(source, "name", "") or "")
    if isinstance(source, io.TextIOBase):
        return iter((source.read().encode("utf-8", "surrogatepass"),)), name, True
    peek = source.peek(2)[:2] if hasattr(source, "peek") else None
    if peek is None:
        data = source.read()
        if isinstance(data, str):
            return iter((data.encode("utf-8", "surrogatepass"),)), name, True
        return _read_blocks(io.BytesIO(data), data[:2] == _GZIP_MAGIC, name), name, False
    return _read_blocks(source, peek == _GZIP_MAGIC, name), name, False


def _line_chunks(blocks: Iterator[bytes], text: bool) -> Iterator[bytes]:
    r"""Pieces of the file that end at a line end (the last one may not); in a file (not a text
    stream) ``\r\n`` and ``\r`` are turned into ``\n``, as Python's universal newlines do."""
    def lines(piece: bytes) -> bytes:
        return piece if text or b"\r" not in piece else piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    pending: list[bytes] = []  # the start of a line that continues in the next block
    for block in blocks:
        cut = block.rfind(b"\n") + 1
        if not cut:
            pending.append(block)
            continue
        yield lines(b"".join([*pending, block[:cut]]) if pending else block[:cut])
        pending = [block[cut:]] if cut < len(block) else []
    if pending:
        yield lines(b"".join(pending))


# -- parsing --------------------------------------------------------------------------------------
_CONVERTERS = tuple(int if name in _INT_FIELDS else float for name in SWF_FIELDS)


def _parse_record(parts: list[str]) -> tuple[SWFRecord | None, str, str]:
    """``(record, "", "")`` or ``(None, reason, detail)``."""
    try:
        values: list[Any] = [conv(text) for conv, text in zip(_CONVERTERS, parts, strict=True)]
        if math.isfinite(sum(values)):
            return SWFRecord(*values), "", ""
    except (ValueError, OverflowError):  # OverflowError: an integer too large for a float
        pass
    # slow path: an integer written with a fraction ("17.0"), or find the culprit
    values = []
    for name, conv, text in zip(SWF_FIELDS, _CONVERTERS, parts, strict=True):
        try:
            v = float(text)
        except ValueError:
            return None, "non-numeric field", f"{name} = {text!r}"
        if not math.isfinite(v):
            return None, "non-numeric field", f"{name} = {text!r}"
        if conv is int:
            if v != int(v):
                return None, "non-integer field", f"{name} = {text!r}"
            v = int(v)
        values.append(v)
    return SWFRecord(*values), "", ""


def _parse_line(line: str) -> tuple[SWFRecord | None, str, str] | None:
    """One line after the header, the reference semantics of the reader: ``None`` for a blank or
    comment line, else :func:`_parse_record`'s result or ``(None, reason, detail)``."""
    stripped = line.strip()
    if not stripped or stripped.startswith(";"):
        return None
    body = stripped.split(";", 1)[0]  # a trailing comment is not data
    parts = body.split()
    if not parts:
        return None, "malformed line", "no fields"
    if len(parts) != 18:
        if not all(_looks_numeric(p) for p in parts):
            return None, "malformed line", f"not a data line: {body[:40]!r}"
        return None, "wrong field count", f"{len(parts)} fields, expected 18"
    return _parse_record(parts)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# The vectorised parser reads every token as at most two groups of up to 8 decimal digits, each
# converted at once from the 8 bytes that end it (as a little-endian 64-bit word: the "SWAR" method).
_PLAIN = b"0123456789+-. \t\n\v\f\r"  # bytes of a plain data line; any other sends its line to the reference
_ODD = np.ones(256, dtype=bool)
_ODD[np.frombuffer(_PLAIN, dtype=np.uint8)] = False
_PAD = b" " * 8  # so that the 8 bytes ending at any token's end are inside the buffer
_U64 = np.dtype("<u8")
#: _LOW[n]: all bytes of a little-endian word but its last n; _DIGITS[n]: the low nibbles of its last n bytes.
_LOW = np.array([(1 << (8 * (8 - n))) - 1 for n in range(9)], dtype=np.uint64)
_DIGITS = np.array([0x0F0F0F0F0F0F0F0F & ~int(low) for low in _LOW], dtype=np.uint64)
_BIT4 = np.uint64(0x1010101010101010)  # set in every digit byte, clear in "+", "-" and "."
_M8, _M16 = np.uint64(0x00FF00FF00FF00FF), np.uint64(0x0000FFFF0000FFFF)
_K8, _K16, _K32 = np.uint64(10 * 2**8 + 1), np.uint64(100 * 2**16 + 1), np.uint64(10000 * 2**32 + 1)
_S8, _S16, _S32 = np.uint64(8), np.uint64(16), np.uint64(32)
_POW10_INT = 10 ** np.arange(9, dtype=np.uint64)
_POW10 = 10.0 ** np.arange(23)  # exact floats
_MAX_DIGITS = 15  # a mantissa below 10**15 < 2**53 is exact in a float64
_INT_IDX = np.array(_INT_COLS)
_FLOAT_IDX = np.array(_FLOAT_COLS)


def _digits(words: np.ndarray, end: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(value, ok)``: the number written by the ``n`` (0..8) bytes before each ``end`` and whether
    they are all digits, for tokens of plain lines (made of digits, signs and points only: there a
    byte is a digit exactly when its bit 4 is set). ``words[i]`` is the little-endian 64-bit word of
    bytes ``i..i+7``; the first digit is its low byte's, so three multiply-and-shift steps combine
    the 8 digits pairwise into the number (the usual SWAR decimal conversion)."""
    w = words[end - 8]
    ok = ((w | _LOW[n]) & _BIT4) == _BIT4
    return _swar8(w & _DIGITS[n]), ok  # the digits' values, zeros in front


def _swar8(x: np.ndarray) -> np.ndarray:
    """The numbers written by eight digit values per little-endian 64-bit word (one value 0..9 per
    byte, the first digit in the low byte), combined pairwise in place by three multiply-and-shift
    steps (the usual SWAR decimal conversion). O(words).

    >>> _swar8(np.frombuffer(bytes([0, 0, 0, 0, 1, 2, 3, 4]), dtype=np.uint64).copy()).tolist()
    [1234]
    """
    x *= _K8
    x >>= _S8
    x &= _M8
    x *= _K16
    x >>= _S16
    x &= _M16
    x *= _K32
    x >>= _S32
    return x


@dataclass(slots=True)
class _Rows:
    """Parsed records as columns: ``line`` numbers, the integer fields (``ints``, int64, or object
    when a value does not fit) and the float fields (``floats``), one row per record, in line order."""

    line: np.ndarray
    ints: np.ndarray
    floats: np.ndarray

    @classmethod
    def concat(cls, parts: Sequence[_Rows]) -> _Rows:
        if not parts:
            return cls(np.zeros(0, np.int64), np.zeros((0, len(_INT_COLS)), np.int64),
                       np.zeros((0, len(_FLOAT_COLS))))
        if len(parts) == 1:
            return parts[0]
        return cls(np.concatenate([p.line for p in parts]), np.concatenate([p.ints for p in parts]),
                   np.concatenate([p.floats for p in parts]))

    def take(self, index: np.ndarray) -> _Rows:
        return _Rows(self.line[index], self.ints[index], self.floats[index])

    def record(self, i: int) -> SWFRecord:
        values: list[Any] = [0] * 18
        for k, c in enumerate(_INT_COLS):
            values[c] = int(self.ints[i, k])
        for k, c in enumerate(_FLOAT_COLS):
            values[c] = float(self.floats[i, k])
        return _new_record(values)

    def columns(self) -> list[list[Any]]:
        """The 18 fields as lists of Python numbers (a column of one value repeats one object)."""
        cols: list[Any] = [None] * 18
        n = self.line.size
        for table, where in ((self.ints, _INT_COLS), (self.floats, _FLOAT_COLS)):
            bits = np.ascontiguousarray(table).view(np.int64) if table.dtype == np.float64 else table  # -0.0 != 0.0
            same = (bits == bits[:1]).all(axis=0) if n else np.zeros(len(where), dtype=bool)
            for k, c in enumerate(where):
                cols[c] = table[:1, k].tolist() * n if same[k] else table[:, k].tolist()
        return cols

    def records(self, cols: list[list[Any]] | None = None) -> list[SWFRecord]:
        """The rows as :class:`~scheduling.formats.swf_records.SWFRecord` values (from :meth:`columns` if given)."""
        return list(map(_new_record, zip(*(cols or self.columns()), strict=True)))


def _parse_chunk(chunk: bytes, first: int, errors: str, report: SWFReport) -> _Rows:
    """The records of ``chunk`` (whole lines after the header; its first line is number ``first``);
    lines that are not records go to ``report``.

    Vectorised: line and token boundaries and every token's value come from numpy over the whole
    chunk. A token is parsed here only in the forms where that is exact and agrees with Python's
    ``int``/``float``: ``[+-]digits[.digits]`` with at most 15 digits, at most 8 on either side of
    the point (the mantissa, below 2**53, divided by a power of ten <= 10**22 is correctly rounded,
    as ``float`` is). Every line that is not 18 such tokens with integral integer fields (a comment,
    a letter, an exponent, a long number, a wrong field count...) is handed to :func:`_parse_line`,
    the reference, which decides what it is and why it is skipped: the fast path never changes a
    result, it only avoids the per-line work.
    """
    buf = _PAD + chunk if chunk[-1:] == b"\n" else _PAD + chunk + b"\n"
    a = np.frombuffer(buf, dtype=np.uint8)
    ws = a <= 32
    edges = np.flatnonzero(ws[1:] != ws[:-1]) + 1  # token starts and ends, alternating
    ts, te = edges[0::2], edges[1::2]
    ntok = ts.size
    ends = np.flatnonzero(a == 10)
    starts = np.empty(ends.size, dtype=np.int64)
    starts[:1] = len(_PAD)
    starts[1:] = ends[:-1] + 1
    first_tok = np.searchsorted(ts, starts)
    count = np.diff(np.append(first_tok, ntok))
    good = count == 18
    if chunk.translate(None, _PLAIN):  # a byte no plain data line has (a letter, ';', a control byte...)
        odd = np.flatnonzero(_ODD[a])
        good[np.searchsorted(starts, odd, side="right") - 1] = False
    if good.any():
        # Tokens of plain lines start with a digit, a sign or a point; most have no point and at most
        # 8 digits and are converted here; the others (a point, more digits) are the few "special" ones.
        lead = a[ts]
        signed = lead < 46  # "+" or "-"
        ndig = te - ts - signed
        words = np.ndarray((a.size - 7,), dtype=_U64, buffer=buf, strides=(1,))
        mant, valid = _digits(words, te, np.minimum(ndig, 8))
        valid &= ndig >= 1
        dots = np.flatnonzero(a == 46)
        special = np.flatnonzero(ndig > 8)
        if dots.size:
            dot_tok, first_dot, ndots = np.unique(np.searchsorted(ts, dots, side="right") - 1, return_index=True,
                                                  return_counts=True)
            special = np.union1d(special, dot_tok)
            at = np.searchsorted(dot_tok, special)
            hasdot = (at < dot_tok.size) & (dot_tok[np.minimum(at, dot_tok.size - 1)] == special)
            ndots = np.where(hasdot, ndots[np.minimum(at, dot_tok.size - 1)], 0)
            dotpos = np.where(hasdot, dots[first_dot[np.minimum(at, dot_tok.size - 1)]], 0)
        if special.size:
            s_ts, s_te = ts[special], te[special]
            if not dots.size:
                hasdot = np.zeros(special.size, dtype=bool)
                ndots = dotpos = np.zeros(special.size, dtype=np.int64)
            nd = s_te - s_ts - signed[special] - ndots
            nb = np.where(hasdot, s_te - dotpos - 1, np.minimum(nd, 8))  # digits of the last group
            na = nd - nb  # digits before it: the integer part, or the leading digits of a long number
            ok = (nd >= 1) & (nd <= _MAX_DIGITS) & (ndots <= 1) & (na <= 8) & (nb <= 8)
            np.clip(nb, 0, 8, out=nb)
            np.clip(na, 0, 8, out=na)
            low, ok_low = _digits(words, s_te, nb)
            high, ok_high = _digits(words, np.where(hasdot, dotpos, s_te - 8), na)
            valid[special] = ok & ok_low & ok_high
            value = mant.astype(np.float64)
            value[special] = (high * _POW10_INT[nb] + low) / _POW10[np.where(hasdot, nb, 0)]
        else:
            value = mant.astype(np.float64)
        np.negative(value, out=value, where=lead == 45)
        bad_tok = np.flatnonzero(~valid)
        if bad_tok.size:
            good[np.searchsorted(starts, ts[bad_tok], side="right") - 1] = False
        lines = np.flatnonzero(good)
        base = first_tok[lines, None]
        ints = value[base + _INT_IDX]
        if dots.size:  # "17.0" is 17, "2.5" is reported: the reference decides
            whole = (ints == np.floor(ints)).all(axis=1)
            if not whole.all():
                good[lines[~whole]] = False
                lines, base, ints = lines[whole], base[whole], ints[whole]
        rows = _Rows(lines + first, ints.astype(np.int64), value[base + _FLOAT_IDX])
    else:
        rows = _Rows.concat([])
    slow = np.flatnonzero(~good & (count > 0))
    if not slow.size:
        return rows
    extra: list[tuple[int, SWFRecord]] = []
    for i in slow.tolist():
        number = first + i
        text = buf[starts[i]:ends[i]].decode("utf-8", errors)
        parsed = _parse_line(text)
        if parsed is None:
            continue
        rec, reason, detail = parsed
        if rec is None:
            report.skip(number, reason, detail, text)
        else:
            extra.append((number, rec))
    if not extra:
        return rows
    ivals = [[r[c] for c in _INT_COLS] for _, r in extra]
    try:
        iarr = np.array(ivals, dtype=np.int64)
    except OverflowError:  # an integer beyond 64 bits: keep Python ints
        iarr = np.empty((len(ivals), len(_INT_COLS)), dtype=object)
        iarr[:] = ivals
        rows.ints = rows.ints.astype(object)
    merged = _Rows(np.concatenate([rows.line, np.array([n for n, _ in extra], dtype=np.int64)]),
                   np.concatenate([rows.ints, iarr]),
                   np.concatenate([rows.floats, np.array([[r[c] for c in _FLOAT_COLS] for _, r in extra],
                                                         dtype=np.float64)]))
    return merged.take(np.argsort(merged.line, kind="stable"))


def _parse(source: str | os.PathLike | IO, report: SWFReport, comments: list[str]) -> Generator[_Rows, None, None]:
    """The records of ``source``, one :class:`_Rows` per piece of the file; the header comments go
    to ``comments`` (complete before the first piece is yielded), ``report.lines`` counts the lines
    read. Reading stops when the caller stops iterating."""
    blocks, name, text = _open_blocks(source)
    report.source = os.path.basename(name) if name else ""
    errors = "surrogatepass" if text else "replace"
    number = 0  # lines consumed
    in_header = True
    for chunk in _line_chunks(blocks, text):
        pos = 0
        if in_header:  # the header: comments and blank lines up to the first other line
            n = len(chunk)
            while pos < n:
                end = chunk.find(b"\n", pos)
                end = n if end < 0 else end
                line = chunk[pos:end].decode("utf-8", errors)
                stripped = line.strip()
                if stripped and not stripped.startswith(";"):
                    in_header = False
                    break
                if stripped:
                    comments.append(line.rstrip("\r\n").lstrip()[1:])
                number += 1
                pos = end + 1
            if in_header:
                report.lines = number
                continue
            chunk = chunk[pos:]
        rows = _parse_chunk(chunk, number + 1, errors, report)
        number += chunk.count(b"\n") + (chunk[-1:] != b"\n")
        report.lines = number
        report.records += rows.line.size
        yield rows


def read_swf(source: str | os.PathLike | IO) -> tuple[SWFHeader, list[tuple[int, SWFRecord]], SWFReport]:
    """Parse an SWF file: ``(header, [(line_number, record), ...], report)``.

    ``source`` is a path or an open file (text or binary); gzip is recognised by its magic bytes.
    Lines that are not 18 numbers are skipped and listed in the report (``malformed line``,
    ``wrong field count``, ``non-numeric field``, ``non-integer field`` for a fractional value in an
    integer field). Comment lines after the first data line are ignored. O(lines).

    >>> import io
    >>> text = "; MaxProcs: 8\\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\\n2 3 oops\\n"
    >>> header, records, report = read_swf(io.StringIO(text))
    >>> header.max_procs, records[0][1].run_time, [(s.line, s.reason) for s in report.skipped]
    (8, 10.0, [(3, 'malformed line')])
    """
    report = SWFReport()
    comments: list[str] = []
    with _gc_paused():
        rows = _Rows.concat(list(_parse(source, report, comments)))
        report.skipped.sort(key=_line_of)
        records = list(zip(rows.line.tolist(), rows.records(), strict=True))
    return SWFHeader.from_comments(comments), records, report


def _line_of(skipped: SkippedLine) -> int:
    return skipped.line


