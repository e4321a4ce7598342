"""What both benchmarks measure with: the peak-memory probe put into measured processes, the
environment that runs them, the statistic of a set of runs, and the installed `aidlc`."""

from __future__ import annotations

import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

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
sys.path[:] = [entry for entry in sys.path if entry != os.environ.get("AIDLC_BENCH_PROBE_DIR")]
"""


def probed_env(workdir: Path) -> tuple[dict[str, str], Path, bool]:
    """(environment, peak file, whether the probe reports) for the processes a benchmark measures.

    * Peak RSS: the probe writes VmHWM to the peak file; where there is no /proc (or the interpreter has a
      sitecustomize of its own, which the probe would hide) it does not report.
    * Bytecode: a private, warmed cache (PYTHONPYCACHEPREFIX, writes allowed), so start-up never includes
      compiling stale or missing .pyc files (PYTHONDONTWRITEBYTECODE=1 would otherwise make every run
      recompile edited modules); this matches an installed wheel, whose .pyc files are compiled at install.
    """
    probe_dir = workdir / "probe"
    probe_dir.mkdir(parents=True, exist_ok=True)
    (probe_dir / "sitecustomize.py").write_text(PEAK_PROBE, encoding="utf-8")
    peak_file = workdir / "peak-bytes"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    probing = Path("/proc/self/status").exists() and importlib.util.find_spec("sitecustomize") is None
    if probing:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(probe_dir), os.environ.get("PYTHONPATH")]))
        env["AIDLC_BENCH_PROBE_DIR"] = str(probe_dir)
        env["AIDLC_BENCH_PEAK_FILE"] = str(peak_file)
    return env, peak_file, probing


@dataclass
class Stat:
    """Median, min and max seconds over the runs; peak RSS (MiB, max over the runs) where measured."""

    median: float
    min: float
    max: float
    runs: int
    peak_mib: float | None = None

    @classmethod
    def of(cls, seconds: list[float], peaks: list[int] | None = None, **extra: Any) -> Any:
        peak = max(peaks) / 2**20 if peaks else None
        return cls(statistics.median(seconds), min(seconds), max(seconds), len(seconds), peak, **extra)


def aidlc_executable() -> str:
    beside = Path(sys.executable).with_name("aidlc")
    found = str(beside) if beside.exists() else shutil.which("aidlc")
    if not found:
        raise SystemExit("benchmark: no `aidlc` console script; install the package (pip install -e .)")
    return found

T = TypeVar("T")


def in_workdir(workdir: Path | None, prefix: str, run: Callable[[Path], T]) -> T:
    """`run` in `workdir` (made when missing, kept afterwards), or in a temporary folder removed afterwards."""
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        return run(workdir.resolve())
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        return run(Path(tmp).resolve())
