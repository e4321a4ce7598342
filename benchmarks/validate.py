"""Benchmark `aidlc validate` on large synthetic memory banks, against a measured floor.

Usage::

    python benchmarks/validate.py [--sizes 1000,10000] [--runs 5] [--json] [--profile] [--workdir DIR]

What it does
------------
1. Generates, for each size, a synthetic memory bank in a temporary folder (deterministic: one
   seed, no clock): ``intents x units x stories x bolts`` with the front matter and bodies of a real
   specs.md-style bank (``requirements.md`` with ``### FR-n:`` blocks, priorities and acceptance
   lists, ``unit-brief.md``, one file per story with checkbox acceptance criteria, one
   ``bolts/NNNN-unit/bolt.md`` per five stories with ``requires_bolts`` chains that never cycle).
   10,000 stories = 50 intents x 10 units x 20 stories, and 2,000 bolts. The bank is built to
   validate cleanly; the validator's summary is printed so a regression in the generator (or in
   the rules) shows.
2. Measures, over ``--runs`` runs, median / min / max wall time of:

   * ``aidlc validate DIR --format json``: a real subprocess of the installed console script, so the
     time includes interpreter start-up and imports. Its peak RSS is the child's own VmHWM, written at
     exit by a tiny ``sitecustomize`` probe put on the child's PYTHONPATH (see ``Runner``). Neither
     ``RUSAGE_CHILDREN`` deltas (a running maximum) nor the child's own ``ru_maxrss`` can give it on
     Linux: exec carries the parent's high-water mark into the child, so every child of a 300 MiB
     parent would report at least 300 MiB.
   * the same work in-process (``open_bank`` + ``validate`` + ``render_json``), imports already
     done, split into load / rules / render: the cost of the work without start-up.
   * the floor: a fresh ``python -c`` subprocess that walks the bank, reads every file, and parses
     each front matter (and ``project.yaml``) with yaml-rs, the parser ``aidlc.bank.yamlio`` uses,
     and nothing else. The PyYAML ``CSafeLoader`` floor is measured too, for comparison. The child
     also reports its own work time (without start-up), to set beside the in-process numbers.
   * the floor with the libraries: the yaml-rs floor after importing click and pydantic and building one
     pydantic model (pydantic loads most of itself at its first model), the libraries every run of
     ``aidlc validate`` must load: the goal's ratio less this floor's ratio is what is left for aidlc's own work.
   * the floor with aidlc's reading: the libraries floor plus every module ``aidlc validate`` imports, each
     story body read for what the rules need of it (``markdown.story_parts``, the opinion hints in one batch)
     and every story's and bolt's front matter validated by pydantic in one batch, as the loader does; no
     rule, no index, no item objects. What it leaves of the goal's ratio is what the rest may take.
   * start-up: ``aidlc --version`` and ``aidlc --help`` (which lists the commands without importing
     them), with ``python -c pass`` as their baseline (at least 10 runs).

   Every subprocess runs once untimed first; the timed runs of one size are interleaved (validate,
   floor, floor, validate, ...) so drift of the machine hits all of them alike. The page cache is warm
   (the bank was just written), and children use a private, warmed bytecode cache (PYTHONPYCACHEPREFIX)
   so that no run pays for compiling stale or missing .pyc files, as after a wheel install.
3. Prints a table (size, median and fastest seconds, ratio to the yaml-rs floor of the same run, peak
   MiB), the median CPU time (user + system) of the CLI and of the floor with their ratio (a process's own
   work, without the waiting a busy machine adds to wall time), and the goals, each PASS or MISS: 10,000
   stories validated (CLI, end to end) within 2.5x the floor and in under 1 s, 1,000 stories within 3x
   the floor, ``aidlc --help`` in under 2x the time of ``aidlc --version``, and ``aidlc --version`` under
   100 ms. The ratios are what to compare across
   machines; the seconds depend on the machine and its load. The goals are informational: exit code 0.
   ``--json`` prints one JSON document instead. ``--profile`` adds a cProfile of the in-process
   validation of the largest bank and a ``-X importtime`` breakdown of ``import aidlc.cli``
   (what ``aidlc --version`` loads) and ``import aidlc.cli.validate``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
import platform
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from measure import Stat, aidlc_executable, in_workdir, probed_env  # sibling module: benchmarks run as scripts

SEED = 20261130
STORIES_PER_UNIT = 20
UNITS_PER_INTENT = 10
STORIES_PER_BOLT = 5
GOAL_STORIES = 10_000
GOAL_SECONDS = 1.0
GOAL_FLOOR_RATIO = 2.5
GOAL_SMALL_STORIES = 1_000
GOAL_SMALL_FLOOR_RATIO = 3.0
GOAL_HELP_RATIO = 2.0  # `aidlc --help` against `aidlc --version`
GOAL_VERSION_SECONDS = 0.100
MIN_STARTUP_RUNS = 10
# ru_maxrss is KiB on Linux, bytes on macOS.
_MAXRSS_BYTES = 1 if sys.platform == "darwin" else 1024

# --------------------------------------------------------------------------------------------------
# Synthetic memory bank
# --------------------------------------------------------------------------------------------------

AREAS = ("billing", "checkout", "catalog", "identity", "search", "shipping", "inventory", "pricing",
         "reporting", "notifications", "payments", "accounts", "orders", "returns", "loyalty",
         "analytics", "onboarding", "support", "media", "audit")
COMPONENTS = ("api", "ledger", "worker", "gateway", "store", "portal", "scheduler", "importer", "exporter",
              "webhooks", "cache", "console", "sync", "rules", "feed", "index", "queue", "adapter",
              "registry", "planner", "renderer", "tracker", "vault", "bridge", "monitor")
VERBS = ("create", "list", "update", "archive", "export", "import", "approve", "reject", "retry", "cancel",
         "schedule", "search", "merge", "split", "publish", "restore", "assign", "audit", "lock", "notify")
OBJECTS = ("invoice", "order", "refund", "customer", "address", "coupon", "shipment", "report", "token",
           "session", "product", "price", "payment", "subscription", "ticket", "webhook", "batch", "file")
ROLES = ("operator", "customer", "support agent", "finance analyst", "administrator", "integrator")
STATUS_CODES = ("200", "201", "202", "204", "400", "404", "409", "422")
BASE_TIME = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
_PLUS_ONE = timezone(timedelta(hours=1))


@dataclass(frozen=True)
class BankShape:
    stories: int
    intents: int
    units: int
    bolts: int
    files: int


@dataclass
class _UnitPlan:
    number: int  # within its intent
    slug: str  # globally unique
    stories: int

    @property
    def folder(self) -> str:
        return f"{self.number:03d}-{self.slug}"


@dataclass
class _Ctx:
    """Generation state: the random stream, the clock, the global counters and the files written."""

    bank: Path
    rng: random.Random
    bolt_width: int
    files: int = 0
    bolts: int = 0
    minutes: int = 0
    folders: set[Path] = field(default_factory=set)

    def write(self, rel: str, text: str) -> None:
        path = self.bank / rel
        if path.parent not in self.folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.folders.add(path.parent)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        self.files += 1

    def now(self, step: int = 37) -> str:
        """A deterministic, strictly increasing ISO 8601 timestamp with a zone."""
        self.minutes += step
        moment = BASE_TIME + timedelta(minutes=self.minutes)
        if self.minutes % 3 == 0:  # some authors write an offset rather than Z
            return moment.astimezone(_PLUS_ONE).isoformat()
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def generate_bank(repo: Path, stories: int, seed: int = SEED) -> BankShape:
    """Write a memory bank with `stories` stories under `repo`/memory-bank (and a minimal aidlc.yaml)."""
    total_units = math.ceil(stories / STORIES_PER_UNIT)
    intents = math.ceil(total_units / UNITS_PER_INTENT)
    ctx = _Ctx(bank=repo / "memory-bank", rng=random.Random(seed),
               bolt_width=max(4, len(str(math.ceil(stories / STORIES_PER_BOLT)))))
    repo.mkdir(parents=True, exist_ok=True)
    (repo / "aidlc.yaml").write_text("version: 1\nmemory_bank: memory-bank\n", encoding="utf-8")
    _write_project(ctx)
    remaining, unit_index = stories, 0
    for intent_number in range(1, intents + 1):
        plans = []
        for number in range(1, UNITS_PER_INTENT + 1):
            if remaining <= 0:
                break
            count = min(STORIES_PER_UNIT, remaining)
            plans.append(_UnitPlan(number, _unit_slug(unit_index), count))
            remaining -= count
            unit_index += 1
        _write_intent(ctx, intent_number, plans)
    return BankShape(stories=stories, intents=intents, units=total_units, bolts=ctx.bolts, files=ctx.files)


def _unit_slug(index: int) -> str:
    area, component = AREAS[index % len(AREAS)], COMPONENTS[(index // len(AREAS)) % len(COMPONENTS)]
    lap = index // (len(AREAS) * len(COMPONENTS))
    return f"{area}-{component}" + (f"-{lap + 1}" if lap else "")


def _write_project(ctx: _Ctx) -> None:
    ctx.write("project.yaml", "# Project Configuration\n\nproject_type: web-app\n"
              f"initialized_at: {ctx.now()}\nname: synthetic-shop\n"
              "description: Synthetic memory bank written by benchmarks/validate.py\n")
    for name in ("coding-standards", "tech-stack", "glossary", "definition-of-done"):
        ctx.write(f"standards/{name}.md", f"# {name.replace('-', ' ').title()}\n\n" + _paragraph(ctx.rng, 6) + "\n")
    for name in ("deploy", "rollback"):
        sections = "".join(f"## {q}\n\n{_paragraph(ctx.rng, 2)}\n\n" for q in
                           ("Trigger", "Owner", "Scope", "Steps", "Verification", "Communication"))
        ctx.write(f"operations/runbooks/{name}.md",
                  f"---\nowner: platform-team\nupdated: {ctx.now()}\n---\n\n# Runbook: {name}\n\n{sections}")


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(
        f"The {rng.choice(ROLES)} can {rng.choice(VERBS)} {_a(rng.choice(OBJECTS))} "
        f"through the {rng.choice(COMPONENTS)} and sees the result in the audit trail."
        for _ in range(sentences)
    )


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _criterion(rng: random.Random, checked: bool) -> str:
    verb, obj = rng.choice(VERBS), rng.choice(OBJECTS)
    return (f"- [{'x' if checked else ' '}] **Given** {_a(rng.choice(ROLES))} with a valid {obj}, "
            f"**When** they {verb} it through the API, **Then** the response is {rng.choice(STATUS_CODES)} "
            f"and the {obj} record shows the change")


@dataclass(frozen=True)
class _Requirement:
    id: str
    title: str
    priority: str


def _requirements(rng: random.Random) -> list[_Requirement]:
    functional = [_Requirement(f"FR-{n}", f"{rng.choice(VERBS).title()} {rng.choice(OBJECTS)} records",
                               rng.choice(("Must", "Must", "Must", "Should", "Could"))) for n in range(1, 9)]
    quality = [_Requirement("NFR-1", "Response time", "Must"), _Requirement("NFR-2", "Audit trail", "Should")]
    return functional + quality


def _write_intent(ctx: _Ctx, number: int, units: list[_UnitPlan]) -> None:
    rng, area = ctx.rng, AREAS[(number - 1) % len(AREAS)]
    intent = f"{number:03d}-{area}-{'-'.join(rng.sample(OBJECTS, 2))}"
    # No more requirements than stories, so that every Must requirement can have one (AIDLC-COV-001).
    requirements = _requirements(rng)[: max(1, sum(unit.stories for unit in units))]
    ctx.write(f"intents/{intent}/requirements.md", _requirements_md(ctx, intent, requirements))
    ctx.write(f"intents/{intent}/system-context.md", f"# System Context: {intent}\n\n{_paragraph(rng, 5)}\n")
    mapping = "".join(f"| {r.id} | {units[i % len(units)].folder} |\n" for i, r in enumerate(requirements))
    ctx.write(f"intents/{intent}/units.md", f"# Units: {intent}\n\n| Requirement | Unit |\n|---|---|\n{mapping}")
    serial = 0
    for index, unit in enumerate(units):
        previous = units[index - 1].folder if index else None
        serial = _write_unit(ctx, intent, unit, requirements, previous, serial)


def _requirements_md(ctx: _Ctx, intent: str, requirements: list[_Requirement]) -> str:
    rng = ctx.rng
    parts = [f"---\nintent: {intent}\nphase: construction\nstatus: construction\ncreated: {ctx.now()}\n"
             f"updated: {ctx.now()}\n---\n\n# Requirements: {intent}\n\n## Intent Overview\n\n{_paragraph(rng, 4)}\n\n"
             "## Functional Requirements\n\n"]
    for requirement in requirements:
        if requirement.id == "NFR-1":
            parts.append("## Non-Functional Requirements\n\n")
        subs = "".join(f"- {requirement.id}.{k}: The system SHALL {rng.choice(VERBS)} the "
                       f"{rng.choice(OBJECTS)} and record who did it\n" for k in range(1, 4))
        criteria = "\n".join(_criterion(rng, False) for _ in range(3))
        parts.append(f"### {requirement.id}: {requirement.title}\n\n**Priority**: {requirement.priority}\n\n"
                     f"{subs}\n**Acceptance Criteria**:\n\n{criteria}\n\n")
    return "".join(parts)


@dataclass(frozen=True)
class _BoltPlan:
    id: str
    status: str  # planned | in-progress | complete
    stories: list[str] = field(default_factory=list)


def _write_unit(ctx: _Ctx, intent: str, unit: _UnitPlan, requirements: list[_Requirement],
                previous_unit: str | None, serial: int) -> int:
    """Write the unit brief, its stories and its bolts; return the intent's story serial for requirement links."""
    rng = ctx.rng
    base = f"intents/{intent}/units/{unit.folder}"
    ctx.write(f"{base}/unit-brief.md",
              f"---\nunit: {unit.folder}\nintent: {intent}\nphase: construction\nstatus: construction\n"
              f"created: {ctx.now()}\nupdated: {ctx.now()}\ndefault_bolt_type: simple-construction-bolt\n---\n\n"
              f"# Unit Brief: {unit.slug}\n\n## Purpose\n\n{_paragraph(rng, 3)}\n\n## Scope\n\n"
              f"### In Scope\n\n- {rng.choice(VERBS)} {rng.choice(OBJECTS)}s\n- {rng.choice(VERBS)} "
              f"{rng.choice(OBJECTS)}s\n\n### Out of Scope\n\n- Anything outside {unit.slug}\n")
    bolts = _plan_bolts(ctx, unit)
    for k in range(unit.stories):
        bolt = bolts[k // STORIES_PER_BOLT]
        stem = f"{k + 1:03d}-{unit.slug}-{rng.choice(VERBS)}-{rng.choice(OBJECTS)}"
        bolt.stories.append(stem)
        links = [requirements[(serial + k) % len(requirements)].id]
        if rng.random() < 0.3:
            links.append(rng.choice(requirements).id)
        ctx.write(f"{base}/stories/{stem}.md", _story_md(ctx, stem, intent, unit, bolt, list(dict.fromkeys(links))))
    for index, bolt in enumerate(bolts):
        before = bolts[index - 1].id if index else None
        after = bolts[index + 1].id if index + 1 < len(bolts) else None
        ctx.write(f"bolts/{bolt.id}/bolt.md", _bolt_md(ctx, bolt, intent, unit, before, after, previous_unit))
    return serial + unit.stories


def _plan_bolts(ctx: _Ctx, unit: _UnitPlan) -> list[_BoltPlan]:
    """One bolt per five stories; statuses advance along the chain (complete..., in-progress?, planned...)."""
    count = math.ceil(unit.stories / STORIES_PER_BOLT)
    done = ctx.rng.randint(0, count)
    active = done if done < count and ctx.rng.random() < 0.6 else -1
    plans = []
    for index in range(count):
        ctx.bolts += 1
        status = "complete" if index < done else "in-progress" if index == active else "planned"
        plans.append(_BoltPlan(f"{ctx.bolts:0{ctx.bolt_width}d}-{unit.slug}", status))
    return plans


_STORY_STATUS = {"complete": "complete", "in-progress": "in-progress", "planned": "ready"}


def _story_md(ctx: _Ctx, stem: str, intent: str, unit: _UnitPlan, bolt: _BoltPlan, links: list[str]) -> str:
    rng = ctx.rng
    status = _STORY_STATUS[bolt.status]
    if status == "ready" and rng.random() < 0.2:
        status = "draft"
    criteria_count = rng.randint(3, 6)
    checked = criteria_count if status == "complete" else rng.randint(0, 2) if status == "in-progress" else 0
    criteria = "\n".join(_criterion(rng, i < checked) for i in range(criteria_count))
    verb, obj = stem.split("-")[-2:]
    # Older banks keep the links only in the body; this one writes both, as the loader reads both.
    related = f"\n**Related Requirements**: {' / '.join(links)}\n" if rng.random() < 0.2 else ""
    front = (f"---\nid: {stem}\nunit: {unit.folder}\nintent: {intent}\nstatus: {status}\n"
             f"priority: {rng.choice(('must', 'must', 'should', 'could'))}\ncreated: {ctx.now()}\n"
             f"assigned_bolt: {bolt.id}\nimplemented: {'true' if status == 'complete' else 'false'}\n"
             f"requirements: [{', '.join(links)}]\n---\n\n")
    body = (f"# Story: {verb.title()} {obj}\n\n## User Story\n\n**As a** {rng.choice(ROLES)}\n"
            f"**I want** to {verb} {_a(obj)}\n**So that** {_paragraph(rng, 1).lower()}\n{related}\n"
            f"## Acceptance Criteria\n\n{criteria}\n\n## Technical Notes\n\n- {_paragraph(rng, 2)}\n"
            f"- Endpoint: `POST /api/{unit.slug}/{obj}s/{{id}}/{verb}`\n\n```json\n"
            f'{{"{obj}_id": "abc-123", "action": "{verb}"}}\n```\n\n## Dependencies\n\n### Requires\n\n- None\n\n'
            f"## Edge Cases\n\n| Scenario | Expected Behavior |\n|----------|-------------------|\n"
            f"| Unknown {obj} | 404 with an error body |\n| Concurrent {verb} | 409, the first one wins |\n")
    return front + body


def _bolt_md(ctx: _Ctx, bolt: _BoltPlan, intent: str, unit: _UnitPlan, before: str | None, after: str | None,
             previous_unit: str | None) -> str:
    created = ctx.now()
    started = ctx.now(90) if bolt.status != "planned" else "null"
    if bolt.status == "complete":
        stages = "".join(f"  - name: {name}\n    completed: {ctx.now(50)}\n" for name in ("plan", "implement", "test"))
        current = "null"
    elif bolt.status == "in-progress":
        stages, current = f"  - name: plan\n    completed: {ctx.now(50)}\n", "implement"
    else:
        stages, current = "", "null"
    completed = ctx.now(10) if bolt.status == "complete" else "null"
    rng = ctx.rng
    listed = "".join(f"  - {stem}\n" for stem in bolt.stories)
    front = (f"---\nid: {bolt.id}\nunit: {unit.folder}\nintent: {intent}\ntype: simple-construction-bolt\n"
             f"status: {bolt.status}\nstories:\n{listed}created: {created}\nstarted: {started}\n"
             f"completed: {completed}\ncurrent_stage: {current}\nstages_completed:{' []' if not stages else ''}\n"
             f"{stages}\nrequires_bolts: [{before or ''}]\nenables_bolts: [{after or ''}]\n"
             f"requires_units: [{previous_unit or ''}]\nblocks: false\n\ncomplexity:\n"
             f"  avg_complexity: {rng.randint(1, 3)}\n  avg_uncertainty: {rng.randint(1, 3)}\n"
             f"  max_dependencies: {rng.randint(0, 2)}\n  testing_scope: {rng.randint(1, 3)}\n"
             f"risk: {rng.choice(('low', 'medium', 'medium', 'high'))}\nscope:\n"
             f'  - "src/{unit.slug.replace("-", "_")}/**"\n  - "tests/{unit.slug.replace("-", "_")}/**"\n---\n\n')
    included = "".join(f"- **{stem}**: {stem.split('-', 1)[1].replace('-', ' ')} (Must)\n" for stem in bolt.stories)
    body = (f"# Bolt: {bolt.id}\n\n## Overview\n\n{_paragraph(rng, 2)}\n\n## Stories Included\n\n{included}\n"
            "## Bolt Type\n\nSimple construction: plan, implement, test.\n")
    return front + body


# --------------------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------------------

FLOOR_CODE = """
import json, os, sys, time
start = time.perf_counter()
root, parser = sys.argv[1], sys.argv[2]
stories, bolts, parts = [], [], []
reading = parser == "reading"
if reading:  # every module validate loads, and aidlc's own reading of each story and bolt
    import aidlc.cli.validate
    from aidlc.bank import markdown
    from aidlc.bank.items import validate_many
    from aidlc.model.artifacts import Bolt, Story
    from aidlc.perf import gc_paused
    gc_paused().__enter__()
    parser = "yaml-rs"
if parser == "libraries":
    import click, pydantic
    class One(pydantic.BaseModel):
        name: str
    parser = "yaml-rs"
if parser == "yaml-rs":
    import yaml_rs
    load = yaml_rs.loads
else:
    import yaml
    def load(text, _loader=yaml.CSafeLoader):
        return yaml.load(text, Loader=_loader)
files = parsed = 0
for folder, _dirs, names in os.walk(root):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            text = handle.read().decode("utf-8")
        files += 1
        if name.endswith(".yaml"):
            load(text)
            parsed += 1
        elif text.startswith("---\\n"):
            end = text.find("\\n---", 3)
            if end != -1:
                meta = load(text[4:end + 1])
                parsed += 1
                if reading and folder.endswith("/stories"):
                    stories.append(meta)
                    parts.append(markdown.story_parts(text[end + 5:], 1, batch_hint=True))
                elif reading and name == "bolt.md":
                    bolts.append(meta)
if reading:
    markdown.settle_opinion_hints(parts)
    validate_many(Story, stories)
    validate_many(Bolt, bolts)
print(json.dumps({"files": files, "parsed": parsed, "stories": len(stories), "bolts": len(bolts),
                  "work_s": time.perf_counter() - start}))
"""



@dataclass(frozen=True)
class ChildRun:
    seconds: float
    exit_code: int
    peak_bytes: int
    cpu_seconds: float  # user + system time of the child: what load from other processes changes least
    stdout: str
    stderr: str


class Runner:
    """Runs measured commands the same way every time (see `measure.probed_env`); without the probe the
    peak is ``os.wait4``'s ru_maxrss, which can be inflated by the parent."""

    def __init__(self, workdir: Path) -> None:
        self.env, self.peak_file, self.probe = probed_env(workdir)
        self.peak_source = "VmHWM (/proc/self/status at exit)" if self.probe else "ru_maxrss (os.wait4)"

    def run(self, argv: list[str], ok: tuple[int, ...] = (0,)) -> ChildRun:
        """Run one command: wall time from spawn to reap, its output and its peak RSS."""
        self.peak_file.unlink(missing_ok=True)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=self.env)
            _pid, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
        if proc.returncode not in ok:
            raise SystemExit(f"benchmark: {' '.join(argv)[:300]} exited {proc.returncode}:\n{stderr[-2000:]}")
        peak = usage.ru_maxrss * _MAXRSS_BYTES
        if self.probe:
            try:
                peak = int(self.peak_file.read_text(encoding="ascii"))
            except (OSError, ValueError):
                raise SystemExit(f"benchmark: the peak-memory probe did not report for {argv[0]}") from None
        return ChildRun(seconds, proc.returncode, peak, usage.ru_utime + usage.ru_stime, stdout, stderr)


@dataclass
class SizeResult:
    stories: int
    shape: BankShape
    summary: dict[str, int]
    finding_codes: dict[str, int]
    cli: Stat
    in_process: Stat
    in_process_split: dict[str, float]
    floor_yaml_rs: Stat
    floor_pyyaml: Stat
    floor_libraries: Stat
    floor_reading: Stat  # the libraries floor plus aidlc's imports and its reading of each story and bolt
    floor_work: dict[str, float]
    floor_files: int
    cpu: dict[str, float]  # median CPU seconds (user + system) of the CLI and of each floor


def measure_size(runner: Runner, repo: Path, shape: BankShape, runs: int) -> SizeResult:
    """Interleaved subprocess runs (CLI, the floors) after one warm-up each, then the in-process runs."""
    floors = {name: [sys.executable, "-c", FLOOR_CODE, str(repo / "memory-bank"), name]
              for name in ("yaml-rs", "pyyaml", "libraries", "reading")}
    commands = {"cli": [aidlc_executable(), "validate", str(repo), "--format", "json"], **floors}
    ok = {"cli": (0, 1)}  # 1: the bank has errors, still a complete run
    samples: dict[str, list[ChildRun]] = {name: [] for name in commands}
    for name, argv in commands.items():
        runner.run(argv, ok.get(name, (0,)))  # warm-up: bytecode cache, page cache
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(runner.run(argv, ok.get(name, (0,))))
    report = json.loads(samples["cli"][0].stdout)
    codes: dict[str, int] = {}
    for finding in report["findings"]:
        codes[finding["code"]] = codes.get(finding["code"], 0) + 1
    floor_reports = {name: [json.loads(r.stdout) for r in samples[name]] for name in floors}
    read = floor_reports["reading"][0]
    if (read["stories"], read["bolts"]) != (shape.stories, shape.bolts):  # else it measured less than it says
        raise SystemExit(f"the reading floor read {read['stories']} stories and {read['bolts']} bolts of "
                         f"{shape.stories} and {shape.bolts}")
    in_process, split = measure_in_process(repo, runs)
    return SizeResult(
        stories=shape.stories, shape=shape, summary=report["summary"], finding_codes=codes,
        cli=_child_stat(samples["cli"]),
        in_process=in_process, in_process_split=split,
        floor_yaml_rs=_child_stat(samples["yaml-rs"]), floor_pyyaml=_child_stat(samples["pyyaml"]),
        floor_libraries=_child_stat(samples["libraries"]),
        floor_reading=_child_stat(samples["reading"]),
        floor_work={name: statistics.median(r["work_s"] for r in reports) for name, reports in floor_reports.items()},
        floor_files=floor_reports["yaml-rs"][0]["files"],
        cpu={name: statistics.median(r.cpu_seconds for r in runs) for name, runs in samples.items()},
    )


def _child_stat(runs: list[ChildRun]) -> Stat:
    return Stat.of([r.seconds for r in runs], [r.peak_bytes for r in runs])


def validation_steps(repo: Path) -> list[tuple[str, Callable[[Any], Any]]]:
    """What `aidlc validate --format json` does after start-up, as (phase, step) pairs chained on the result."""
    from aidlc.report.validation import render_json
    from aidlc.rules import validate
    from aidlc.workspace import open_bank

    return [("load", lambda _: open_bank(repo.resolve())), ("rules", validate), ("render", render_json)]


def measure_in_process(repo: Path, runs: int) -> tuple[Stat, dict[str, float]]:
    steps = validation_steps(repo)
    totals: list[float] = []
    phases: dict[str, list[float]] = {name: [] for name, _ in steps}
    for _ in range(runs):
        gc.collect()
        value: Any = None
        total = 0.0
        for name, step in steps:
            start = time.perf_counter()
            value = step(value)
            elapsed = time.perf_counter() - start
            phases[name].append(elapsed)
            total += elapsed
        totals.append(total)
        del value
    return Stat.of(totals), {name: statistics.median(times) for name, times in phases.items()}


def measure_startup(runner: Runner, runs: int) -> dict[str, Stat]:
    commands = {"aidlc --version": [aidlc_executable(), "--version"], "aidlc --help": [aidlc_executable(), "--help"],
                "python -c pass": [sys.executable, "-c", "pass"]}
    samples: dict[str, list[ChildRun]] = {name: [] for name in commands}
    for argv in commands.values():
        runner.run(argv)  # warm-up
    for _ in range(max(runs, MIN_STARTUP_RUNS)):
        for name, argv in commands.items():
            samples[name].append(runner.run(argv))
    return {name: _child_stat(found) for name, found in samples.items()}


# --------------------------------------------------------------------------------------------------
# Goals and report
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Goal:
    name: str
    measured: str
    passed: bool | None  # None: the size the goal needs was not measured


def goals(results: list[SizeResult], startup: dict[str, Stat]) -> list[Goal]:
    found = [_floor_goal(results, GOAL_STORIES, GOAL_FLOOR_RATIO),
             _floor_goal(results, GOAL_SMALL_STORIES, GOAL_SMALL_FLOOR_RATIO)]
    big = next((r for r in results if r.stories == GOAL_STORIES), None)
    name = f"{GOAL_STORIES:,} stories validated in under {GOAL_SECONDS:g} s"
    found.append(Goal(name, "not measured", None) if big is None else Goal(
        name, f"{big.cli.median:.3f} s (CLI, end to end; fastest run {big.cli.min:.3f} s; depends on the machine)",
        big.cli.median < GOAL_SECONDS))
    version, help_ = startup["aidlc --version"], startup["aidlc --help"]
    found.append(Goal(f"aidlc --help under {GOAL_HELP_RATIO:g}x aidlc --version",
                      f"{help_.median / version.median:.2f}x ({help_.median * 1000:.1f} ms against "
                      f"{version.median * 1000:.1f} ms; fastest runs {help_.min / version.min:.2f}x)",
                      help_.median < GOAL_HELP_RATIO * version.median))
    found.append(Goal(f"aidlc --version under {GOAL_VERSION_SECONDS * 1000:g} ms",
                      f"{version.median * 1000:.1f} ms (depends on the machine)",
                      version.median < GOAL_VERSION_SECONDS))
    return found


def _floor_goal(results: list[SizeResult], stories: int, limit: float) -> Goal:
    """CLI end to end against the yaml-rs floor of the same run, median against median."""
    name = f"{stories:,} stories within {limit:g}x the floor"
    result = next((r for r in results if r.stories == stories), None)
    if result is None:
        return Goal(name, "not measured", None)
    cli, floor = result.cli, result.floor_yaml_rs
    ratio = cli.median / floor.median
    return Goal(name, f"{ratio:.2f}x the yaml-rs floor ({cli.median:.3f} s against {floor.median:.3f} s; "
                      f"fastest runs {cli.min / floor.min:.2f}x)", ratio <= limit)


def render_table(results: list[SizeResult], startup: dict[str, Stat], goal_list: list[Goal], peak_source: str) -> str:
    head = (f"{'size':>7}  {'measurement':<34} {'median s':>9} {'min s':>8} {'max s':>8} {'x floor':>8} "
            f"{'min x':>7} {'peak MiB':>9}")
    lines = [head, "-" * len(head)]
    for result in results:
        floor = result.floor_yaml_rs.median
        rows = [("aidlc validate (CLI subprocess)", result.cli),
                ("validate in-process (no start-up)", result.in_process),
                ("floor: read + yaml-rs (subprocess)", result.floor_yaml_rs),
                ("floor: read + PyYAML CSafeLoader", result.floor_pyyaml),
                ("floor + click and pydantic loaded", result.floor_libraries),
                ("floor + aidlc's reading, no rules", result.floor_reading)]
        for index, (name, stat) in enumerate(rows):
            size = f"{result.stories:,}" if index == 0 else ""
            lines.append(_row(size, name, stat, (stat.median / floor, stat.min / result.floor_yaml_rs.min)))
        split = ", ".join(f"{name} {seconds:.3f}" for name, seconds in result.in_process_split.items())
        work = ", ".join(f"{name} {seconds:.3f}" for name, seconds in result.floor_work.items())
        s = result.summary
        cpu = result.cpu
        lines += [f"{'':9}in-process split (median s): {split}; floor work without start-up: {work}",
                  f"{'':9}CPU time (user + system, median s): CLI {cpu['cli']:.3f}, yaml-rs floor {cpu['yaml-rs']:.3f} "
                  f"({cpu['cli'] / cpu['yaml-rs']:.2f}x: each one's own work, without the waiting a busy machine adds)",
                  f"{'':9}the libraries validate loads (click, pydantic and its first model) take "
                  f"{(result.floor_libraries.median - floor) / floor:.2f}x the floor on their own",
                  f"{'':9}with aidlc's imports and its reading of each story and bolt (body parts, opinion hints, "
                  f"pydantic) added: {result.floor_reading.median / floor:.2f}x" + _left_of_goal(result),
                  f"{'':9}bank: {result.shape.intents} intents, {result.shape.units} units, {result.shape.stories:,} "
                  f"stories, {result.shape.bolts:,} bolts, {result.shape.files:,} files (floor read "
                  f"{result.floor_files:,}, aidlc read {s['files']:,})",
                  f"{'':9}aidlc summary: {s['files']} files, {s['errors']} errors, {s['warnings']} warnings, "
                  f"{s.get('infos', 0)} notes" + (f"  {result.finding_codes}" if result.finding_codes else ""), ""]
    for index, (name, stat) in enumerate(startup.items()):
        lines.append(_row("startup" if index == 0 else "", name, stat, None))
    lines.append(f"{'':9}x floor: median against the floor's median; min x: fastest run against the floor's fastest")
    lines += [f"{'':9}peak MiB: max over the runs, from {peak_source}", "", "Goals (informational):"]
    for goal in goal_list:
        verdict = "n/a " if goal.passed is None else "PASS" if goal.passed else "MISS"
        lines.append(f"  {verdict}  {goal.name}: {goal.measured}")
    return "\n".join(lines)


def _left_of_goal(result: SizeResult) -> str:
    """What the goal of this size leaves for all validate does beyond reading (the rules among it)."""
    limit = {GOAL_STORIES: GOAL_FLOOR_RATIO, GOAL_SMALL_STORIES: GOAL_SMALL_FLOOR_RATIO}.get(result.stories)
    if limit is None:
        return ""
    left = limit - result.floor_reading.median / result.floor_yaml_rs.median
    return f"; the {limit:g}x goal leaves {left:.2f}x for everything else validate does, the rules among it"


def _row(size: str, name: str, stat: Stat, ratios: tuple[float, float] | None) -> str:
    ratio_text = f"{ratios[0]:.2f}x {ratios[1]:>6.2f}x" if ratios is not None else f"{'-':>8} {'-':>7}"
    peak = f"{stat.peak_mib:.1f}" if stat.peak_mib is not None else "-"
    return (f"{size:>7}  {name:<34} {stat.median:>9.3f} {stat.min:>8.3f} {stat.max:>8.3f} "
            f"{ratio_text:>16} {peak:>9}")


# --------------------------------------------------------------------------------------------------
# Profile (--profile)
# --------------------------------------------------------------------------------------------------


def profile_validation(repo: Path, top: int = 25) -> dict[str, Any]:
    """cProfile one in-process validation (after a warm-up run); the top functions by cumulative and own time.

    Shares are of the profiled total; cProfile's per-call overhead inflates functions called very often.
    """
    steps = validation_steps(repo)
    _run_steps(steps)  # warm-up: lazy imports and caches, as the measured in-process runs see them
    gc.collect()
    profiler = cProfile.Profile()
    profiler.runcall(_run_steps, steps)
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    this_file = str(Path(__file__).resolve())
    total = next(value[3] for key, value in raw.items() if key[0] == this_file and key[2] == "_run_steps")
    rows = [_profile_row(key, value, total) for key, value in raw.items()
            if key[0] != this_file and "_lsprof" not in key[2]]
    by_cumulative = sorted(rows, key=lambda r: r["cumulative_s"], reverse=True)[:top]
    by_own = sorted(rows, key=lambda r: r["own_s"], reverse=True)[:top]
    return {"total_s": total, "by_cumulative": by_cumulative, "by_own": by_own, "rules": rule_times(repo)}


def rule_times(repo: Path, repeats: int = 3) -> list[dict[str, Any]]:
    """Each rule of the catalogue timed alone (no profiler), median of `repeats`, slowest first."""
    from aidlc.bank.index import BankIndex
    from aidlc.rules import CATALOGUE
    from aidlc.workspace import open_bank

    index = BankIndex(open_bank(repo.resolve()))
    rows = []
    for code, spec in CATALOGUE.items():
        if spec.check is None:  # a rule of `aidlc ci` or of the aidlc-docs layout: not run on a memory bank
            continue
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            hits = sum(1 for _hit in spec.check(index))
            times.append(time.perf_counter() - start)
        rows.append({"code": code, "function": spec.check.__name__, "seconds": statistics.median(times), "hits": hits})
    return sorted(rows, key=lambda r: -r["seconds"])


def _run_steps(steps: list[tuple[str, Callable[[Any], Any]]]) -> None:
    value: Any = None
    for _name, step in steps:
        value = step(value)


def _profile_row(key: tuple[str, int, str], value: tuple[Any, ...], total: float) -> dict[str, Any]:
    filename, line, function = key
    _primitive, calls, own, cumulative, _callers = value
    return {"function": function, "where": f"{_short_path(filename)}:{line}", "calls": calls,
            "own_s": own, "cumulative_s": cumulative, "share": cumulative / total if total else 0.0}


def _short_path(filename: str) -> str:
    filename = re.sub(r"^.*/lib/python3\.\d+/(site-packages/)?", "", filename)
    return filename.removeprefix(str(Path(__file__).resolve().parent.parent) + os.sep)


def import_times(runner: Runner, statement: str, repeats: int = 3, top: int = 12) -> dict[str, Any]:
    """`python -X importtime -c STATEMENT`: median total, and own import time summed per top-level package."""
    totals: list[float] = []
    per_package: dict[str, list[float]] = {}
    modules: dict[str, list[float]] = {}
    for _ in range(repeats):
        run = runner.run([sys.executable, "-X", "importtime", "-c", statement])
        packages: dict[str, float] = {}
        total = 0.0
        for own_us, cumulative_us, name in _importtime_lines(run.stderr):
            total += own_us
            packages[name.split(".")[0]] = packages.get(name.split(".")[0], 0.0) + own_us
            modules.setdefault(name, []).append(cumulative_us)
        totals.append(total / 1e6)
        for package, own in packages.items():
            per_package.setdefault(package, []).append(own / 1e6)
    package_rows = sorted(((p, statistics.median(v)) for p, v in per_package.items()), key=lambda x: -x[1])[:top]
    aidlc_rows = sorted(((m, statistics.median(v) / 1e6) for m, v in modules.items() if m.startswith("aidlc")),
                        key=lambda x: -x[1])[:top]
    return {"statement": statement, "total_s": statistics.median(totals),
            "own_by_package": [{"package": p, "seconds": s} for p, s in package_rows],
            "aidlc_cumulative": [{"module": m, "seconds": s} for m, s in aidlc_rows]}


def _importtime_lines(stderr: str) -> Iterator[tuple[float, float, str]]:
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|", 2)
        yield float(own), float(cumulative), name.strip()


def render_profile(profile: dict[str, Any], imports: list[dict[str, Any]], stories: int) -> str:
    lines = [f"cProfile of one in-process validation of {stories:,} stories "
             f"(load + rules + render, profiler total {profile['total_s']:.3f} s)", "",
             "by cumulative time:", _profile_head()]
    lines += [_profile_line(r) for r in profile["by_cumulative"]]
    lines += ["", "by own time:", _profile_head()]
    lines += [_profile_line(r) for r in profile["by_own"]]
    rules = profile["rules"]
    lines += ["", f"rules timed alone, without the profiler (sum {sum(r['seconds'] for r in rules):.3f} s), slowest:"]
    lines += [f"  {r['seconds']:7.3f} s  {r['code']:<18} {r['function']} ({r['hits']} hits)" for r in rules[:8]]
    for entry in imports:
        lines += ["", f"python -X importtime -c {entry['statement']!r}: {entry['total_s'] * 1000:.1f} ms of imports",
                  "  own import time by top-level package (ms):"]
        lines += [f"    {row['package']:<28} {row['seconds'] * 1000:8.1f}" for row in entry["own_by_package"]]
        lines += ["  aidlc modules, cumulative (ms):"]
        lines += [f"    {row['module']:<28} {row['seconds'] * 1000:8.1f}" for row in entry["aidlc_cumulative"]]
    return "\n".join(lines)


def _profile_head() -> str:
    return f"  {'cum s':>7} {'share':>6} {'own s':>7} {'calls':>9}  function (file:line)"


def _profile_line(row: dict[str, Any]) -> str:
    return (f"  {row['cumulative_s']:7.3f} {row['share']:6.1%} {row['own_s']:7.3f} {row['calls']:9d}  "
            f"{row['function']} ({row['where']})")


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000,10000", help="story counts, comma-separated (default 1000,10000)")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the generated banks")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON document")
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile the largest bank and break down import time")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="generate the banks here and keep them (default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    args.sizes = [int(size.replace("_", "")) for size in args.sizes.split(",") if size.strip()]
    if args.runs < 1 or not args.sizes or min(args.sizes) < 1:
        parser.error("--runs and every size must be at least 1")
    return args


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    runner = Runner(workdir)
    load_before = _load_average()
    results: list[SizeResult] = []
    repos: dict[int, Path] = {}
    for size in args.sizes:
        repo = workdir / f"bank-{size}"
        if repo.exists():
            shutil.rmtree(repo)
        start = time.perf_counter()
        shape = generate_bank(repo, size, args.seed)
        note(f"generated {size:,} stories ({shape.files:,} files) in {time.perf_counter() - start:.1f} s: {repo}")
        results.append(measure_size(runner, repo, shape, args.runs))
        repos[size] = repo
    startup = measure_startup(runner, args.runs)
    goal_list = goals(results, startup)
    env = environment(args, runner, load_before)
    document: dict[str, Any] = {
        "environment": env,
        "sizes": [asdict(result) for result in results],
        "startup": {name: asdict(stat) for name, stat in startup.items()},
        "goals": [asdict(goal) for goal in goal_list],
        "table": render_table(results, startup, goal_list, runner.peak_source) + "\n" + _machine_line(env),
    }
    if args.profile:
        largest = max(args.sizes)
        note(f"profiling validation of {largest:,} stories ...")
        document["profile"] = profile_validation(repos[largest])
        document["imports"] = [import_times(runner, "import aidlc.cli"),
                               import_times(runner, "import aidlc.cli.validate")]
        document["profile_text"] = render_profile(document["profile"], document["imports"], largest)
    return document


def environment(args: argparse.Namespace, runner: Runner, load_before: float | None) -> dict[str, Any]:
    import aidlc

    return {"aidlc": aidlc.__version__, "commit": _commit(), "python": platform.python_version(),
            "platform": platform.platform(), "cpus": os.cpu_count(), "runs": args.runs, "seed": args.seed,
            "peak_memory": runner.peak_source, "load_average_1min": {"start": load_before, "end": _load_average()}}


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _machine_line(env: dict[str, Any]) -> str:
    load = env["load_average_1min"]
    text = (f"aidlc {env['aidlc']} ({(env['commit'] or 'no commit')[:12]}, uncommitted changes not shown), "
            f"Python {env['python']}, {env['cpus']} CPUs, {env['runs']} runs")
    if load["start"] is not None and load["end"] is not None:
        text += f"; load average {load['start']:.2f} at start, {load['end']:.2f} at end"
        if max(load["start"], load["end"]) > 0.5 * (env["cpus"] or 1):
            text += " (a busy machine: expect noisy numbers, compare min columns)"
    return text


def _commit() -> str | None:
    """HEAD of the checkout being measured (read-only; uncommitted changes are not shown)."""
    try:
        found = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False,
                               cwd=Path(__file__).resolve().parent)
    except OSError:
        return None
    return found.stdout.strip() or None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    document = in_workdir(args.workdir, "aidlc-bench-", lambda where: run(args, where))
    if args.json:
        document.pop("table")
        document.pop("profile_text", None)
        print(json.dumps(document, indent=2, default=str))
    else:
        print(document["table"])
        if "profile_text" in document:
            print("\n" + document["profile_text"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
