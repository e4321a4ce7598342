"""Run `aidlc validate` over real repositories in the aidlc-docs layout (AWS aidlc-workflows), for development.

Each repository is a bare git mirror at MIRRORS/<owner>+<name>/repo (absent ones are skipped). It is cloned into a
temporary folder (sharing the mirror's objects) at its default branch, or where that has no aidlc-docs/, at the
newest branch that has one, and validated in this process: the work-tree rules and the history rules over that
branch's history (a blob the mirror lacks is left out of the checkout and counted). Prints the findings per
repository and rule, and with --show the findings themselves.

    python benchmarks/aidlc_docs_repos.py [--mirrors /work/.mirror] [--show CODE_OR_REPO ...]
        [--list FILE] [--keep DIR]

`--list FILE` reads the repositories from FILE (one owner/name a line; `#` starts a comment) instead of the eight
below: benchmarks/aidlc_docs_public.txt lists the public ones the readings were measured on. `--keep DIR` leaves
each checkout in DIR/<owner>+<name> (an existing one is checked out again), for benchmarks/aidlc_docs_compare.py.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from aidlc.errors import UsageError
from aidlc.rules import validate
from aidlc.workspace import open_records

REPOS = ("chrislee-hp/chustard", "miraniyam/aidlc-i13", "CraftsmenLtd/BloodConnect", "JJWren/Mocksmith",
         "80-hours-a-week/DocSuri", "Anubhav-Citizen/plsql2java", "Gussi/wolfenstein-clone-iceland-aws",
         "hashtagf/ui-agentbedrock")
DOCS = "aidlc-docs"
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


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


def checkout(gitdir: Path, ref: str, into: Path) -> int:
    """Clone the mirror into `into` at `ref` (its objects shared, not copied); the number of files whose blob the
    mirror lacks (left out of the work tree)."""
    subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(gitdir), str(into)], check=True,
                   capture_output=True)
    target = "HEAD" if ref == "HEAD" else f"origin/{ref}"
    done = subprocess.run(["git", "-C", str(into), "checkout", "--quiet", "--force", "--detach", target],
                          capture_output=True, check=False)
    return sum("unable to read" in line for line in done.stderr.decode(errors="replace").splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--show", nargs="*", default=[], help="print the findings of these rule codes or repos")
    parser.add_argument("--list", type=Path, help="the repositories, one owner/name a line")
    parser.add_argument("--keep", type=Path, help="keep each checkout in this folder")
    args = parser.parse_args()
    if args.list is not None and not args.list.is_file():
        parser.error(f"--list {args.list}: no such file (one owner/name a line, as benchmarks/aidlc_docs_public.txt)")
    repos = REPOS if args.list is None else [line.split("#")[0].strip() for line in
                                             args.list.read_text(encoding="utf-8").splitlines()]
    total: Counter[str] = Counter()
    for repo in filter(None, repos):
        if _NAME.fullmatch(repo) is None:  # it names the folder --keep replaces: never `..`, never a path
            print(f"{repo!r}: not an owner/name, skipped")
            continue
        gitdir = args.mirrors / repo.replace("/", "+") / "repo"
        if not gitdir.is_dir():
            print(f"{repo}: no mirror at {gitdir}, skipped")
            continue
        ref = docs_ref(gitdir)
        if ref is None:
            print(f"{repo}: no {DOCS}/ on any branch, skipped")
            continue
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "repo" if args.keep is None else args.keep / repo.replace("/", "+")
            shutil.rmtree(root, ignore_errors=True)
            missing = checkout(gitdir, ref, root)
            started = time.perf_counter()
            try:
                report = validate(open_records(root))
            except UsageError as exc:  # as `aidlc validate` ends, with exit 2 (an aidlc-docs folder with neither file)
                print(f"{repo} @ {ref}: not validated: {exc.message}")
                continue
            took = time.perf_counter() - started
        s = report.summary
        counts = Counter(f.code for f in report.findings)
        total.update(counts)
        print(f"{repo} @ {ref}: {s.files} files, {s.errors} errors, {s.warnings} warnings, {s.infos} notes "
              f"({took:.2f} s" + (f"; {missing} files missing from the mirror" if missing else "") + ")")
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
