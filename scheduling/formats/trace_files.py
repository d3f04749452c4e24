"""Finding a trace by name in the shared traces directory (``$TOPOALLOC_TRACES``, else
``../shared/traces`` relative to the current directory), by its exact file name or with one of
the suffixes trace files carry.
"""

from __future__ import annotations

import os
from pathlib import Path

from .swf_records import SWFError

__all__ = ["TraceNotFoundError", "trace_path", "traces_dir", "TRACES_ENV", "DEFAULT_TRACES_DIR"]

#: The environment variable naming the directory of SWF traces.
TRACES_ENV = "TOPOALLOC_TRACES"
#: Where traces are looked for when the variable is not set (relative to the current directory).
DEFAULT_TRACES_DIR = os.path.join("..", "shared", "traces")


class TraceNotFoundError(FileNotFoundError):
    """:func:`trace_path` found no such trace; the message lists what the directory holds."""


def traces_dir() -> Path:
    """The traces directory: ``$TOPOALLOC_TRACES``, else ``../shared/traces`` from the current
    directory."""
    return Path(os.environ.get(TRACES_ENV) or DEFAULT_TRACES_DIR)


_SUFFIXES = ("", ".swf", ".swf.gz", ".gz")


def trace_path(name: str) -> Path:
    """The path of trace ``name`` in :func:`traces_dir`: the exact file name, or ``name`` plus
    ``.swf``, ``.swf.gz`` or ``.gz`` (so ``trace_path("lublin_256")`` finds ``lublin_256.swf.gz``).
    Raises :class:`TraceNotFoundError` naming the directory, how to point elsewhere, and the traces
    the directory holds."""
    if not isinstance(name, str) or not name:
        raise SWFError(f"a trace name must be a non-empty string, got {name!r}")
    base = traces_dir()
    for suffix in _SUFFIXES:
        p = base / (name + suffix)
        if p.is_file():
            return p
    if not base.is_dir():
        raise TraceNotFoundError(
            f"trace {name!r}: the traces directory {str(base)!r} does not exist (resolved from "
            f"{os.getcwd()!r}); set {TRACES_ENV} to the directory holding the SWF files"
        )
    have = sorted(p.name for p in base.iterdir() if p.is_file() and ".swf" in p.name)
    listing = ", ".join(have) if have else "no .swf files"
    raise TraceNotFoundError(
        f"trace {name!r} not found in {str(base)!r} (tried suffixes {', '.join(repr(s) for s in _SUFFIXES)}); "
        f"it holds: {listing}; set {TRACES_ENV} to use another directory"
    )
