"""The aidlc-docs history rules on real repositories: what they find, and how long a whole history takes.

Usage::

    python benchmarks/aidlc_docs_history.py [--mirrors DIR] [--json]

Each case is a bare mirror of a public repository in the aidlc-docs layout (DIR/<owner>+<name>/repo, not part of
this project) and a ref in it. The ref is checked out into a temporary sparse clone (its .gitignore and
aidlc-docs/ only; the history is shared with the mirror) and judged by ``history_findings`` over the ref's whole
history. Prints, per case, the commits, the wall time and the findings per rule code, and the findings of the codes
asked to be shown. A mirror that is absent is skipped, saying so. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aidlc.aidlc_docs.reader import read_project
from aidlc.rules.docs_history_scan import history_findings

# (mirror, ref, the codes whose findings are printed): the violations these repositories are known for.
CASES = (
    ("chrislee-hp+chustard", "refs/heads/main", ("AIDLC-DOCS-020",)),  # merge 10e5187 dropping 13 entries
    ("JJWren+Mocksmith", "refs/pull/34/head", ("AIDLC-DOCS-021", "AIDLC-DOCS-025")),  # 99bcd7e edits a timestamp
    ("Anubhav-Citizen+plsql2java", "refs/heads/main", ("AIDLC-DOCS-026",)),  # the 2025-01-01 placeholder clock
    ("CraftsmenLtd+BloodConnect", "refs/heads/I-568-donation-map", ("AIDLC-DOCS-024",)),  # 745550c, .gitignore
    ("miraniyam+aidlc-i13", "refs/heads/main", ("AIDLC-DOCS-020", "AIDLC-DOCS-025")),  # 500c523, 6c202e2
    ("80-hours-a-week+DocSuri", "refs/heads/develop", ()),  # 1,336 commits: the time
)


def judge(mirror: Path, ref: str, shown: tuple[str, ...]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="aidlc-docs-history-") as folder:
        work = Path(folder)
        for args in (("clone", "-q", "--shared", "--no-checkout", str(mirror), str(work)),
                     ("-C", str(work), "sparse-checkout", "set", "--no-cone", "/.gitignore", "/aidlc-docs/"),
                     ("-C", str(work), "fetch", "-q", "origin", f"+{ref}:refs/heads/judged"),
                     ("-C", str(work), "checkout", "-q", "judged")):
            subprocess.run(["git", *args], check=True, capture_output=True)
        commits = int(subprocess.run(["git", "-C", str(work), "rev-list", "--count", "HEAD"], check=True,
                                     capture_output=True, text=True).stdout)
        project = read_project(work, "aidlc-docs")  # the work tree names the units the history's lines name
        started = time.perf_counter()
        found = history_findings(project)
        seconds = time.perf_counter() - started
    return {"commits": commits, "seconds": round(seconds, 2), "codes": dict(sorted(Counter(f.code for f in found)
                                                                                    .items())),
            "shown": [f"{f.code} {f.path}:{f.line or ''} {f.message}" for f in found if f.code in shown]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    for name, ref, shown in CASES:
        mirror = args.mirrors / name / "repo"
        report[f"{name} {ref}"] = judge(mirror, ref, shown) if mirror.is_dir() else {"skipped": f"no {mirror}"}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for case, result in report.items():
        if "skipped" in result:
            print(f"{case}: skipped ({result['skipped']})")
            continue
        print(f"{case}: {result['commits']} commits, {result['seconds']} s, {result['codes']}")
        for line in result["shown"]:
            print(f"  {line[:220]}")


if __name__ == "__main__":
    main()
