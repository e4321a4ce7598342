"""Benchmark redaction (aidlc.redaction) against the detect-secrets plugins, on a realistic prompt.

Usage::

    python benchmarks/redaction.py [--size 100000] [--runs 7] [--json]

What it does
------------
1. Builds the prompt: the Markdown of this repository's own memory bank (stories, bolts, requirements,
   standards) in path order, repeated until it holds ``--size`` characters, with eight secrets put in at
   fixed places (an AWS key id with its secret key, a Stripe key, a GitHub token, a database URL with a
   password, a JWT, a Slack webhook, a Google API key, a ``password:`` assignment). Deterministic.
2. Redaction throughput, median / min over ``--runs`` runs, in this process:

   * ``aidlc``: ``Redactor(env)(text)`` with an environment of 40 variables, 5 of them secret-looking.
   * ``detect_secrets_plugins``: every detect-secrets plugin except the high-entropy and public-IP ones
     (they would blank every digest and address), ``analyze_string`` on each line, each value found
     replaced in the line: the least a redactor built on detect-secrets would do.
   * ``detect_secrets_scan``: ``detect_secrets.core.scan.scan_file`` on the prompt written to a file, the
     same plugins with detect-secrets' false-positive filters (what it would take to use it as intended).

   Each row says how many of the eight secrets are gone from its output, and its time as a ratio to
   ``aidlc`` (the baseline of the same run: ratios survive a busy machine, absolute times do not).
3. Start-up cost, median over ``--runs`` fresh interpreters that import what an LLM command imports
   (``aidlc.llm.factory``, redaction included) and then the detect-secrets modules a redactor would need,
   read from ``-X importtime``: the self time of ``aidlc.redaction``, and everything importing detect-secrets
   adds (its own modules and what they bring, ``requests`` among them); and, in this process, the time the
   first redaction spends compiling the shapes.

detect-secrets is not a dependency of aidlc: without it installed (``pip install detect-secrets``) its rows
are reported as not measured. Exit code 0 either way.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (the line put into the prompt, the parts of it that must be gone after redaction)
SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "aws key id and secret": ("aws_access_key_id = AKIAZ5QXN7EXAMPLE42Q\naws_secret_access_key = "
                              "Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei",
                              ("AKIAZ5QXN7EXAMPLE42Q", "Zk3r9PqLmT8vWx2YbN5cHs7Jd1Fg4Ke6Ra0Uo3Ei")),
    "stripe": ("STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dcXq", ("sk_live_4eC39HqLyjWDarjtT1zdp7dcXq",)),
    "github": ("token ghp_R2d2C3poBb8Ll4Hh6Yy9Qq1Ww3Ee5Tt7Uu0Z", ("ghp_R2d2C3poBb8Ll4Hh6Yy9Qq1Ww3Ee5Tt7Uu0Z",)),
    "url password": ("DATABASE_URL=postgres://shop:Pa55w0rdXyZ@db.internal:5432/shop", ("Pa55w0rdXyZ",)),
    "jwt": ("Authorization header was eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEiLCJyb2xlIjoiYWRtaW4ifQ."
            "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk", ("dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",)),
    "slack webhook": ("alerts go to https://hooks.slack.com/services/T0AB1CD2E/B0FG3HI4J/q8Rst9UvWx0YzAbCdEfGhIjK",
                      ("q8Rst9UvWx0YzAbCdEfGhIjK",)),
    "google api key": ("maps: AIzaSyD4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T", ("AIzaSyD4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T",)),
    "password assignment": ('db:\n  password: "correct-horse-battery-staple"', ("correct-horse-battery-staple",)),
}


def build_prompt(size: int) -> str:
    sources = sorted((ROOT / "memory-bank").rglob("*.md")) or sorted((ROOT / "templates").rglob("*.j2"))
    pieces = [f"<!-- {p.relative_to(ROOT).as_posix()} -->\n{p.read_text(encoding='utf-8')}" for p in sources]
    text = ""
    while len(text) < size:
        text += "\n\n".join(pieces) + "\n\n"
    lines = text[:size].splitlines()
    step = max(1, len(lines) // (len(SECRETS) + 1))
    for index, (secret, _) in enumerate(SECRETS.values(), start=1):
        lines.insert(index * step + index - 1, secret)
    return "\n".join(lines) + "\n"


def environment() -> dict[str, str]:
    env = {f"TOOL_{i}_HOME": f"/opt/tool{i}/share/lib" for i in range(35)}
    env.update({"GITHUB_TOKEN": "ghp_EnvOnly0123456789abcdefghijklmnopq", "DB_PASSWORD": "env-only-password-1",
                "AWS_SECRET_ACCESS_KEY": "EnvOnlySecretKey0123456789abcdefghijklmn", "NPM_TOKEN": "npm-env-only-9",
                "SESSION_SECRET": "env-only-session-secret"})
    return env


def timed(work: Callable[[], str], runs: int) -> tuple[list[float], str]:
    times, out = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        out = work()
        times.append(time.perf_counter() - started)
    return times, out


def removed(text: str) -> int:
    return sum(all(value not in text for value in values) for _, values in SECRETS.values())


def detect_secrets_rows(prompt: str, runs: int, workdir: Path) -> dict[str, dict[str, object]]:
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import transient_settings
    except ImportError:
        return {}
    skipped = ("HighEntropyString", "IPPublicDetector")
    classes = [c for c in get_mapping_from_secret_type_to_class().values()
               if not c.__name__.endswith(skipped) and c.__name__ not in skipped]
    plugins = [c() for c in classes]

    def plugins_only() -> str:
        out = []
        for line in prompt.splitlines():
            found = {value for plugin in plugins for value in plugin.analyze_string(line)}
            for value in sorted(found, key=len, reverse=True):
                line = line.replace(value, "[REDACTED]")
            out.append(line)
        return "\n".join(out)

    path = workdir / "prompt.md"
    path.write_text(prompt, encoding="utf-8")

    def scanned() -> str:
        lines = prompt.splitlines()
        with transient_settings({"plugins_used": [{"name": c.__name__} for c in classes]}):
            for secret in scan_file(str(path)):
                if secret.secret_value:
                    index = secret.line_number - 1
                    lines[index] = lines[index].replace(secret.secret_value, "[REDACTED]")
        return "\n".join(lines)

    rows = {}
    for name, work in (("detect_secrets_plugins", plugins_only), ("detect_secrets_scan", scanned)):
        times, out = timed(work, runs)
        rows[name] = {"times": times, "removed": removed(out)}
    return rows


def import_cost(runs: int) -> dict[str, float | None]:
    """Start-up cost, median of `runs` fresh interpreters that load what an LLM command loads (aidlc.llm.factory,
    redaction included) and then the detect-secrets modules a redactor would need, read from -X importtime (the
    time spent importing, without the noise of starting processes): the self time of aidlc.redaction, and all
    that importing detect-secrets adds (its modules and what they bring: requests, urllib3, ...)."""
    ours, theirs = [], []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import aidlc.llm.factory\n"
                               "import detect_secrets.core.scan, detect_secrets.core.plugins.util, "
                               "detect_secrets.settings"], capture_output=True, text=True, cwd=ROOT)
        rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")][1:]
        ours.append(sum(int(r[0].split(":")[1]) for r in rows if r[2].strip() == "aidlc.redaction") / 1e6)
        if done.returncode == 0:  # top-level imports only: their cumulative time holds what they imported
            theirs.append(sum(int(r[1]) for r in rows if r[2].startswith(" detect_secrets")) / 1e6)
    return {"aidlc_redact_s": statistics.median(ours),
            "detect_secrets_s": statistics.median(theirs) if theirs else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="characters of prompt")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from aidlc.redaction import Redactor, shapes

    prompt = build_prompt(args.size)
    re.purge()
    started = time.perf_counter()
    shapes()  # compiled once, at the first redaction of a process
    compile_s = time.perf_counter() - started
    redactor = Redactor(environment())
    times, out = timed(lambda: redactor(prompt), args.runs)
    rows: dict[str, dict[str, object]] = {"aidlc": {"times": times, "removed": removed(out)}}
    with tempfile.TemporaryDirectory(prefix="aidlc-redaction-") as scratch:
        rows.update(detect_secrets_rows(prompt, args.runs, Path(scratch)))
    baseline = statistics.median(rows["aidlc"]["times"])  # type: ignore[arg-type]
    report = {"size": len(prompt), "secrets": len(SECRETS), "runs": args.runs, "rows": {
        name: {"median_s": statistics.median(row["times"]), "min_s": min(row["times"]),  # type: ignore[arg-type]
               "ratio": statistics.median(row["times"]) / baseline,  # type: ignore[arg-type]
               "secrets_removed": row["removed"]} for name, row in rows.items()},
        "imports": {**import_cost(args.runs), "aidlc_first_use_s": compile_s}}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"prompt: {report['size']} characters, {len(SECRETS)} secrets, median of {args.runs} runs")
    print(f"{'':<24}{'median ms':>10}{'min ms':>9}{'ratio':>8}  secrets removed")
    for name, row in report["rows"].items():
        print(f"{name:<24}{row['median_s'] * 1000:>10.2f}{row['min_s'] * 1000:>9.2f}{row['ratio']:>8.1f}  "
              f"{row['secrets_removed']}/{len(SECRETS)}")
    if len(report["rows"]) == 1:
        print("detect-secrets: not installed, not measured (pip install detect-secrets)")
    imports = report["imports"]
    print(f"start-up: importing aidlc.redaction takes {imports['aidlc_redact_s'] * 1000:.1f} ms, its first "
          f"redaction {imports['aidlc_first_use_s'] * 1000:.1f} ms more (compiling the shapes)")
    extra = imports["detect_secrets_s"]
    print("importing detect-secrets: " + ("not installed" if extra is None else f"{extra * 1000:.0f} ms"))


if __name__ == "__main__":
    main()
