"""State rules: a status claims something; the files must back the claim."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, StoryItem
from aidlc.model.types import BoltStatus, Severity, StoryStatus, instant
from aidlc.plural import plural
from aidlc.rules.catalogue import Hit, rule, story_rule
from aidlc.rules.evidence import adopted_note, birth_of, verdict

E, W = Severity.error, Severity.warning


@story_rule("AIDLC-STATE-001", E, "state", "a story is complete but acceptance boxes are unchecked (a warning "
            "for a completion git shows from before the ledger, its file unchanged since)",
            "check each box the evidence supports (`- [x]`), or set the story back to in-progress")
def complete_story_checked(index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    if story.meta is None or story.meta.status != StoryStatus.complete or not story.parts.unchecked:
        return ()
    open_boxes = [c for c in story.criteria if c.checkbox and not c.checked]
    if not open_boxes:
        return ()
    message = (f"story {story.id} is complete but {len(open_boxes)} of "
               f"{plural(sum(c.checkbox for c in story.criteria), 'acceptance box')} "
               f"{'is' if len(open_boxes) == 1 else 'are'} unchecked")
    birth = birth_of(index)  # None without a ledger: nothing governs the bank yet, and nothing is history
    if birth is None or story.rel not in birth.existed:  # a story new since the ledger: no history to speak of
        return (Hit(story.rel, open_boxes[0].line, message),)
    held = story.rel in birth.kept or (birth.meta(story.rel) or {}).get("status") == StoryStatus.complete.value
    found = verdict(birth, story.rel, held, "complete")
    if found.adopted is not None:
        return (Hit(story.rel, open_boxes[0].line, f"{adopted_note(birth, 'completed')}: {message}",
                    "history before the ledger is not judged again; when the story changes, check each box the "
                    "evidence supports", adopted=found.adopted),)
    return (Hit(story.rel, open_boxes[0].line, f"{message} ({found.why_not})"),)


@story_rule("AIDLC-STATE-002", E, "state", "a story is complete but `implemented` is not true",
            "set `implemented: true` once the code is merged, or set the story back to in-progress")
def complete_story_implemented(_index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    if story.meta is None or story.meta.implemented is True or story.meta.status != StoryStatus.complete \
            or story.bad("implemented"):
        return ()
    return (Hit(story.rel, story.doc.line_of("implemented" if "implemented" in (story.doc.meta or {}) else "status"),
                f"story {story.id} is complete but `implemented` is "
                + ("false" if story.meta.implemented is False else "missing")),)


@rule("AIDLC-STATE-003", E, "state", "a bolt is complete but some of its stories are not",
      "finish the stories (status complete) or set the bolt back to in-progress")
def complete_bolt_stories(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        if bolt.meta is None or bolt.meta.status != BoltStatus.complete or not isinstance(bolt.meta.stories, list):
            continue
        for name, story in index.listed(bolt):
            # A story without a valid status is a schema finding, not a claim about its progress.
            if story is not None and story.meta is not None and story.meta.status is not None \
                    and story.meta.status != StoryStatus.complete:
                yield Hit(bolt.rel, bolt.doc.line_of_item("stories", name),
                          f"bolt {bolt.id} is complete but its story {story.id} is {story.meta.status}")


@rule("AIDLC-STATE-004", E, "state", "a bolt's `started` is after its `completed`",
      "correct the timestamps: a bolt completes after it starts")
def started_before_completed(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        if bolt.meta is None:
            continue
        started, completed = instant(bolt.meta.started), instant(bolt.meta.completed)
        if started and completed and started > completed:
            yield Hit(bolt.rel, bolt.doc.line_of("completed"),
                      f"bolt {bolt.id} started {started.isoformat()} after it completed {completed.isoformat()}")


@rule("AIDLC-STATE-005", E, "state", "bolts depend on each other in a cycle (`requires_bolts`)",
      "remove one `requires_bolts` link of the cycle; bolts must form an order")
def dependency_cycles(index: BankIndex) -> Iterator[Hit]:
    bolts = index.bank.bolts
    edges: dict[int, list[BoltItem]] = {}
    for bolt in bolts:
        names = bolt.meta.requires_bolts if bolt.meta and isinstance(bolt.meta.requires_bolts, list) else []
        edges[id(bolt)] = [b for name in names if (b := index.bolt(name)) is not None]
    state: dict[int, int] = {}  # 1 = on the current path, 2 = done
    for start in bolts:
        if state.get(id(start)):
            continue
        path: list[BoltItem] = [start]
        cursors = [iter(edges[id(start)])]
        state[id(start)] = 1
        while cursors:  # iterative DFS: 10,000 bolts must not hit the recursion limit
            nxt = next(cursors[-1], None)
            if nxt is None:
                state[id(path.pop())] = 2
                cursors.pop()
            elif state.get(id(nxt)) == 1:
                ring = path[path.index(nxt):]  # each requires the next, the last the first
                for at, bolt in enumerate(ring):  # on every bolt of the cycle: each can break it
                    cycle = [*ring[at:], *ring[:at], bolt]
                    yield Hit(bolt.rel, bolt.doc.line_of_item("requires_bolts", cycle[1].folder),
                              "dependency cycle: " + " -> ".join(b.id for b in cycle))
            elif not state.get(id(nxt)):
                state[id(nxt)] = 1
                path.append(nxt)
                cursors.append(iter(edges[id(nxt)]))


@rule("AIDLC-STATE-006", W, "state", "a started or complete bolt lacks its `started`/`completed` timestamp",
      "record when the bolt started (and completed), e.g. `started: 2026-11-30T08:00:00Z`")
def bolt_timestamps(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        meta = bolt.meta
        if meta is None or meta.status not in (BoltStatus.in_progress, BoltStatus.complete):
            continue
        if meta.started is None and not bolt.bad("started"):  # a malformed value is a schema finding
            yield Hit(bolt.rel, bolt.doc.line_of("status"), f"bolt {bolt.id} is {meta.status} but has no `started`")
        if meta.status == BoltStatus.complete and meta.completed is None and not bolt.bad("completed"):
            yield Hit(bolt.rel, bolt.doc.line_of("status"), f"bolt {bolt.id} is complete but has no `completed`")


@rule("AIDLC-STATE-007", W, "state", "a bolt is started or complete before a bolt it requires is complete",
      "finish the required bolt first, or remove the dependency if it is not real")
def dependencies_complete(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        meta = bolt.meta
        if meta is None or meta.status not in (BoltStatus.in_progress, BoltStatus.complete):
            continue
        for name in meta.requires_bolts if isinstance(meta.requires_bolts, list) else []:
            required = index.bolt(name)
            if required is not None and required.meta is not None and required.meta.status is not None \
                    and required.meta.status != BoltStatus.complete:
                yield Hit(bolt.rel, bolt.doc.line_of_item("requires_bolts", name),
                          f"bolt {bolt.id} is {meta.status} but the bolt it requires, "
                          f"{required.id}, is {required.meta.status}")
