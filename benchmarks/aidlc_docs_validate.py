"""Benchmark `aidlc validate` on a large aidlc-docs repository (AWS aidlc-workflows' layout) against a measured floor.

Usage::

    python benchmarks/aidlc_docs_validate.py [--units 200] [--entries 5000] [--commits 2000] [--runs 5]
                                             [--json] [--profile] [--workdir DIR]

What it does
------------
1. Generates, in a temporary folder and deterministically (one seed, a fixed clock), a git repository in the
   aidlc-docs layout that follows every rule: inception documents and aidlc-state.md with a stage line per unit and
   stage, then for each unit its functional design, NFR requirements and code generation, each a plan whose boxes
   are ticked over several commits, the stage's files, the person's approval logged in audit.md and the stage
   ticked in aidlc-state.md. audit.md grows by a few entries in every commit (``--entries`` over ``--commits``),
   each dated a few minutes before its commit (never at a whole minute); every tenth unit's work goes through a
   side branch and a merge. The history is written in one ``git fast-import`` stream. The validator's summary is
   printed, so that a regression in the generator or in the rules shows (the repository validates with no finding).
2. Measures, over ``--runs`` runs (each command once untimed first, then interleaved so the machine's drift hits
   both alike), median / min / max wall time of:

   * ``aidlc validate DIR --format json``: a real subprocess of the installed console script, start-up and imports
     included. On this layout it runs the work-tree rules, the ledger rules and the history rules over HEAD's whole
     history.
   * the floor: a fresh ``python -c`` subprocess that reads every file of the docs folder once and runs one
     ``git log -p`` over HEAD's history of the audit log and aidlc-state.md (every change to them, merges
     compared with each parent: the versions the history rules judge), reading its output whole.

   and, with ``--profile``, a cProfile of one in-process validation.
3. Prints a table (median and fastest seconds, the ratio to the floor of the same run, peak MiB) and the goal:
   ``aidlc validate`` within 3x the floor at 200 units, 5,000 audit entries and 2,000 commits. The ratio is what to
   compare across machines; the seconds depend on the machine and its load. Informational: exit code 0.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from measure import Stat, aidlc_executable, in_workdir  # sibling module: benchmarks run as scripts
from validate import Runner, _load_average, _machine_line, environment  # how measured commands are run

SEED = 20261201
GOAL_UNITS, GOAL_ENTRIES, GOAL_COMMITS = 200, 5_000, 2_000
GOAL_FLOOR_RATIO = 3.0
DOCS = "aidlc-docs"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
COMMIT_GAP = timedelta(minutes=17)
MERGE_EVERY = 10  # every tenth unit's work: a side branch and a merge
AREAS = ("billing", "checkout", "catalog", "identity", "search", "shipping", "inventory", "pricing", "reporting",
         "notifications", "payments", "accounts", "orders", "returns", "loyalty", "analytics", "onboarding",
         "support", "media", "audit")
PARTS = ("api", "worker", "gateway", "store", "portal", "scheduler", "importer", "exporter", "webhooks", "console")
WORDS = ("the operator", "a customer", "the schema", "each request", "the queue", "its retries", "the report",
         "a refund", "the token", "every invoice", "the cache", "the audit trail", "a webhook", "the importer")
# Per unit, ten commits: (stage, what the commit does). "plan": the plan written with open boxes; "work": half of
# its boxes ticked and the stage's files written; "done": every box ticked; "approve": the person's approval logged
# and the stage ticked in aidlc-state.md.
STEPS = (("functional-design", "plan"), ("functional-design", "work"), ("functional-design", "approve"),
         ("nfr-requirements", "plan"), ("nfr-requirements", "work"), ("nfr-requirements", "approve"),
         ("code-generation", "plan"), ("code-generation", "work"), ("code-generation", "done"),
         ("code-generation", "approve"))
TITLES = {"functional-design": "Functional Design", "nfr-requirements": "NFR Requirements",
          "code-generation": "Code Generation"}
FILES = {"functional-design": ("functional-design/business-logic-model.md", "functional-design/business-rules.md"),
         "nfr-requirements": ("nfr-requirements/nfr-requirements.md", "nfr-requirements/tech-stack-decisions.md"),
         "code-generation": ("code/code-summary.md",)}
INCEPTION = ("Workspace Detection", "Requirements Analysis", "User Stories", "Workflow Planning",
             "Application Design", "Units Generation")


@dataclass(frozen=True)
class Shape:
    units: int
    entries: int
    commits: int
    merges: int
    files: int
    audit_bytes: int


@dataclass(frozen=True)
class _Unit:
    number: int
    name: str

    @property
    def folder(self) -> str:
        return f"unit-{self.number}-{self.name}"


class _Builder:
    """The repository's files as the branch being built holds them, and the fast-import stream that records them."""

    def __init__(self, units: list[_Unit], entries: int, commits: int, rng: random.Random) -> None:
        self.units, self.rng = units, rng
        self.audit: list[str] = []
        self.ticked: set[tuple[str, int]] = set()  # (stage, unit number) ticked in aidlc-state.md
        self.stream = io.BytesIO()
        self.marks = 0
        self.count = 0  # commits written
        self.merges = 0
        self.commits, self.entries = commits, entries

    # -- what a commit writes ------------------------------------------------------------------------------------
    def entries_due(self) -> int:
        """How many entries the next commit appends: the entries spread evenly over the commits."""
        return (self.entries * (self.count + 1)) // self.commits - (self.entries * self.count) // self.commits

    def when(self) -> datetime:
        return START + COMMIT_GAP * self.count

    def entry(self, heading: str, at: datetime, user: str | None, response: str, context: str) -> str:
        said = f'**User Input**: "{user}"\n' if user is not None else ""
        return (f"## {heading}\n**Timestamp**: {at.strftime('%Y-%m-%dT%H:%M:%SZ')}\n{said}"
                f'**AI Response**: "{response}"\n**Context**: {context}\n\n---\n\n')

    def sentence(self) -> str:
        pick = self.rng.sample(WORDS, 3)
        return f"Updated how {pick[0]} handles {pick[1]} and recorded why {pick[2]} changes with it."

    def log(self, headings: list[tuple[str, str | None, str]], context: str) -> list[str]:
        """The entries of this commit: the given (heading, user input, response) ones last, progress notes before
        them up to the commit's share of entries; dated two minutes apart, ending two minutes before the commit."""
        due = max(self.entries_due(), len(headings))
        notes = [(f"Progress - {context}", None, self.sentence()) for _ in range(due - len(headings))]
        written = notes + headings
        at = self.when() - timedelta(minutes=2 * len(written))
        return [self.entry(h, at + timedelta(minutes=2 * n, seconds=11 + n), u, r, context)
                for n, (h, u, r) in enumerate(written)]

    def state(self) -> str:
        lines = ["# AI-DLC State Tracking", "", "## Project Information", "- **Project Type**: Greenfield",
                 f"- **Start Date**: {START.strftime('%Y-%m-%dT%H:%M:%SZ')}", "", "## Stage Progress", "",
                 "### INCEPTION PHASE", "- [x] Workspace Detection", "- [ ] Reverse Engineering - SKIP",
                 *(f"- [x] {name}" for name in INCEPTION[1:]), "", "### CONSTRUCTION PHASE"]
        for unit in self.units:
            lines += [f"- [{'x' if (stage, unit.number) in self.ticked else ' '}] {title} - EXECUTE "
                      f"(Unit {unit.number}: {unit.name})" for stage, title in TITLES.items()]
        lines += ["- [ ] NFR Design - SKIP", "- [ ] Infrastructure Design - SKIP", "- [ ] Build and Test", "",
                  "### OPERATIONS PHASE", "- [ ] Operations - PLACEHOLDER", ""]
        return "\n".join(lines)

    def plan(self, unit: _Unit, stage: str, done: int) -> str:
        steps = 4 + unit.number % 5
        ticked = steps if done < 0 else done
        boxes = "".join(f"- [{'x' if n < ticked else ' '}] Step {n + 1}: {self.sentence()}\n" for n in range(steps))
        return f"# {TITLES[stage]} Plan - Unit {unit.number}: {unit.name}\n\n## Steps\n{boxes}"

    def inception(self) -> tuple[dict[str, str], list[str]]:
        at = self.when() - timedelta(minutes=2 * len(INCEPTION))
        entries = [self.entry(f"{name} - Approval" if n else name, at + timedelta(minutes=2 * n, seconds=11 + n),
                              "Approve & Continue" if n else "Build the platform's services.",
                              f"{name} approved." if n else "Greenfield project.", f"INCEPTION - {name}")
                   for n, name in enumerate(INCEPTION)]
        units = "".join(f"- Unit {u.number}: {u.name}\n" for u in self.units)
        changes = {
            f"{DOCS}/aidlc-state.md": self.state(),
            f"{DOCS}/inception/requirements/requirements.md":
                "# Requirements\n\n" + "".join(f"## FR-{n}: {self.sentence()}\n\n" for n in range(1, 41)),
            f"{DOCS}/inception/plans/execution-plan.md": "# Execution Plan\n\n## Phases to Execute\n"
                "- [x] Requirements Analysis (COMPLETED)\n- [ ] Reverse Engineering - SKIP\n",
            f"{DOCS}/inception/application-design/unit-of-work.md": f"# Units\n\n{units}",
            f"{DOCS}/inception/application-design/components.md": "# Components\n\n" + self.sentence() + "\n",
        }
        return changes, entries

    def step(self, unit: _Unit, stage: str, action: str) -> tuple[dict[str, str], list[str]]:
        plan = f"{DOCS}/construction/plans/{unit.folder}-{stage}-plan.md"
        context = f"CONSTRUCTION - {TITLES[stage]} - Unit {unit.number} {unit.name}"
        changes: dict[str, str] = {}
        headings: list[tuple[str, str | None, str]] = []
        if action == "plan":
            changes[plan] = self.plan(unit, stage, 0)
            headings.append((f"{TITLES[stage]} - Unit {unit.number} Plan", None, "Plan written; answer its questions."))
        elif action == "work":
            changes[plan] = self.plan(unit, stage, 2)
            for rel in FILES[stage]:
                changes[f"{DOCS}/construction/{unit.folder}/{rel}"] = f"# {rel}\n\n{self.sentence()}\n"
        elif action == "done":
            changes[plan] = self.plan(unit, stage, -1)
        else:
            changes[plan] = self.plan(unit, stage, -1)
            self.ticked.add((stage, unit.number))
            changes[f"{DOCS}/aidlc-state.md"] = self.state()
            headings += [(f"{TITLES[stage]} - Unit {unit.number} Approval Prompt", None, "Approve & Continue?"),
                         (f"{TITLES[stage]} - Unit {unit.number} Approval", "Continue to Next Stage",
                          f"Unit {unit.number} {TITLES[stage].lower()} approved.")]
        return changes, self.log(headings, context)

    # -- the fast-import stream ----------------------------------------------------------------------------------
    def commit(self, changes: dict[str, str], entries: list[str], parent: int | None, merge: int | None = None,
               audit: list[str] | None = None) -> int:
        """Write a commit (on `parent`, merging `merge`) that writes `changes` and appends `entries` to the audit log
        (`audit`: the log it appends to, the builder's own by default); its mark."""
        audit = self.audit if audit is None else audit
        audit += entries
        files = {**changes, f"{DOCS}/audit.md": "# AI-DLC Audit Log\n\n" + "".join(audit)}
        at = int(self.when().timestamp())
        self.marks += 1
        self.count += 1
        out = self.stream
        out.write(f"commit refs/heads/main\nmark :{self.marks}\n"
                  f"committer Dev <dev@example.invalid> {at} +0000\n".encode())
        message = f"aidlc-docs: commit {self.count}".encode()
        out.write(b"data %d\n%s\n" % (len(message), message))
        if parent is not None:
            out.write(f"from :{parent}\n".encode())
        if merge is not None:
            out.write(f"merge :{merge}\n".encode())
            self.merges += 1
        for rel, text in files.items():
            data = text.encode()
            out.write(f"M 100644 inline {rel}\n".encode() + b"data %d\n" % len(data) + data + b"\n")
        return self.marks


def generate(repo: Path, units: int, entries: int, commits: int, seed: int = SEED) -> Shape:
    """A git repository at `repo` in the aidlc-docs layout: `units` units over `commits` commits whose audit log ends
    with `entries` entries."""
    people = [_Unit(n + 1, f"{AREAS[n % len(AREAS)]}-{PARTS[(n // len(AREAS)) % len(PARTS)]}") for n in range(units)]
    sides = units // MERGE_EVERY
    # Nine commits per unit, one more on main beside each side branch, and a last "every box ticked" commit of code
    # generation for as many units as the commits allow.
    spare = commits - 1 - 9 * units - sides
    if spare < 0 or entries < commits:
        raise SystemExit(f"benchmark: {units} units need at least {1 + 9 * units + sides} commits, and at least as "
                         "many entries as commits")
    builder = _Builder(people, entries, commits, random.Random(seed))
    tip = builder.commit(*builder.inception(), parent=None)
    for unit in people:
        for stage, action in STEPS:
            if action == "done":
                if spare <= 0:
                    continue
                spare -= 1
            if unit.number % MERGE_EVERY == 0 and (stage, action) == ("nfr-requirements", "work"):
                # This stage's work on a branch, beside a commit on main; its approval merges the branch.
                fork, fork_audit = tip, list(builder.audit)
                tip = builder.commit({}, builder.log([], "CONSTRUCTION - Build and Test"), parent=tip)
                side_changes, side_entries = builder.step(unit, stage, action)
                side = builder.commit(side_changes, side_entries, parent=fork, audit=fork_audit)
                builder.audit += side_entries
                continue
            changes, new = builder.step(unit, stage, action)
            if unit.number % MERGE_EVERY == 0 and (stage, action) == ("nfr-requirements", "approve"):
                tip = builder.commit({**side_changes, **changes}, new, parent=tip, merge=side)
                continue
            tip = builder.commit(changes, new, parent=tip)
    while builder.count < commits:  # what the commits left: notes only
        tip = builder.commit({}, builder.log([], "CONSTRUCTION - Build and Test"), parent=tip)
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=builder.stream.getvalue(), check=True)
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "-f", "main"], check=True)
    audit_bytes = (repo / DOCS / "audit.md").stat().st_size
    files = sum(1 for p in (repo / DOCS).rglob("*") if p.is_file())
    return Shape(units, len(builder.audit), builder.count, builder.merges, files, audit_bytes)


# --------------------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------------------

FLOOR_CODE = """
import json, os, subprocess, sys, time
start = time.perf_counter()
root, docs = sys.argv[1], sys.argv[2]
files = 0
for folder, _dirs, names in os.walk(os.path.join(root, docs)):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            handle.read().decode("utf-8")
        files += 1
log = subprocess.run(["git", "-C", root, "log", "-p", "--full-history", "-m", "--format=%H%x1f%P%x1f%cI%x1f%s", "HEAD",
                      "--", f"{docs}/audit.md", f"{docs}/audit", f"{docs}/aidlc-state.md"],
                     capture_output=True, check=True).stdout
print(json.dumps({"files": files, "log_bytes": len(log), "work_s": time.perf_counter() - start}))
"""


@dataclass
class Result:
    shape: Shape
    summary: dict[str, int]
    finding_codes: dict[str, int]
    cli: Stat
    floor: Stat
    floor_work: float
    floor_files: int
    log_bytes: int


def measure(runner: Runner, repo: Path, shape: Shape, runs: int) -> Result:
    commands = {"cli": [aidlc_executable(), "validate", str(repo), "--format", "json"],
                "floor": [sys.executable, "-c", FLOOR_CODE, str(repo), DOCS]}
    ok = {"cli": (0, 1), "floor": (0,)}  # validate: 1 when the project has errors, still a complete run
    samples: dict[str, list[Any]] = {name: [] for name in commands}
    for name, argv in commands.items():
        runner.run(argv, ok[name])  # warm-up: bytecode cache, page cache
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(runner.run(argv, ok[name]))
    report = json.loads(samples["cli"][0].stdout)
    codes: dict[str, int] = {}
    for finding in report["findings"]:
        codes[finding["code"]] = codes.get(finding["code"], 0) + 1
    floors = [json.loads(run.stdout) for run in samples["floor"]]
    return Result(shape, report["summary"], codes, _stat(samples["cli"]), _stat(samples["floor"]),
                  sorted(f["work_s"] for f in floors)[len(floors) // 2], floors[0]["files"], floors[0]["log_bytes"])


def _stat(runs: list[Any]) -> Stat:
    return Stat.of([r.seconds for r in runs], [r.peak_bytes for r in runs])


def profile(repo: Path, top: int = 25) -> str:
    """cProfile of one in-process validation (after a warm-up run): the top functions by cumulative and own time."""
    from aidlc.report.validation import render_json
    from aidlc.rules import validate
    from aidlc.workspace import open_records

    def once() -> None:
        render_json(validate(open_records(repo.resolve())))

    once()
    profiler = cProfile.Profile()
    profiler.runcall(once)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def goal(result: Result) -> dict[str, Any]:
    name = (f"{GOAL_UNITS} units, {GOAL_ENTRIES:,} audit entries, {GOAL_COMMITS:,} commits validated within "
            f"{GOAL_FLOOR_RATIO:g}x the floor")
    shape = result.shape
    if (shape.units, shape.commits) != (GOAL_UNITS, GOAL_COMMITS) or shape.entries < GOAL_ENTRIES:
        return {"name": name, "measured": "not measured", "passed": None}
    ratio = result.cli.median / result.floor.median
    return {"name": name, "measured": f"{ratio:.2f}x the floor ({result.cli.median:.3f} s against "
                                      f"{result.floor.median:.3f} s; fastest runs "
                                      f"{result.cli.min / result.floor.min:.2f}x)", "passed": ratio <= GOAL_FLOOR_RATIO}


def render(result: Result, verdict: dict[str, Any], env: dict[str, Any]) -> str:
    s, shape = result.summary, result.shape
    head = f"{'measurement':<44} {'median s':>9} {'min s':>8} {'max s':>8} {'x floor':>8} {'min x':>7} {'peak MiB':>9}"
    lines = [f"aidlc-docs: {shape.units} units, {shape.entries:,} audit entries ({shape.audit_bytes / 2**20:.1f} MiB "
             f"at HEAD), {shape.commits:,} commits ({shape.merges} merges), {shape.files:,} files in {DOCS}/", "",
             head, "-" * len(head)]
    for name, stat in (("aidlc validate (CLI subprocess)", result.cli),
                       ("floor: read the files + git log -p (subprocess)", result.floor)):
        peak = f"{stat.peak_mib:.1f}" if stat.peak_mib is not None else "-"
        lines.append(f"{name:<44} {stat.median:>9.3f} {stat.min:>8.3f} {stat.max:>8.3f} "
                     f"{stat.median / result.floor.median:>7.2f}x {stat.min / result.floor.min:>6.2f}x {peak:>9}")
    lines += [f"floor: {result.floor_files:,} files read, git log -p {result.log_bytes / 2**20:.1f} MiB, "
              f"work without start-up {result.floor_work:.3f} s",
              f"aidlc summary: {s['files']} files, {s['errors']} errors, {s['warnings']} warnings, "
              f"{s.get('infos', 0)} notes" + (f"  {result.finding_codes}" if result.finding_codes else ""),
              "", "Goal (informational):"]
    mark = "n/a " if verdict["passed"] is None else "PASS" if verdict["passed"] else "MISS"
    lines += [f"  {mark}  {verdict['name']}: {verdict['measured']}", "", _machine_line(env)]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--units", type=int, default=GOAL_UNITS)
    parser.add_argument("--entries", type=int, default=GOAL_ENTRIES)
    parser.add_argument("--commits", type=int, default=GOAL_COMMITS)
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--json", action="store_true", help="print the results as one JSON document")
    parser.add_argument("--profile", action="store_true", help="also cProfile one in-process validation")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="generate the repository here and keep it (default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.units < 1:
        parser.error("--runs and --units must be at least 1")
    return args


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    runner = Runner(workdir)
    load_before = _load_average()
    repo = workdir / "aidlc-docs-repo"
    if repo.exists():
        shutil.rmtree(repo)
    shape = generate(repo, args.units, args.entries, args.commits, args.seed)
    print(f"generated {repo}: {shape}", file=sys.stderr, flush=True)
    result = measure(runner, repo, shape, args.runs)
    verdict = goal(result)
    env = environment(args, runner, load_before)
    document: dict[str, Any] = {"environment": env, "result": asdict(result), "goal": verdict,
                                "table": render(result, verdict, env)}
    if args.profile:
        document["profile"] = profile(repo)
    return document


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    document = in_workdir(args.workdir, "aidlc-docs-bench-", lambda where: run(args, where))
    if args.json:
        document.pop("table")
        print(json.dumps(document, indent=2, default=str))
    else:
        print(document["table"])
        if "profile" in document:
            print("\n" + document["profile"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
