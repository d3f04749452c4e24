"""Scheduling: policies, the event simulator, workloads, metrics, experiments, the command line."""

__all__: list[str] = []
