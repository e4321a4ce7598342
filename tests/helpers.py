"""A small, clean memory bank in a real git repo, and the tools a test uses to break one thing in it.

The clean bank validates with zero findings of any severity. Every broken-fixture
test starts from it, changes one line (or one file) and asserts the exact finding.
Work is in progress, nothing is complete: a completion without a ledger is itself a
finding (AIDLC-LEDGER-007), so tests that need one call `complete_first_bolt`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from aidlc.model.findings import Finding, ValidationReport
from aidlc.rules import validate

MB = "memory-bank"
INTENT = f"{MB}/intents/001-checkout"
PROJECT = f"{MB}/project.yaml"
REQUIREMENTS = f"{INTENT}/requirements.md"
UNIT_DIR = f"{INTENT}/units/001-checkout-api"
UNIT_BRIEF = f"{UNIT_DIR}/unit-brief.md"
STORY1 = f"{UNIT_DIR}/stories/001-pay-by-card.md"
STORY2 = f"{UNIT_DIR}/stories/002-refund-order.md"
BOLT1_DIR = f"{MB}/bolts/001-checkout-api"
BOLT1 = f"{BOLT1_DIR}/bolt.md"
BOLT2_DIR = f"{MB}/bolts/002-checkout-refunds"
BOLT2 = f"{BOLT2_DIR}/bolt.md"
RUNBOOK = f"{MB}/operations/runbooks/deploy.md"

CLEAN_FILES: dict[str, str] = {
    PROJECT: """\
project_type: web-app
initialized_at: 2026-11-30T08:00:00Z
name: shop
""",
    f"{MB}/standards/tech-stack.md": "# Tech stack\n\nPython 3.12, PostgreSQL.\n",
    REQUIREMENTS: """\
---
intent: 001-checkout
phase: inception
status: approved
created: 2026-11-30T08:00:00Z
updated: 2026-11-30T09:00:00+01:00
---

# Intent: Checkout

Buyers pay for their cart and can get their money back.

## Functional Requirements

### FR-1: Pay by card

**Priority**: Must

**Acceptance Criteria**:
- [ ] **Given** a cart, **When** the buyer pays by card, **Then** an order is created

### FR-2: Refund an order

**Priority**: Should

**Acceptance Criteria**:
- [ ] **Given** a paid order, **When** support refunds it, **Then** the card is credited

## Non-Functional Requirements

### NFR-1: Payment latency

**Priority**: Must

**Acceptance Criteria**:
- [ ] **Given** 100 concurrent buyers, **When** they pay, **Then** the p95 latency is under 800 ms
""",
    f"{INTENT}/system-context.md": "# System context\n\nThe card processor is the fact source for payments.\n",
    f"{INTENT}/units.md": "# Units\n\n| requirement | unit |\n|---|---|\n| FR-1, FR-2, NFR-1 | 001-checkout-api |\n",
    UNIT_BRIEF: """\
---
unit: 001-checkout-api
intent: 001-checkout
phase: construction
status: in-progress
created: 2026-11-30T08:00:00Z
updated: 2026-11-30T08:00:00Z
---

# Unit: Checkout API

The HTTP API that takes payments and refunds.
""",
    STORY1: """\
---
id: 001-pay-by-card
unit: 001-checkout-api
intent: 001-checkout
status: in-progress
priority: must
created: 2026-11-30T08:00:00Z
assigned_bolt: 001-checkout-api
implemented: false
requirements: [FR-1, NFR-1]
---

# Story: Pay by card

**As a** buyer **I want** to pay by card **so that** I get my order.

## Acceptance Criteria

- [x] **Given** a cart with one item, **When** the buyer pays with a valid card, **Then** an order is created
- [ ] **Given** a declined card, **When** the buyer pays, **Then** no order is created and the reason is shown
""",
    STORY2: """\
---
id: 002-refund-order
unit: checkout-api
intent: 001-checkout
status: ready
priority: should
created: 2026-11-30T08:00:00Z
assigned_bolt: 002-checkout-refunds
implemented: false
---

# Story: Refund an order

**Related Requirements**: FR-2 / NFR-1

## Acceptance Criteria

- [ ] **Given** a paid order, **When** support refunds it, **Then** the card is credited with the full amount
""",
    BOLT1: """\
---
id: 001-checkout-api
unit: 001-checkout-api
intent: 001-checkout
type: simple-construction-bolt
status: in-progress
stories:
  - 001-pay-by-card
created: 2026-11-30T08:00:00Z
started: 2026-11-30T09:00:00Z
completed: null
current_stage: implement
stages_completed:
  - name: plan
    completed: 2026-11-30T10:00:00Z
    artifact: implementation-plan.md
  - design: 2026-11-30T11:00:00+01:00
requires_bolts: []
enables_bolts:
  - 002-checkout-refunds
requires_units: []
blocks: false
complexity:
  avg_complexity: 2
risk: low
scope:
  - "src/checkout/**"
---

# Bolt: checkout API
""",
    f"{BOLT1_DIR}/implementation-plan.md": "# Plan\n\nAdd the payment endpoint.\n",
    BOLT2: """\
---
id: 002-checkout-refunds
unit: checkout-api
intent: 001-checkout
type: simple-construction-bolt
status: planned
stories: [002-refund-order]
created: 2026-12-01T08:00:00Z
started: null
completed: null
current_stage: null
stages_completed: []
requires_bolts:
  - 001-checkout-api
enables_bolts: []
requires_units: [001-checkout-api]
risk: medium
---

# Bolt: refunds
""",
    RUNBOOK: """\
# Runbook: deploy the checkout API

## Trigger
A release tag is pushed.

## Owner
The on-call engineer.

## Scope
The checkout API only.

## Steps
1. Run the deploy job.

## Verification
The health endpoint answers 200.

## Communication
Post in #releases.
""",
}


def complete_first_bolt(bank: Bank) -> None:
    """Bolt 001 and its story done, as the state rules want it: boxes checked, implemented, timestamps."""
    bank.set_key(BOLT1, "status", "complete")
    bank.set_key(BOLT1, "completed", "2026-12-01T17:00:00Z")
    bank.set_key(STORY1, "status", "complete")
    bank.set_key(STORY1, "implemented", "true")
    bank.replace(STORY1, "- [ ] **Given** a declined card", "- [x] **Given** a declined card")


def git_init(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)


@dataclass
class Bank:
    """A memory bank on disk; paths are relative to the repo root, as findings report them."""

    root: Path

    def path(self, rel: str) -> Path:
        return self.root / rel

    def read(self, rel: str) -> str:
        return self.path(rel).read_text(encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        path = self.path(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")

    def write_bytes(self, rel: str, data: bytes) -> None:
        path = self.path(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def remove(self, rel: str) -> None:
        self.path(rel).unlink()

    def replace(self, rel: str, old: str, new: str) -> None:
        """Replace the one occurrence of `old` (a test that edits nothing must fail loudly)."""
        text = self.read(rel)
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
        self.write(rel, text.replace(old, new))

    def set_key(self, rel: str, key: str, value: str | None) -> int:
        """Rewrite (or with None, drop) one top-level front-matter key, block lists included.

        `value` is raw YAML text. Returns the line the key is on (after the edit).
        """
        lines = self.read(rel).splitlines(keepends=True)
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
        end = start + 1
        while end < len(lines) and lines[end].startswith((" ", "\t")):
            end += 1
        lines[start:end] = [] if value is None else [f"{key}: {value}\n"]
        self.write(rel, "".join(lines))
        return start + 1

    def add_key(self, rel: str, key: str, value: str) -> int:
        """Add a key as the last front-matter line; returns its line."""
        lines = self.read(rel).splitlines(keepends=True)
        close = lines.index("---\n", 1)
        lines.insert(close, f"{key}: {value}\n")
        self.write(rel, "".join(lines))
        return close + 1

    def line(self, rel: str, needle: str, nth: int = 1) -> int:
        """1-based line number of the nth line containing `needle`."""
        text = self.path(rel).read_bytes().decode("utf-8", "replace")  # broken bytes still have lines
        hits = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
        assert len(hits) >= nth, f"{needle!r} not found {nth} time(s) in {rel}"
        return hits[nth - 1]

    def report(self) -> ValidationReport:
        return validate(load_bank(self.root, load_config(self.root)))

    def findings(self, code: str | None = None) -> list[Finding]:
        return [f for f in self.report().findings if code is None or f.code == code]

    def snapshot(self) -> dict[str, tuple[int, int, bytes]]:
        """Every file under the repo (but .git) with its mtime, size and bytes."""
        result = {}
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in files:
                path = Path(folder) / name
                stat = path.stat()
                result[path.relative_to(self.root).as_posix()] = (stat.st_mtime_ns, stat.st_size, path.read_bytes())
        return result


def build_clean_bank(root: Path) -> Bank:
    git_init(root)
    bank = Bank(root)
    for rel, text in CLEAN_FILES.items():
        bank.write(rel, text)
    return bank


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`aidlc ARGS` in this process (`in_process`), with this environment but CI, and NO_COLOR."""
    return in_process(list(args), _cli_env(env), cwd)


def run_cli_process(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
                    timeout: float | None = None) -> subprocess.CompletedProcess:
    """As `run_cli`, in a real `python -m aidlc` subprocess (the installed entry point's code path); killed after
    `timeout` seconds, failing the test, where a hang is the failure looked for."""
    return subprocess.run([sys.executable, "-m", "aidlc", *args], cwd=cwd, env=_cli_env(env),
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout)


def _cli_env(env: dict[str, str] | None) -> dict[str, str]:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("CI", None)
    return full_env


def in_process(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`aidlc ARGS` as the console script runs it (`run_safely`, the same exit codes and messages), but in this
    process: the environment is exactly `env` and the working folder `cwd` while it runs, as for a subprocess,
    and what it wrote comes back as a CompletedProcess. Starting a Python that imports aidlc (and the OpenAI SDK)
    for each command is most of a CLI test's time; tests about the process itself (signals, a kill, a
    terminal, the real exit status) start one with `run_cli` or Popen."""
    import contextlib

    from click.testing import CliRunner

    from aidlc.cli import cli
    from aidlc.cli.app import run_safely

    unset: dict[str, str | None] = {name: None for name in os.environ if name not in env}
    code: int | str | None = 0
    argv = sys.argv
    with contextlib.chdir(cwd or Path.cwd()), CliRunner().isolation(env={**unset, **env}) as (out, err, _):
        sys.argv = ["aidlc", *args]
        try:
            run_safely(cli)
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.argv = argv
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    if not isinstance(code, int):  # sys.exit("message") prints it and exits 1, as Python does
        stderr, code = stderr + ("" if code is None else f"{code}\n"), 0 if code is None else 1
    return subprocess.CompletedProcess(["aidlc", *args], code, stdout, stderr)


# Runs each command of argv[1] (a JSON list of argument lists) through the console script's `main`, with the
# modules named in argv[2] made unimportable; prints each one's exit code, stdout and stderr as one JSON list.
_ONE_PROCESS = """
import contextlib, io, json, sys, traceback
for name in json.loads(sys.argv[2]):
    sys.modules[name] = None  # importing it raises ImportError, as where it is not installed
from aidlc.cli import main
done = []
for args in json.loads(sys.argv[1]):
    sys.argv, code, out, err = ["aidlc", *args], 0, io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
    done.append([code, out.getvalue(), err.getvalue()])
sys.__stdout__.write(json.dumps(done))
"""


def in_one_process(commands: list[list[str]], env: dict[str, str], cwd: Path | None = None,
                   blocked: tuple[str, ...] = ()) -> list[subprocess.CompletedProcess[str]]:
    """Each of `commands` as `aidlc ARGS`, one after another in one real process (environment `env`, working
    folder `cwd`) where the modules `blocked` cannot be imported: what each exited with and wrote. For tests about
    a process that many commands share (a blocked module stays blocked, a hang is bounded by the timeout): one
    Python start-up instead of one a command."""
    proc = subprocess.run([sys.executable, "-c", _ONE_PROCESS, json.dumps(commands), json.dumps(blocked)],
                          capture_output=True, text=True, encoding="utf-8", env=env, cwd=cwd, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [subprocess.CompletedProcess(["aidlc", *args], code, out, err)
            for args, (code, out, err) in zip(commands, json.loads(proc.stdout), strict=True)]


def summary_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("validation "))


def corpus_dir() -> Path:
    """A real specs.md memory bank written by another team (tests/corpus/specsmd: its README says where it comes
    from, its LICENSE the terms). Read-only: a test that changes files copies it first."""
    return Path(__file__).resolve().parent / "corpus" / "specsmd"


def console_script(name: str) -> str:
    """The path of a console script of the test extra: beside this Python first (a virtual environment used
    without activating it), then on PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which(name)
    assert found, f"{name} is a test dependency: pip install -e '.[test]'"
    return found


def on_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`python -m aidlc ARGS` with stdout and stderr on a pseudo-terminal: its exit code, and what a person at a
    terminal sees."""
    import pty

    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "aidlc", *args], stdin=subprocess.DEVNULL, stdout=follower,
                          stderr=follower, env=env) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closes when the process ends
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = process.wait()
    os.close(leader)
    return code, b"".join(chunks).decode()
