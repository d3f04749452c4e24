"""The version of the ``topoalloc`` distribution (all three packages), for ``__version__``.

The code that runs is the code next to this file, so the version is looked up there first: in a
source checkout (run from the tree, or installed in editable mode) the ``pyproject.toml`` one level
above the package names the project ``topoalloc`` and holds its version; otherwise (an installed
wheel) the installed package metadata does. ``0+unknown`` if neither is found. Checking the
checkout first keeps a tree on ``PYTHONPATH`` from reporting the version of another installed copy.
It is looked up on first use of ``__version__`` (PEP 562), not on import: reading the metadata
costs more than importing the rest of :mod:`topologies`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["__version__", "find_version", "version_attr"]  # noqa: F822 (__version__ comes from __getattr__)

_DISTRIBUTION = "topoalloc"


def find_version(root: Path | None = None) -> str:
    """The version: from ``root/pyproject.toml`` if it is the ``topoalloc`` project (``root``
    defaults to the directory above this package), else from the installed metadata."""
    import tomllib

    root = Path(__file__).resolve().parent.parent if root is None else Path(root)
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = {}
    if project.get("name") == _DISTRIBUTION and isinstance(project.get("version"), str):
        return project["version"]
    from importlib.metadata import PackageNotFoundError  # costly: only when there is no checkout
    from importlib.metadata import version as _installed_version

    try:
        return _installed_version(_DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


def version_attr(module: str, name: str) -> Any:
    """A module's ``__getattr__`` for ``__version__``: found on first use, then kept here."""
    if name != "__version__":
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    value = globals().get("__version__")
    if value is None:
        value = globals()["__version__"] = find_version()
    return value


def __getattr__(name: str) -> Any:
    return version_attr(__name__, name)
