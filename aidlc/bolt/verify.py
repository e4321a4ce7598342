"""The run's checks (docs/design.md, The bolt: Checks are aidlc's, not the model's): the verify commands run
once per commit, their results recorded in the ledger, the edits judged for weakened tests against a baseline
count, and a failure known again by its signature."""

from __future__ import annotations

import os
import re
import time

from aidlc.bolt.checks import check_event, run_checks_watched
from aidlc.bolt.plan import digest
from aidlc.bolt.session import Failed, RunSession
from aidlc.bolt.weakening import weakened_tests
from aidlc.model.checks import CheckResult, TestCounts, VerifyRound
from aidlc.model.events import Event, EventType, Subject
from aidlc.processes import RUN_VARIABLE


def results_of(run: RunSession, stage: str) -> list[CheckResult]:
    """The check results of the run's last commit: run now, or as recorded before a pause or a crash (not run
    again); recorded in the ledger once either way."""
    state = run.state
    if state.checks and state.checks[-1].commit == state.last_commit:
        results = state.checks[-1].results
    else:
        run.store.starting("check", f"{stage}: {', '.join(v.name for v in run.config.verify)}")
        began = time.monotonic()
        results, moved = run_checks_watched(run.repo, run.config.verify, env=check_env(run),
                                            on_start=lambda group: check_started(run, group))
        if moved:  # the edits' own code rewrote the history the run commits onto and is judged by
            raise Failed(f"the checks of {stage} changed {', '.join(moved)}: code a check runs rewrote the "
                         "repository's history (`git reflog` shows where HEAD was)")
        state.checks.append(VerifyRound(stage=stage, commit=state.last_commit, results=results))
        state.check_group = None
        run.save()
        for result in results:
            run.span("check", result.name, status="passed" if result.passed else "failed",
                     duration_s=result.duration_s, data={"exit_code": result.exit_code})
        run.span("tool_call", "verify", duration_s=round(time.monotonic() - began, 4))
    record_checks(run, stage, results)
    return results


def weakening(run: RunSession, results: list[CheckResult]) -> list[str]:
    """What in the edits since the base commit may weaken the tests, that the run has not accepted yet."""
    state = run.state
    before, baseline = test_baseline(run, results)
    # The run's aidlc.yaml is the base commit's (the tree was clean; a change to it shows in the diff).
    verify = [v.model_dump() for v in run.config.verify]
    flags = weakened_tests(run.repo, state.base_commit, state.last_commit, before, counts(results), baseline, verify)
    accepted = accepted_risks(run)
    return [f for f in flags if f not in accepted]


def accepted_risks(run: RunSession) -> list[str]:
    """The risks a person accepted in this run: those a run.paused event asked about, with the run.resumed after
    that pause. Never state.json's own list, which code a check ran may have written."""
    accepted: list[str] = []
    for pause in range(1, run.recorded("paused") + 1):
        paused = run.ledger.find_key(f"run:{run.state.run_id}:paused:{pause}")
        resumed = run.ledger.find_key(f"run:{run.state.run_id}:resumed:{pause}")
        risks = paused.datum("risks") if paused is not None else None
        if resumed is not None and resumed.datum("after") == "risk" and isinstance(risks, list):
            accepted += [str(risk) for risk in risks]
    return accepted


def check_env(run: RunSession) -> dict[str, str]:
    """What the checks' environment is chosen from: this process's, and the run's id, by which a leftover check is
    known and a gate decision from below a check refused."""
    return {**os.environ, RUN_VARIABLE: run.state.run_id}


def check_started(run: RunSession, group: int) -> None:
    """Saved before aidlc waits on the check: if aidlc is killed, resume or abort ends the group."""
    run.state.check_group = group
    run.save()


def record_checks(run: RunSession, stage: str, results: list[CheckResult]) -> None:
    state = run.state
    for position, result in enumerate(results):
        fields = check_event(result, state.last_commit, state.run_id,
                             Subject(kind="bolt", id=state.bolt))
        fields.pop("type", None)
        fields.pop("key", None)
        fields.setdefault("subject", Subject(kind="bolt", id=state.bolt))
        fields.setdefault("run", state.run_id)
        run.ledger.append(EventType.check_recorded, run.actor(), key=f"run:{state.run_id}:check:{stage}:{position}",
                          **fields)


def test_baseline(run: RunSession, results: list[CheckResult]) -> tuple[TestCounts | None, str]:
    """The test counts "fewer tests than before" compares with, and where they come from: the latest
    check.recorded of the same check at the run's base commit in the ledger (a person's CI, an earlier run), else
    the run's first check round."""
    state = run.state
    name = next((r.name for r in results if r.tests), None)
    if name is None:
        return None, ""
    recorded = _recorded_at_base(run, name)
    if recorded is not None:
        counts, where = TestCounts.model_validate(recorded.datum("tests")), \
            f"at the base commit {state.base_commit[:12]} (check.recorded by {recorded.actor.name})"
    else:
        first = [r.tests for r in state.checks[0].results if r.name == name and r.tests]
        if len(state.checks) < 2 or not first:
            return None, ""
        counts, where = first[0], "in the run's first check round"
    run.span("decision", "test count baseline",
             data={"reason": f"{name}: {counts.total} tests, {counts.skipped} skipped {where}"})
    return counts, where


def _recorded_at_base(run: RunSession, name: str) -> Event | None:
    """The latest check.recorded of check `name`, with test counts, at the run's base commit."""
    recorded = None
    for _, event in run.workspace.view.now().events:  # parsed again only if the ledger changed since
        if event.type == EventType.check_recorded and event.commit == run.state.base_commit \
                and event.datum("name") == name and event.datum("tests"):
            recorded = event
    return recorded


def counts(results: list[CheckResult]) -> TestCounts | None:
    return next((result.tests for result in results if result.tests), None)


# What differs between two runs of the same failure: durations, object addresses.
_NOISE = re.compile(r"\b\d+(\.\d+)?\s*(s|ms|sec|secs|seconds)\b|0x[0-9a-f]+")


def signature(result: CheckResult) -> str:
    """A failure without its timings: the same failure twice has the same signature."""
    return digest(_NOISE.sub("#", f"{result.name}|{result.exit_code}|{result.excerpt()}"))
