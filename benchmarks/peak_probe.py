"""The peak-memory probe both benchmarks put into the processes they measure."""

# Put on PYTHONPATH of every measured child as sitecustomize.py. At exit it writes VmHWM, the peak RSS of the
# program image the child exec'd. ru_maxrss cannot give that on Linux: a child's value starts at the parent's
# peak, because exec carries the high-water mark of the forked (or vfork-shared) address space over.
PEAK_PROBE = """
import atexit
import os
import sys


def _aidlc_bench_peak():
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        with open(os.environ["AIDLC_BENCH_PEAK_FILE"], "w", encoding="ascii") as out:
            out.write(str(kib * 1024))
    except (OSError, KeyError, StopIteration, ValueError):
        pass


atexit.register(_aidlc_bench_peak)
_os_exit = os._exit


def _exit_after_probe(code):  # aidlc leaves with os._exit (no teardown), which skips atexit
    _aidlc_bench_peak()
    _os_exit(code)


os._exit = _exit_after_probe
sys.path[:] = [entry for entry in sys.path if entry != os.environ.get("AIDLC_BENCH_PROBE_DIR")]
"""
