"""Metrics: summaries of per-job records and confidence intervals (``summary``, re-exported
here), the paper-specific metrics of gang scheduling (``gang``, seed 004) and Downey's
strategies (``downey``, seed 001), and significant orderings of two configurations over paired
replications (``significance``), imported on first use.
"""

from .summary import *  # noqa: F403 -- the package is the summary module's public face
from .summary import __all__ as _summary_all

__all__ = list(_summary_all)
