"""Results on disk: one SQLite row per point and replication, written as each simulation finishes.

Every row holds the point's full configuration (JSON), its identity (``point_id``, the digest of
that configuration, and ``replication``), the simulation semantics it was computed under
(:data:`~scheduling.kernel.semantics.SIMULATION_SEMANTICS`, also part of the digest), the package version,
the simulation seed, the load offered on requested and on granted processors, the summary metrics
as columns (saturation evidence included) and per-size sums (jobs, turnaround, run and queueing
times: the fairness curves and seed 004's per-class table,
:func:`~scheduling.experiments.report.class_rows`). A row is written in one transaction, so a point
is either fully stored or not at all; ``(point_id, replication)`` is the primary key, so re-running
a sweep skips what is stored (:meth:`ResultStore.done`) and an interrupted sweep resumes.

**Identity.** The digest covers everything a result depends on (see
:class:`~scheduling.experiments.schema.Point`): a run with other ``jobs``, warm-up, workload, policy
or allocator parameters, seed or simulation semantics has another ``point_id`` and is computed
afresh; readers select rows by the point ids and replication counts of the configuration asked for
(:func:`~scheduling.experiments.runner.study_rows`), so a table never mixes configurations. The
study's description is stored too, so ``topoalloc plot`` can redraw its figures from the file
alone (the configuration last run under that name).

**Older files.** A file written before a metric was added gets its column (NULL, read as NaN) when
opened. A schema-1 file (before rows were keyed by the simulation semantics) is upgraded in place:
its rows are kept (for export) but their ids can never match a current point, so they are never
served; :attr:`ResultStore.upgraded_from` and :meth:`ResultStore.unused_rows` tell the command line
what to say. A file from a newer version is refused.

Export with :meth:`ResultStore.to_csv` and :meth:`ResultStore.to_parquet` (needs ``pyarrow``): rows
ordered by experiment, configuration, load, point and replication, so two runs of the same command
export byte-identical files apart from the timing columns (``wall_time``, ``finished_at``: the last
two columns; ``timing=False`` leaves them out).
"""

from __future__ import annotations

import csv
import json
import math
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..kernel.semantics import SIMULATION_SEMANTICS
from .schema import METRICS

__all__ = ["ResultStore", "StoreVersionError", "package_version", "ROW_COLUMNS", "TIMING_COLUMNS", "SCHEMA_VERSION"]

#: 2: rows keyed by the simulation semantics (``semantics`` column, part of ``point_id``).
SCHEMA_VERSION = 2


class StoreVersionError(ValueError):
    """A result store written by a newer version of the library (or not a result store)."""


def package_version() -> str:
    """The ``topoalloc`` version, ``topologies.__version__`` (the running code's, from
    ``topologies/_version.py``)."""
    from topologies import __version__

    return __version__


_COLUMNS: list[tuple[str, str]] = [
    ("point_id", "TEXT NOT NULL"), ("replication", "INTEGER NOT NULL"), ("experiment", "TEXT"),
    ("topology", "TEXT"), ("allocator", "TEXT"), ("policy", "TEXT"), ("load", "REAL"), ("jobs", "INTEGER"),
    ("warmup", "INTEGER"), ("seed", "INTEGER"), ("sim_seed", "INTEGER"), ("workload", "TEXT"),
    ("kept", "INTEGER"), ("unfinished", "INTEGER"), ("duration", "REAL"),
    *[(m, "REAL") for m in METRICS],
    ("wall_time", "REAL"), ("finished_at", "REAL"), ("version", "TEXT"), ("config", "TEXT NOT NULL"),
    ("fairness", "TEXT"), ("semantics", "INTEGER"), ("offered_requested", "REAL"), ("offered_granted", "REAL"),
]
#: Column names of a result row, in order.
ROW_COLUMNS = [c for c, _ in _COLUMNS]
#: Columns that differ between two runs of the same simulation (exported last, or left out).
TIMING_COLUMNS = ("wall_time", "finished_at")
_EXPORT = [c for c in ROW_COLUMNS if c not in ("fairness", *TIMING_COLUMNS)]
_EXPORT_ORDER = "experiment, topology, allocator, policy, load, point_id, replication"


class ResultStore:
    """A SQLite file of results (``":memory:"`` for a throw-away store).

    >>> s = ResultStore(":memory:"); len(s), s.done()
    (0, set())
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        #: The schema this file had before it was upgraded on opening (``None``: not upgraded).
        self.upgraded_from: int | None = None
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=60.0)
        self._conn.row_factory = sqlite3.Row
        cols = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
        try:
            with self._conn:
                self._conn.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:"
                                   else "PRAGMA journal_mode=MEMORY")
                self._conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                self._conn.execute(f"CREATE TABLE IF NOT EXISTS results ({cols}, PRIMARY KEY (point_id, replication))")
                self._conn.execute("CREATE TABLE IF NOT EXISTS studies (name TEXT PRIMARY KEY, config TEXT NOT NULL, "
                                   "version TEXT, updated REAL)")
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            schema = int(self._conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0])
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            self._conn.close()
            raise StoreVersionError(f"{self.path} is not a topoalloc result store ({exc})") from None
        if schema > SCHEMA_VERSION:
            self._conn.close()
            raise StoreVersionError(f"{self.path}: result store schema {schema} was written by a newer topoalloc; "
                                    f"this version reads schema {SCHEMA_VERSION} and older")
        # metrics added since the file was written: new (NULL, read as NaN) columns, rows kept
        have = {r[1] for r in self._conn.execute("PRAGMA table_info(results)")}
        with self._conn:
            for name, kind in _COLUMNS:
                if name not in have:
                    self._conn.execute(f"ALTER TABLE results ADD COLUMN {name} {kind}")
            if schema < SCHEMA_VERSION:
                # schema 1 rows have ids without the simulation semantics: kept, never matched again
                self._conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
                self.upgraded_from = schema

    # -- writing ----------------------------------------------------------------------------------
    def add(self, row: dict[str, Any]) -> bool:
        """Store one finished replication (a dict from :func:`~scheduling.experiments.run_task`) in
        one transaction; returns ``False`` if that point and replication were already stored."""
        missing = [c for c in ("point_id", "replication", "config") if row.get(c) is None]
        if missing:
            raise ValueError(f"a result row needs {', '.join(missing)}; got keys {sorted(row)}")
        values = []
        for c in ROW_COLUMNS:
            v = row.get(c)
            if c in ("config", "workload", "fairness") and v is not None and not isinstance(v, str):
                v = json.dumps(v, sort_keys=True)
            values.append(v)
        with self._conn:
            cur = self._conn.execute(
                f"INSERT INTO results ({', '.join(ROW_COLUMNS)}) VALUES ({', '.join('?' * len(values))}) "
                "ON CONFLICT (point_id, replication) DO NOTHING",
                values,
            )
        return cur.rowcount == 1

    def save_study(self, name: str, config: dict[str, Any]) -> None:
        """Remember a study's description (figures to draw, experiments) under ``name``."""
        with self._conn:
            self._conn.execute("INSERT OR REPLACE INTO studies VALUES (?, ?, ?, ?)",
                               (name, json.dumps(config, sort_keys=True), package_version(), time.time()))

    # -- reading ----------------------------------------------------------------------------------
    def done(self) -> set[tuple[str, int]]:
        """``(point_id, replication)`` of every stored row."""
        return {(r[0], r[1]) for r in self._conn.execute("SELECT point_id, replication FROM results")}

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def unused_rows(self, point_ids: Iterable[str] | None = None, experiments: Iterable[str] | None = None) -> int:
        """Rows that a reader of ``point_ids`` does not use although they belong to the same
        ``experiments`` (other configurations run under those names: other jobs, seeds, older
        simulation semantics, ...); with neither argument, the rows of older semantics."""
        if point_ids is None:
            return self._conn.execute("SELECT COUNT(*) FROM results WHERE semantics IS NULL OR semantics != ?",
                                      (SIMULATION_SEMANTICS,)).fetchone()[0]
        ids = set(point_ids)
        names = list(experiments or [])
        sql = "SELECT point_id FROM results"
        if names:
            sql += f" WHERE experiment IN ({', '.join('?' * len(names))})"
        return sum(1 for (pid,) in self._conn.execute(sql, names) if pid not in ids)

    def studies(self) -> dict[str, dict[str, Any]]:
        """Stored study descriptions by name."""
        return {r["name"]: json.loads(r["config"]) for r in self._conn.execute("SELECT name, config FROM studies")}

    def experiments(self) -> list[str]:
        """Experiment names with results, in first-stored order."""
        return [r[0] for r in self._conn.execute(
            "SELECT experiment FROM results GROUP BY experiment ORDER BY MIN(rowid)")]

    def rows(self, experiment: str | Iterable[str] | None = None, *, point_ids: Iterable[str] | None = None
             ) -> list[dict[str, Any]]:
        """Stored rows as dicts (``config``, ``workload`` and ``fairness`` parsed, NULL metrics as
        NaN), optionally only those of ``experiment`` (a name or names) or of ``point_ids``; in the
        export order (experiment, topology, allocator, policy, load, point, replication), never in
        the order the simulations happened to finish."""
        sql = "SELECT * FROM results"
        args: list[Any] = []
        where = []
        if experiment is not None:
            names = [experiment] if isinstance(experiment, str) else list(experiment)
            where.append(f"experiment IN ({', '.join('?' * len(names))})")
            args += names
        wanted = None
        if point_ids is not None:
            ids = list(dict.fromkeys(point_ids))
            if len(ids) <= 500:
                where.append(f"point_id IN ({', '.join('?' * len(ids))})")
                args += ids
            else:  # beyond SQLite's limit on bound variables: filter here
                wanted = set(ids)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {_EXPORT_ORDER}"  # not the completion order: results do not depend on it
        return [self._decode(r) for r in self._conn.execute(sql, args) if wanted is None or r["point_id"] in wanted]

    @staticmethod
    def _decode(r: sqlite3.Row) -> dict[str, Any]:
        d = dict(r)
        for c in ("config", "workload", "fairness"):
            if d.get(c):
                d[c] = json.loads(d[c])
        for m in (*METRICS, "duration", "load"):
            if d.get(m) is None and m != "load":
                d[m] = math.nan
        return d

    @staticmethod
    def export_columns(timing: bool = True) -> list[str]:
        """The exported columns: every row column but the fairness sums, timing columns last."""
        return _EXPORT + (list(TIMING_COLUMNS) if timing else [])

    def iter_export(self, timing: bool = True) -> Iterator[dict[str, Any]]:
        """Rows for export (see the module docstring for the order)."""
        cols = self.export_columns(timing)
        for r in self._conn.execute(f"SELECT {', '.join(cols)} FROM results ORDER BY {_EXPORT_ORDER}"):
            yield dict(r)

    # -- export -----------------------------------------------------------------------------------
    def to_csv(self, path: str | Path, *, timing: bool = True) -> int:
        """Write every row (without the fairness sums) to a CSV file; returns the row count.
        ``timing=False`` leaves out the wall-clock columns, so equal results give equal files."""
        n = 0
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=self.export_columns(timing), lineterminator="\n")
            w.writeheader()
            for row in self.iter_export(timing):
                w.writerow(row)
                n += 1
        return n

    def to_parquet(self, path: str | Path, *, timing: bool = True) -> int:
        """Write every row to a Parquet file (needs ``pyarrow``: ``pip install topoalloc[parquet]``)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("Parquet export needs pyarrow: pip install 'topoalloc[parquet]'") from None
        rows = list(self.iter_export(timing))
        table = pa.table({c: [r[c] for r in rows] for c in self.export_columns(timing)})
        pq.write_table(table, path)
        return len(rows)

    def export(self, path: str | Path, *, timing: bool = True) -> int:
        """Export by file suffix: ``.csv`` or ``.parquet``."""
        suffix = Path(path).suffix.lower()
        if suffix == ".csv":
            return self.to_csv(path, timing=timing)
        if suffix in (".parquet", ".pq"):
            return self.to_parquet(path, timing=timing)
        raise ValueError(f"cannot export to {str(path)!r}: use a .csv or .parquet file name")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({self.path!r})"
