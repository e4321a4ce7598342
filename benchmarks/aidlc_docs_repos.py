"""Run `aidlc validate` over real repositories in the aidlc-docs layout (AWS aidlc-workflows), for development.

Each repository is a bare git mirror at MIRRORS/<owner>+<name>/repo (absent ones are skipped). Its aidlc-docs/
folder is taken from the default branch, or where that has none, from the newest branch that has one, written to a
temporary folder (a blob the mirror lacks is left out and counted), and validated in this process. Prints the
findings per repository and rule, and with --show the findings themselves.

    python benchmarks/aidlc_docs_repos.py [--mirrors /work/.mirror] [--show CODE_OR_REPO ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from aidlc.rules import validate
from aidlc.workspace import open_records

REPOS = ("chrislee-hp/chustard", "miraniyam/aidlc-i13", "CraftsmenLtd/BloodConnect", "JJWren/Mocksmith",
         "80-hours-a-week/DocSuri", "Anubhav-Citizen/plsql2java", "Gussi/wolfenstein-clone-iceland-aws",
         "hashtagf/ui-agentbedrock")
DOCS = "aidlc-docs"


def git(gitdir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, check=False)


def docs_ref(gitdir: Path) -> str | None:
    """The default branch when it holds aidlc-docs/, else the most recently committed branch that does."""
    if git(gitdir, "cat-file", "-e", f"HEAD:{DOCS}").returncode == 0:
        return "HEAD"
    branches = git(gitdir, "for-each-ref", "--sort=-committerdate", "--format=%(refname:short)", "refs/heads")
    for branch in branches.stdout.decode().split():
        if git(gitdir, "cat-file", "-e", f"{branch}:{DOCS}").returncode == 0:
            return branch
    return None


def export(gitdir: Path, ref: str, into: Path) -> int:
    """Write the files of aidlc-docs/ at `ref` under `into`; the number of blobs the mirror lacks."""
    listing = git(gitdir, "ls-tree", "-r", "-z", ref, "--", DOCS).stdout.decode().split("\0")
    missing = 0
    for row in filter(None, listing):
        meta, path = row.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind != "blob" or mode == "120000":
            continue
        blob = git(gitdir, "cat-file", "blob", sha)
        if blob.returncode != 0:
            missing += 1
            continue
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--show", nargs="*", default=[], help="print the findings of these rule codes or repos")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    for repo in REPOS:
        gitdir = args.mirrors / repo.replace("/", "+") / "repo"
        if not gitdir.is_dir():
            print(f"{repo}: no mirror at {gitdir}, skipped")
            continue
        ref = docs_ref(gitdir)
        if ref is None:
            print(f"{repo}: no {DOCS}/ on any branch, skipped")
            continue
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            missing = export(gitdir, ref, root)
            started = time.perf_counter()
            report = validate(open_records(root))
            took = time.perf_counter() - started
        s = report.summary
        counts = Counter(f.code for f in report.findings)
        total.update(counts)
        print(f"{repo} @ {ref}: {s.files} files, {s.errors} errors, {s.warnings} warnings, {s.infos} notes "
              f"({took:.2f} s" + (f"; {missing} blobs missing from the mirror" if missing else "") + ")")
        for code, count in sorted(counts.items()):
            print(f"    {code}  {count}")
        for finding in report.findings:
            if finding.code in args.show or repo in args.show:
                where = f"{finding.path}:{finding.line}" if finding.line else finding.path
                print(f"      {finding.code} {where} {finding.message}")
    print("all:", ", ".join(f"{code} {count}" for code, count in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
