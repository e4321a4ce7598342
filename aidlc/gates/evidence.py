"""The sections of the evidence report of a bolt, each built from its facts (`facts`): traceability, the changed
files against the plan (`planned`), what changed the verify commands, commits, rollback, the timeline, the
decision it asks for and risks. The checks are `recorded_checks`, the verification `verification`, the runs and
their cost `runs`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from aidlc import vcs
from aidlc.bank.items import StoryItem
from aidlc.bank.walk import CONFIG_FILE
from aidlc.bolt import check_runs, check_settings, settings_bases, suppressions
from aidlc.bolt.check_runs import named_by_verify
from aidlc.bolt.weakening import verify_of
from aidlc.gates.facts import Facts, one_line, settings_changed_by_bolt
from aidlc.gates.planned import Planned, plan_risks
from aidlc.model import evidence as ev
from aidlc.model.events import Decision, EventType
from aidlc.model.types import Risk
from aidlc.names import gate_command


def traceability(facts: Facts, checks: list[ev.Check]) -> ev.Traceability:
    index = facts.index
    meta = facts.bolt.meta
    intent = index.intent(meta.intent) if meta else None
    stories = index.stories_of(facts.bolt)
    wanted = {link for story in stories for link in story.requirement_links}
    requirements = [ev.RequirementTrace(id=r.id, title=r.block.title) for r in (intent.requirements if intent else [])
                    if r.id in wanted or any(link.startswith(r.id + ".") for link in wanted)]
    return ev.Traceability(
        intent=intent.id if intent else (meta.intent if meta else None),
        requirements=requirements,
        stories=[ev.StoryTrace(id=s.id, path=s.rel, requirements=list(s.requirement_links),
                               criteria=[ev.Criterion(text=c.text, checked=c.checked) for c in s.criteria])
                 for s in stories],
        bolt=facts.bolt.id, commits=[c.sha[:12] for c in facts.commits], checks=[c.name for c in checks])


def changes(facts: Facts, planned: dict[str, Planned] | None) -> list[ev.FileChangeLine]:
    """Each changed file with the plan's reason and the stories it serves: those the plan names for it, else
    (a file the plan names no story for, or does not name) all of the bolt's."""
    lines = []
    for c in facts.line_counts:
        entry = planned.get(c.path) if planned else None
        named = entry.stories if entry else ()
        stories = named_stories(facts, c.path, named) if named else facts.index.stories_of(facts.bolt)
        lines.append(ev.FileChangeLine(
            path=c.path, status=c.status, added=c.added, removed=c.removed,
            reason=one_line(entry.reason) if entry else None, stories=[s.id for s in stories],
            stories_from="plan" if named else "bolt",
            requirements=list(dict.fromkeys(link for s in stories for link in s.requirement_links))))
    return lines


def named_stories(facts: Facts, path: str, refs: tuple[str, ...]) -> list[StoryItem]:
    """The bolt's stories `refs` name, once each; a name that is not one of them (the bank changed after the plan
    was checked, or a person wrote it) is noted, not guessed at."""
    found: dict[str, StoryItem] = {}
    for ref in refs:
        story = facts.index.story_of(facts.bolt, ref)
        if story is None:
            facts.notes.append(f"the plan names story {one_line(ref)!r} for {path}, which is not one of bolt "
                               f"{facts.bolt.id}'s stories")
        else:
            found.setdefault(story.id, story)
    return list(found.values())


def deviations(changed: list[ev.FileChangeLine], planned: dict[str, Planned] | None) -> list[ev.Deviation]:
    if planned is None:
        return [ev.Deviation(path=c.path, kind="unplanned") for c in changed]
    paths = {c.path for c in changed}
    return [*(ev.Deviation(path=c.path, kind="unplanned") for c in changed if c.path not in planned),
            *(ev.Deviation(path=p, kind="untouched") for p in sorted(planned) if p not in paths)]


def verify_changes(facts: Facts) -> list[ev.Deviation]:
    """What decides whether the bolt passes, changed by the bolt's own commits: aidlc.yaml's `verify` commands
    (when one of its commits changed them and the head's differ from the base's), and each file a verify command
    of the base or the head names (`./scripts/check.sh`) that one of its commits changed and that differs at the
    head. A
    person's commit (without the trailer) changing them is the person's decision, not the bolt's."""

    history = vcs.history(facts.repo)
    if history is None:
        return []

    def verify_at(commit: str) -> Any:
        return verify_of(history.read(commit, [CONFIG_FILE])[CONFIG_FILE])

    before, after = verify_at(facts.base), verify_at(facts.head)
    found = []
    if before != after:
        changing = [c.sha[:12] for c in facts.commits if CONFIG_FILE in c.paths
                    and verify_at(c.parents[0] if c.parents else vcs.EMPTY_TREE) != verify_at(c.sha)]
        if changing:
            found.append(ev.Deviation(path=CONFIG_FILE, kind="verify-changed", detail=one_line(
                f"the bolt's own commit(s) {', '.join(changing)} changed the verify commands: "
                f"{_verify_difference(before, after)}")))
    touched = {p for c in facts.commits for p in c.paths} & {c.path for c in facts.line_counts}
    named = [c for value in (before, after) if isinstance(value, list) for c in value]
    read = history.reader(facts.head)  # a recipe file a verify command runs may include others
    for path, name in dict(named_by_verify(named, touched - {CONFIG_FILE}, read, _files(facts))).items():
        changing = [c.sha[:12] for c in facts.commits if path in c.paths]
        found.append(ev.Deviation(path=path, kind="verify-changed", detail=one_line(
            f"the bolt's own commit(s) {', '.join(changing)} changed it, and the verify command '{name}' runs it")))
    return found + _settings_changes(facts, named, sorted(touched - {CONFIG_FILE, *(d.path for d in found)}))


def silenced(facts: Facts) -> list[ev.Deviation]:
    """The lines added since the bolt's base, in the files its own commits changed, that silence a check (a
    `type: ignore` comment, an `eslint-disable`: aidlc/bolt/suppressions.py), one deviation a file, its backticks
    shown as quotes (the report puts paths in backticks)."""
    own = {path for c in facts.commits for path in c.paths}
    paths = sorted(c.path for c in facts.line_counts if not facts.commits or c.path in own)
    found = suppressions.added(vcs.diff_text(facts.repo, facts.base, facts.head, paths))
    deviations = []
    for path, lines in sorted(found.items()):
        shown = [f"line {number}: " + text.replace("`", "'") for number, text in lines[:3]]
        more = [f"{len(lines) - 3} more"] if len(lines) > 3 else []
        deviations.append(ev.Deviation(path=path, kind="check-silenced", detail=one_line("; ".join(shown + more))))
    return deviations


def _settings_changes(facts: Facts, verify: list[Any], touched: list[str]) -> list[ev.Deviation]:
    """The settings a verify command's tool reads (pyproject.toml's [tool.mypy], a jest.config.js) that the bolt's
    own commits changed: `ignore_errors = true` passes the command unchanged (aidlc/bolt/check_settings.py). A file
    what runs is read from that does not parse is named in the report's notes."""
    followed = check_runs.files_read(verify)  # package.json, a Makefile: what they call, as the head has it
    history = vcs.history(facts.repo) if followed else None
    read = functools.cache(history.reader(facts.head, followed)) if history is not None else None
    files = _files(facts)
    runs = check_runs.tools_of(verify, read, files, touched)
    runs = settings_bases.extended_at(facts.repo, facts.head, runs, touched, files)  # `extend = "config/ruff.toml"`
    candidates = [path for path in touched if check_settings.may_hold_settings(path, list(runs))]
    for path, names, why in check_runs.unread(verify, read, files, touched) if read is not None else []:
        checks = ", ".join(f"'{name}'" for name in names)
        facts.notes.append(f"{path} does not parse ({one_line(why)}): what the verify command(s) {checks} run "
                           "through it is not followed, and a change to the settings of a tool it runs would not be "
                           "seen here: mend the file, or name those tools in aidlc.yaml's verify commands, and run "
                           "`aidlc walkthrough` again")
    found = []
    for path, by_tool in settings_changed_by_bolt(facts, candidates, list(runs)).items():
        changing = [c.sha[:12] for c in facts.commits if path in c.paths]
        found.append(ev.Deviation(path=path, kind="verify-changed", detail=one_line(
            f"the bolt's own commit(s) {', '.join(changing)} changed {check_settings.said('it', by_tool, runs)}")))
    return found


def _files(facts: Facts) -> Callable[[], list[str]]:
    """The project's files at the bolt's head, listed when first asked (the workspaces `pnpm -r lint` runs in)."""
    return functools.cache(lambda: vcs.files_at(facts.repo, facts.head))


def _verify_difference(before: Any, after: Any) -> str:
    """Which checks were added, removed or given another command, each with its command (cut to 80 characters)."""
    def runs(value: Any) -> dict[str, str] | None:
        if not isinstance(value, list):
            return None
        return {str(c.get("name")): str(c.get("run"))[:80] for c in value if isinstance(c, dict)}

    old, new = runs(before), runs(after)
    if old is None or new is None:
        return "the list of checks is missing or does not parse on one side"
    said = [f"'{name}' runs `{new[name]}` (was `{old[name]}`)" for name in new
            if name in old and new[name] != old[name]]
    said += [f"'{name}' removed (was `{old[name]}`)" for name in old if name not in new]
    said += [f"'{name}' added (`{new[name]}`)" for name in new if name not in old]
    return "; ".join(said) or "their other settings (a timeout, a JUnit report)"


def commits(found: list[vcs.Commit]) -> list[ev.Commit]:
    return [ev.Commit(sha=c.sha, short=c.sha[:12], subject=c.subject, author=c.author, email=c.email, date=c.date,
                      trailers=c.trailers) for c in found]


def rollback(facts: Facts) -> list[str]:
    return [f"git revert --no-edit {c.sha[:12]}    # {c.subject[:60]}" for c in reversed(facts.commits)]


def timeline(facts: Facts) -> list[ev.TimelineEntry]:
    """The bolt's ledger events but its checks (their own section) and the approvals of its walkthrough: those
    judge this report, and it must not change under them (writing it again would make them stale)."""
    shown = []
    for event in facts.events:
        if event.type == EventType.check_recorded or \
                (event.stage == "walkthrough" and event.decision == Decision.approve):
            continue
        detail = event.reason or event.datum("status") or event.datum("stage") or None
        shown.append(ev.TimelineEntry(seq=event.seq, ts=event.ts, type=str(event.type),
                                      actor=one_line(f"{event.actor.name} ({event.actor.kind})"), stage=event.stage,
                                      decision=str(event.decision) if event.decision else None,
                                      detail=one_line(str(detail)) if detail else None))
    return shown


def decision(facts: Facts, risk: Risk | None) -> ev.Decision:
    needed = 2 if risk in (Risk.high, Risk.critical) else 1
    who = "a person (not an agent, CI or a bot)" if needed == 1 else \
        "two distinct people (not agents, CI or bots), one after the other"
    return ev.Decision(gate="walkthrough", who=who, approvals_needed=needed,
                       command=gate_command(facts.bolt.id, 'walkthrough', options="--reason '...'"))


def flagged_risks(facts: Facts) -> list[str]:
    """The plan's risks, then those each run flagged: first as the ledger holds them (the risks a run paused for, in
    its run.paused event, accepted by the resume after it), then any more its state.json names, as not accepted.
    Code a check ran can rewrite state.json, never take a risk out of the ledger nor accept one."""
    found = plan_risks(facts).named
    known: set[str] = set()
    for number, event in enumerate(facts.events):
        risks = event.datum("risks") if event.type == EventType.run_paused else None
        if not isinstance(risks, list):
            continue
        # The resume of that very pause (`run:<id>:resumed:<n>` after `paused:<n>`), as aidlc.bolt.verify pairs them.
        resumed = (event.key or "").replace(":paused:", ":resumed:")
        accepted = any(later.key == resumed and later.datum("after") == "risk" for later in facts.events[number + 1:])
        for risk in (str(r) for r in risks):
            known.add(risk)
            found.append(f"accepted by a person when the run paused: {risk}" if accepted else risk)
    for run in facts.runs:  # what only state.json names is listed, never as a person's acceptance
        found += [r for r in [*run.risks, *run.accepted_risks] if r not in known]
    return list(dict.fromkeys(one_line(risk) for risk in found))
