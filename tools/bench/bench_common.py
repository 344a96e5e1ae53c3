"""Timing shared by the benchmarks in tools/bench/."""
import statistics
import time


def batch_ms(fn, sync, repeat, batch):
    """Median over `repeat` batches of `batch` back-to-back calls of fn, in ms per call, timed on
    the host between calls of `sync` (so launch overhead overlaps the device work, as in a
    model); one call first to warm up."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3 / batch)
    return statistics.median(times)
