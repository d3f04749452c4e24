"""Trace and result formats: the files a simulation reads its jobs from and writes its schedules to.

=====================  ============================================================================
``swf_records``        the Standard Workload Format's values: :class:`SWFRecord`, :class:`SWFHeader`,
                       the :class:`SWFReport` of a read, the errors
``swf_read``           :func:`read_swf`: a file (plain or gzip) into its header and records
``swf_load``           :func:`load_swf`: a trace into scheduling jobs (an :class:`SWFTrace`), with filters
``swf_write``          :func:`write_swf` (a simulated schedule) and :func:`write_records`
``placements``         the sidecar file of the nodes each job ran on (CSV or Parquet)
``trace_files``        :func:`trace_path`: a trace by name in ``$TOPOALLOC_TRACES``
``batsim``             Batsim's files: :func:`read_workload` / :func:`write_workload` (workload JSON),
                       :func:`write_jobs_csv` / :func:`read_jobs_csv` (the ``_jobs.csv`` of a schedule,
                       with each job's nodes as an interval set)
``sacct``              :func:`read_sacct`: a Slurm accounting dump (``sacct --parsable2``) as jobs with
                       their recorded waits and nodes
``load``               :func:`detect_format` and :func:`load_trace`: SWF, Batsim or ``sacct`` by content;
                       :func:`replay_recorded`: a recorded schedule on its recorded nodes
``schedule_export``    :func:`export`: a simulated schedule as Batsim's ``_jobs.csv`` or SWF
=====================  ============================================================================

Each name is imported from its module on first access (PEP 562). :mod:`scheduling.workloads`
exports the same names, as it always has.

>>> import io
>>> from scheduling.formats import load_swf
>>> trace = load_swf(io.StringIO("; MaxProcs: 8\\n1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\\n"))
>>> [(j.id, j.size, j.runtime, j.estimate) for j in trace], trace.machine_size
([(1, 4, 10.0, 20.0)], 8)
"""

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:
    from .batsim import JOBS_COLUMNS, BatsimError, BatsimReport, BatsimWorkload, read_workload, write_workload
    from .batsim_jobs import BatsimSchedule, read_jobs_csv, write_jobs_csv
    from .load import TraceFormatError, detect_format, load_trace, replay_recorded
    from .placements import PlacementFileError, read_placements, write_placements
    from .sacct import SacctError, SacctReport, SacctTrace, expand_nodelist, parse_timelimit, read_sacct
    from .schedule_export import EXPORT_FORMATS, export, export_name
    from .swf_load import SWFTrace, load_swf
    from .swf_read import read_swf
    from .swf_records import (
        SWF_FIELDS,
        SkippedLine,
        SWFError,
        SWFHeader,
        SWFReadError,
        SWFRecord,
        SWFReport,
        SWFWarning,
    )
    from .swf_write import write_records, write_swf
    from .trace_files import DEFAULT_TRACES_DIR, TRACES_ENV, TraceNotFoundError, trace_path, traces_dir

__all__ = [
    "SWFRecord",
    "SWFHeader",
    "SWFReport",
    "SkippedLine",
    "SWFError",
    "SWFReadError",
    "SWFWarning",
    "SWF_FIELDS",
    "read_swf",
    "SWFTrace",
    "load_swf",
    "write_swf",
    "write_records",
    "write_placements",
    "read_placements",
    "PlacementFileError",
    "TraceNotFoundError",
    "trace_path",
    "traces_dir",
    "TRACES_ENV",
    "DEFAULT_TRACES_DIR",
    "read_workload",
    "write_workload",
    "write_jobs_csv",
    "read_jobs_csv",
    "BatsimWorkload",
    "BatsimSchedule",
    "BatsimReport",
    "BatsimError",
    "JOBS_COLUMNS",
    "read_sacct",
    "SacctTrace",
    "SacctReport",
    "SacctError",
    "expand_nodelist",
    "parse_timelimit",
    "detect_format",
    "load_trace",
    "replay_recorded",
    "TraceFormatError",
    "export",
    "export_name",
    "EXPORT_FORMATS",
]

#: Where each public name is defined: name -> module of this package.
_LAZY_ATTRS = {
    **dict.fromkeys(("SWFRecord", "SWFHeader", "SWFReport", "SkippedLine", "SWFError", "SWFReadError", "SWFWarning",
                     "SWF_FIELDS"), "swf_records"),
    "read_swf": "swf_read",
    **dict.fromkeys(("SWFTrace", "load_swf"), "swf_load"),
    **dict.fromkeys(("write_swf", "write_records"), "swf_write"),
    **dict.fromkeys(("write_placements", "read_placements", "PlacementFileError"), "placements"),
    **dict.fromkeys(("TraceNotFoundError", "trace_path", "traces_dir", "TRACES_ENV", "DEFAULT_TRACES_DIR"),
                    "trace_files"),
    **dict.fromkeys(("read_workload", "write_workload", "BatsimWorkload", "BatsimReport", "BatsimError",
                     "JOBS_COLUMNS"), "batsim"),
    **dict.fromkeys(("write_jobs_csv", "read_jobs_csv", "BatsimSchedule"), "batsim_jobs"),
    **dict.fromkeys(("read_sacct", "SacctTrace", "SacctReport", "SacctError", "expand_nodelist", "parse_timelimit"),
                    "sacct"),
    **dict.fromkeys(("detect_format", "load_trace", "replay_recorded", "TraceFormatError"), "load"),
    **dict.fromkeys(("export", "export_name", "EXPORT_FORMATS"), "schedule_export"),
}
__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS)
