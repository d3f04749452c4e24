"""Results on disk: one SQLite row per point and replication, written as each simulation finishes.

Every row holds the point's full configuration (JSON), its identity (``point_id``, the digest of
that configuration, and ``replication``), the package version, the simulation seed, wall time, the
summary metrics as columns and per-size sums (jobs, turnaround, run and queueing times: the fairness
curves and seed 004's per-class table, :func:`~scheduling.experiments.report.class_rows`). A row is
written in one transaction, so a point is either fully stored or not at all; ``(point_id,
replication)`` is the primary key, so re-running a sweep skips what is stored (:meth:`ResultStore.done`)
and an interrupted sweep resumes. The study's description is stored too, so ``topoalloc plot`` can
redraw its figures from the file alone. A file written before a metric was added gets its column
(NULL, read as NaN) when opened.

Export with :meth:`ResultStore.to_csv` and :meth:`ResultStore.to_parquet` (needs ``pyarrow``).
"""

from __future__ import annotations

import csv
import json
import math
import sqlite3
import time
from collections.abc import Iterable, Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from .config import METRICS

__all__ = ["ResultStore", "package_version", "ROW_COLUMNS"]

SCHEMA_VERSION = 1


def package_version() -> str:
    """The installed ``topoalloc`` version (``0+unknown`` when running from an uninstalled tree)."""
    try:
        return version("topoalloc")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


_COLUMNS: list[tuple[str, str]] = [
    ("point_id", "TEXT NOT NULL"), ("replication", "INTEGER NOT NULL"), ("experiment", "TEXT"),
    ("topology", "TEXT"), ("allocator", "TEXT"), ("policy", "TEXT"), ("load", "REAL"), ("jobs", "INTEGER"),
    ("warmup", "INTEGER"), ("seed", "INTEGER"), ("sim_seed", "INTEGER"), ("workload", "TEXT"),
    ("kept", "INTEGER"), ("unfinished", "INTEGER"), ("duration", "REAL"),
    *[(m, "REAL") for m in METRICS],
    ("wall_time", "REAL"), ("finished_at", "REAL"), ("version", "TEXT"), ("config", "TEXT NOT NULL"),
    ("fairness", "TEXT"),
]
#: Column names of a result row, in order.
ROW_COLUMNS = [c for c, _ in _COLUMNS]
_EXPORT = [c for c in ROW_COLUMNS if c not in ("fairness",)]


class ResultStore:
    """A SQLite file of results (``":memory:"`` for a throw-away store).

    >>> s = ResultStore(":memory:"); len(s), s.done()
    (0, set())
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=60.0)
        self._conn.row_factory = sqlite3.Row
        cols = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
        with self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:" else "PRAGMA journal_mode=MEMORY")
            self._conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._conn.execute(f"CREATE TABLE IF NOT EXISTS results ({cols}, PRIMARY KEY (point_id, replication))")
            self._conn.execute("CREATE TABLE IF NOT EXISTS studies (name TEXT PRIMARY KEY, config TEXT NOT NULL, "
                               "version TEXT, updated REAL)")
            self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        schema = self._conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        if int(schema) != SCHEMA_VERSION:
            raise ValueError(f"{self.path}: result store schema {schema}, this version reads {SCHEMA_VERSION}")
        # metrics added since the file was written: new (NULL, read as NaN) columns, rows kept
        have = {r[1] for r in self._conn.execute("PRAGMA table_info(results)")}
        with self._conn:
            for name, kind in _COLUMNS:
                if name not in have:
                    self._conn.execute(f"ALTER TABLE results ADD COLUMN {name} {kind}")

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
        NaN), optionally only those of ``experiment`` (a name or names) or of ``point_ids``."""
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
        sql += " ORDER BY rowid"
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

    def iter_export(self) -> Iterator[dict[str, Any]]:
        for r in self._conn.execute(f"SELECT {', '.join(_EXPORT)} FROM results ORDER BY rowid"):
            yield dict(r)

    # -- export -----------------------------------------------------------------------------------
    def to_csv(self, path: str | Path) -> int:
        """Write every row (without the fairness sums) to a CSV file; returns the row count."""
        n = 0
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=_EXPORT)
            w.writeheader()
            for row in self.iter_export():
                w.writerow(row)
                n += 1
        return n

    def to_parquet(self, path: str | Path) -> int:
        """Write every row to a Parquet file (needs ``pyarrow``: ``pip install topoalloc[parquet]``)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("Parquet export needs pyarrow: pip install 'topoalloc[parquet]'") from None
        rows = list(self.iter_export())
        table = pa.table({c: [r[c] for r in rows] for c in _EXPORT})
        pq.write_table(table, path)
        return len(rows)

    def export(self, path: str | Path) -> int:
        """Export by file suffix: ``.csv`` or ``.parquet``."""
        suffix = Path(path).suffix.lower()
        if suffix == ".csv":
            return self.to_csv(path)
        if suffix in (".parquet", ".pq"):
            return self.to_parquet(path)
        raise ValueError(f"cannot export to {str(path)!r}: use a .csv or .parquet file name")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({self.path!r})"
