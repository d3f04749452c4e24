"""Executors: where the tasks of a sweep run -- worker processes on this machine
(:class:`LocalExecutor`) or a Dask distributed cluster (:class:`DaskExecutor`). Each yields the
results as they finish, in any order; a task carries its own seed, so a result does not depend on
the executor, the worker or the order.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

__all__ = ["Executor", "LocalExecutor", "DaskExecutor", "make_executor"]


class Executor(Protocol):
    """Runs ``fn`` on every task and yields the results as they finish, in any order."""

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]: ...

    def close(self) -> None: ...


def _watch_parent(parent: int, interval: float = 0.25) -> None:
    """Worker initializer: a daemon thread ends this process as soon as its parent ``parent`` is
    gone (the worker is re-parented, so ``os.getppid()`` changes), e.g. when the command was killed
    with SIGKILL and could not shut its pool down. Without it the workers would keep running
    their simulations (and wait for more) until the machine stops them."""
    import threading

    first = os.getppid()  # ``parent`` itself, or a fork server's pid under other start methods

    def gone() -> bool:
        if os.getppid() != first:
            return True
        if os.name == "posix":  # (os.kill terminates the process on Windows)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                return True
            except OSError:
                pass
        return False

    def watch() -> None:
        while not gone():
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="topoalloc-parent-watch", daemon=True).start()


class LocalExecutor:
    """Worker processes on this machine (``workers``, default ``os.cpu_count()``); with one worker
    or one task, runs in this process. At most ``2 * workers`` tasks are queued at a time, so an
    interrupted sweep stops promptly and loses only the running tasks. A worker exits within a
    quarter of a second when the process that started it dies (:func:`_watch_parent`)."""

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self.workers = workers or os.cpu_count() or 1

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        tasks = list(tasks)
        if self.workers == 1 or len(tasks) <= 1:
            for t in tasks:
                yield fn(t)
            return
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # only with workers

        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(tasks)), initializer=_watch_parent,
                                   initargs=(os.getpid(),))
        pending: set = set()
        it = iter(tasks)
        try:
            for t in it:
                pending.add(pool.submit(fn, t))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.add(pool.submit(fn, nxt))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"LocalExecutor(workers={self.workers})"


class DaskExecutor:
    """Tasks on a Dask distributed cluster: ``address`` (``"tcp://scheduler:8786"``) or a
    ``distributed.Client``. The workers need ``topoalloc`` installed (same version). Needs the
    ``dask`` extra: ``pip install 'topoalloc[dask]'``."""

    def __init__(self, address: Any) -> None:
        try:
            import distributed
        except ImportError:
            raise ImportError("--dask needs dask.distributed: pip install 'topoalloc[dask]'") from None
        if isinstance(address, distributed.Client):
            self.client, self._own = address, False
        else:
            self.client, self._own = distributed.Client(address), True

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        from distributed import as_completed

        tasks = list(tasks)
        if not tasks:
            return
        futures = self.client.map(fn, tasks, pure=False)
        try:
            for _, result in as_completed(futures, with_results=True):
                yield result
        finally:
            self.client.cancel(futures)

    def close(self) -> None:
        if self._own:
            self.client.close()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.client!r})"


def make_executor(workers: int | None = None, dask: Any = None) -> Executor:
    """A :class:`DaskExecutor` if ``dask`` (an address or client) is given, else a :class:`LocalExecutor`."""
    return DaskExecutor(dask) if dask else LocalExecutor(workers)
