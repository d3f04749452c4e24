"""The version of the ``topoalloc`` distribution (all three packages share it), for ``__version__``.

This file is its one source: the build reads it from here (``[tool.hatch.version]`` in
``pyproject.toml``), so the running code always knows its own version without reading package
metadata or the project file (an ``importlib.metadata`` lookup costs a command about as much as
importing :mod:`scheduling` does).
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
