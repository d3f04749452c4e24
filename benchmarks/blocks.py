"""Block reductions over 1,024 values: numpy's reshaped reduction against topoalloc._blocks.

    python benchmarks/blocks.py

Prints microseconds per call (median of 7 repeats) for each block length: the allocators of buddy
cubes and tree partitions reduce a node mask or ready-time array over aligned blocks of the
request's size at every what-if question.
"""

from __future__ import annotations

import platform
import statistics
import timeit

import numpy as np

from topoalloc._blocks import block_all, block_max


def per_call(fn, number: int = 2000) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def main() -> None:
    rng = np.random.default_rng(1)
    mask, values = rng.random(1024) < 0.9, rng.random(1024)
    print(f"# {platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}; µs per call")
    print(f"{'block':>6} {'all: reshape':>13} {'block_all':>10} {'max: reshape':>13} {'block_max':>10}")
    for s in (1, 2, 4, 8, 16, 64, 256):
        times = [per_call(lambda s=s: mask.reshape(-1, s).all(axis=1)), per_call(lambda s=s: block_all(mask, s)),
                 per_call(lambda s=s: values.reshape(-1, s).max(axis=1)), per_call(lambda s=s: block_max(values, s))]
        print(f"{s:6d} {times[0]:13.2f} {times[1]:10.2f} {times[2]:13.2f} {times[3]:10.2f}")

if __name__ == "__main__":
    main()
