"""Compare `aidlc validate`'s findings on checkouts in the aidlc-docs layout between two versions of aidlc, for
development: what a change to the reading of the records does on real repositories, each difference to be read.

    python benchmarks/aidlc_docs_compare.py CHECKOUT_OR_FOLDER ... --base REV [--json]
    python benchmarks/aidlc_docs_compare.py CHECKOUT_OR_FOLDER ... --base-code DIR [--json]

Each argument is a checkout holding aidlc-docs/, or a folder of such checkouts. The base is this repository at REV
(checked out in a temporary worktree, removed after) or an aidlc source folder DIR; the other side is this work
tree's code. Each side runs `aidlc validate CHECKOUT --format json` in its own process (`PYTHONPATH` set to its
code), so neither imports the other. Prints, per checkout, the findings only the base reports (`-`) and only the
work tree reports (`+`), then the count of each rule that changed (exit 0; 2, with the reason, for arguments it
cannot run); `--status` adds the approval `aidlc status`
cites for each ticked stage line (code `cited`); `--json` prints one document instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = "aidlc-docs"
Finding = tuple[str, str, int | None, str]  # code, path, line, message


def checkouts(paths: list[Path]) -> list[Path]:
    """The checkouts the arguments name: each that holds aidlc-docs/, else its folders that do."""
    found: list[Path] = []
    for path in paths:
        found += [path] if (path / DOCS).is_dir() else sorted(p for p in path.iterdir() if (p / DOCS).is_dir())
    return found


def _report(code: Path, *args: str) -> dict | str:
    """The JSON report `aidlc ARGS --format json` prints with the aidlc package under `code`; else why it printed
    none: its error's message, or the end of its error output."""
    env = {**os.environ, "PYTHONPATH": str(code), "NO_COLOR": "1"}
    # -P: `python -c` would put the current folder first on the path, and this repository's aidlc would shadow `code`
    done = subprocess.run([sys.executable, "-P", "-c", "from aidlc.cli import main; main()", *args, "--format", "json"],
                          env=env, capture_output=True, text=True, timeout=1800)
    try:
        report: dict = json.loads(done.stdout)
    except json.JSONDecodeError:
        return done.stderr[-500:]
    # a folder aidlc cannot read is one JSON document too, its error in place of a report
    return str(report["error"]["message"]) if "error" in report else report


def findings(code: Path, checkout: Path) -> list[Finding]:
    """`aidlc validate`'s findings on `checkout` with the aidlc package under `code`; one `unreadable` finding holding
    the end of its error output where it printed no report."""
    report = _report(code, "validate", str(checkout))
    if isinstance(report, str):
        return [("unreadable", "", None, report)]
    return [(f["code"], f["path"], f["line"], f["message"]) for f in report["findings"]]


def citations(code: Path, checkout: Path) -> list[Finding]:
    """The audit entries `aidlc status` cites as each ticked stage line's approval, as findings of code `cited`
    (`--status`): a change to the reading moves citations before it changes findings."""
    report = _report(code, "status", str(checkout), "--all")
    if isinstance(report, str):
        return [("unreadable", "", None, report)]
    found: list[Finding] = []
    for phase in report.get("phases", []) + report.get("units", []):
        for stage in phase.get("stages", []):
            said = f"{stage['stage']}{' of unit ' + stage['unit'] if stage.get('unit') else ''}"
            found.append(("cited", report["state"] or "", stage["line"], f"{said}: {', '.join(stage['approvals'])}"))
    return found


def differences(base: list[Finding], new: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(the findings only `base` holds, those only `new` holds), as many times as each side holds one more."""
    before, after = Counter(base), Counter(new)
    return list((before - after).elements()), list((after - before).elements())


def compare(base_code: Path, new_code: Path, folders: list[Path], status: bool = False) -> dict:
    changed: dict[str, dict[str, list[Finding]]] = {}
    counts: dict[str, list[int]] = {}  # code -> [base, new]
    for checkout in checkouts(folders):
        base, new = findings(base_code, checkout), findings(new_code, checkout)
        if status:
            base, new = base + citations(base_code, checkout), new + citations(new_code, checkout)
        for side, found in enumerate((base, new)):
            for code, *_ in found:
                counts.setdefault(code, [0, 0])[side] += 1
        gone, added = differences(base, new)
        if gone or added:
            changed[checkout.name] = {"gone": gone, "added": added}
    return {"checkouts": len(checkouts(folders)), "changed": changed,
            "counts": {code: pair for code, pair in sorted(counts.items()) if pair[0] != pair[1]}}


def _show(result: dict) -> None:
    for name, both in result["changed"].items():
        print(f"== {name}")
        for sign, key in (("-", "gone"), ("+", "added")):
            for code, path, line, message in both[key]:
                print(f"  {sign} {code} {path}:{line or ''} {message}")
    for code, (base, new) in result["counts"].items():
        print(f"{code}: {base} -> {new}")
    print(f"{result['checkouts']} checkouts, {len(result['changed'])} with different findings")


def _problem(args: argparse.Namespace) -> str | None:
    """What makes the arguments unusable, said with the next step; None when they can be run."""
    missing = [str(path) for path in args.folders if not path.is_dir()]
    if missing:
        return f"no such folder: {', '.join(missing)}; name checkouts holding {DOCS}/, or folders of them"
    if not checkouts(args.folders):
        return f"no checkout holding {DOCS}/ in {', '.join(map(str, args.folders))}"
    if args.base_code is not None and not (args.base_code / "aidlc" / "__init__.py").is_file():
        return f"{args.base_code} holds no aidlc package (aidlc/__init__.py); name an aidlc source folder"
    if args.base is not None and subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet",
                                                 f"{args.base}^{{commit}}"], capture_output=True).returncode:
        return f"{args.base} is no commit of {ROOT}; `git -C {ROOT} log --oneline` lists them"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="checkouts, or folders of checkouts")
    side = parser.add_mutually_exclusive_group(required=True)
    side.add_argument("--base", help="a revision of this repository: the code to compare the work tree's with")
    side.add_argument("--base-code", type=Path, help="an aidlc source folder (it holds aidlc/) to compare with")
    parser.add_argument("--status", action="store_true", help="also the approvals `aidlc status` cites")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    if problem := _problem(args):
        print(f"aidlc_docs_compare: {problem}", file=sys.stderr)
        return 2
    if args.base_code is not None:
        result = compare(args.base_code, ROOT, args.folders, args.status)
    else:
        with tempfile.TemporaryDirectory() as folder:
            tree = Path(folder) / "base"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(tree), args.base],
                           check=True)
            try:
                result = compare(tree, ROOT, args.folders, args.status)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        _show(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
