"""Sphinx configuration of the topoalloc documentation site.

Build (the command the README gives and CI runs)::

    python -m pip install -e ".[docs]" && python -m sphinx -W --keep-going -n -b html docs docs/_build/html

Pages are Markdown (MyST); the API reference is generated from the docstrings (reST) of the packages'
public ``__all__`` by the local extension ``_ext/public_api.py``. Why Sphinx: see ``about.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the packages, also when the docs are built without installing them

from topologies import __version__  # noqa: E402

project = "topoalloc"
author = "the topoalloc authors"
copyright = "the topoalloc authors"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "public_api",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

# -- MyST ------------------------------------------------------------------------------------------
myst_heading_anchors = 3  # [text](page.md#a-heading) links, as on GitHub

# -- API reference ---------------------------------------------------------------------------------
#: The packages whose public ``__all__`` makes the API reference, in page order. The last two are
#: documented once they exist.
public_api_packages = [
    "topologies",
    "topoalloc",
    "topoalloc.mesh",
    "topoalloc.hypercube",
    "topoalloc.tree",
    "topoalloc.grid",
    "topoalloc.locality",
    "topoalloc.testing",
    "scheduling",
    "scheduling.kernel",
    "scheduling.models",
    "scheduling.metrics",
    "scheduling.formats",
    "scheduling.policies",
    "scheduling.workloads",
    "scheduling.experiments",
    "scheduling.reproduce",
]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "fully-qualified"  # the short form writes "~typing.Any" inside dataclass signatures
python_use_unqualified_type_names = True
autodoc_preserve_defaults = False
autoclass_content = "both"

# -- nitpicky cross-references ---------------------------------------------------------------------
# ``-n`` makes every unresolved reference a warning (an error under ``-W``). The documentation has
# no network access at build time (no intersphinx), so references to types defined OUTSIDE this
# project -- the standard library, numpy, networkx, bitarray, hypothesis, matplotlib, pandas, dask,
# simpy -- are ignored here, and only those. A reference into topologies, topoalloc or scheduling
# that does not resolve still fails the build.
_EXTERNAL_MODULES = (
    "numpy", "np", "numpy.typing", "npt", "networkx", "nx", "bitarray", "hypothesis", "matplotlib", "pandas",
    "dask", "distributed", "simpy", "pyarrow", "yaml", "hostlist",
    "collections", "collections.abc", "typing", "typing_extensions", "types", "pathlib", "os", "io", "re",
    "datetime", "enum", "dataclasses", "abc", "concurrent", "concurrent.futures", "sqlite3", "argparse",
    "random", "copy", "fractions", "decimal", "functools", "itertools", "contextlib", "logging", "subprocess",
    "unittest", "warnings", "gzip", "csv", "json", "tomllib", "heapq", "array", "numbers",
)
nitpick_ignore_regex = [
    (r"py:.*", r"(" + "|".join(m.replace(".", r"\.") for m in _EXTERNAL_MODULES) + r")\..*"),
    # bare names of standard-library and numpy types as annotations spell them
    (r"py:.*", r"(ndarray|NDArray|Path|PathLike|Generator|Iterable|Iterator|Sequence|Mapping|Callable|"
               r"MutableMapping|Hashable|RandomState|SeedSequence|BitGenerator|DTypeLike|ArrayLike|Self|"
               r"Graph|DiGraph|TextIO|BinaryIO|IO|Executor|Future|Connection|Namespace|"
               r"SearchStrategy|RuleBasedStateMachine|Axes|Figure|DataFrame|Client|Environment|"
               r"frozenbitarray|bitarray|Fraction|Enum|datetime|date|timedelta)"),
]

# -- HTML ------------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"topoalloc {release}"
html_static_path: list[str] = []
