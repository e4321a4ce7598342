"""What the history rules (aidlc/rules/docs_history_scan.py) keep while they walk the commits: the versions of each
audit log read so far, the commit that first added each entry's words, and the findings.

Git is read through aidlc/vcs/, a few versions' bytes at a time: an audit log's versions add up to gigabytes,
so what was read of a version (its entries) is kept and its bytes let go.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from aidlc import vcs
from aidlc.aidlc_docs.audit import audit_entries
from aidlc.aidlc_docs.markdown import marker_lines, one_line_end
from aidlc.aidlc_docs.model import AuditEntry
from aidlc.bank.frontmatter import UTF16_MARKS
from aidlc.model.findings import Finding
from aidlc.names import shorten
from aidlc.rules.catalogue import Rule


@dataclass
class Version:
    """One version of an audit log: its entries, their texts counted, and where its last entry starts (its line
    index and the offset of that line in the text), from where a version that only appends to it is read."""

    entries: list[AuditEntry]
    texts: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    resume: tuple[int, int] = (0, 0)

    @classmethod
    def of(cls, text: str, kept: Version | None = None) -> Version:
        """The version whose text is `text`; with `kept`, a version whose text `text` starts with: its entries but
        the last are kept, and the text is read from where its last entry starts."""
        line, offset = kept.resume if kept is not None and kept.entries else (0, 0)
        lines = text[offset:].split("\n")
        read = audit_entries(lines, line)
        if kept is not None and kept.entries:
            entries, texts = kept.entries[:-1] + read, kept.texts[:-1] + [entry.text for entry in read]
            counts = kept.counts.copy()
            counts[kept.texts[-1]] -= 1
            counts.update(texts[len(kept.entries) - 1:])
            counts += Counter()  # drop the zero count
        else:
            entries, texts = read, [entry.text for entry in read]
            counts = Counter(texts)
        resume = (line, offset)
        if read:  # the last entry's first line: its offset is the lengths of the lines before it, with their ends
            before = read[-1].line - 1 - line
            resume = (read[-1].line - 1, offset + sum(map(len, lines[:before])) + before)
        return cls(entries, texts, counts, resume)


@dataclass(frozen=True)
class Deletion:
    """An entry a parent held that a commit deleted; reported once the walk is done (HEAD may hold it again)."""

    revision: vcs.Revision
    path: str
    parent: str  # the sha of the parent that held it
    entry: AuditEntry
    said: str  # its words
    origin: str | None  # the sha of the commit that added it, where known


@dataclass
class Removal:
    """A log a commit deleted or emptied (AIDLC-DOCS-024): its finding's index, the commit before it, which held the
    log, the words of the entries it held, in order, and the commit that wrote the log again without them, if any."""

    finding: int
    parent: str
    held: tuple[str, ...]
    utf16: bool = False  # saved as UTF-16: its step converts the file, whatever else stands at the path
    again: vcs.Revision | None = None


@dataclass
class Judge:
    history: vcs.History
    head: dict[str, str]  # path -> blob of each file HEAD holds in the docs folder (History.files)
    findings: list[Finding] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)  # blob sha -> bytes, of the commits being judged
    missing: set[str] = field(default_factory=set)  # blobs this clone lacks (a partial clone)
    # an entry's words (whitespace and conflict-marker lines aside: words) -> the commit that added it
    origins: dict[str, vcs.Revision] = field(default_factory=dict)
    # (commit, path) -> the entries of that log whose words that commit added first
    added: dict[tuple[str, str], list[AuditEntry]] = field(default_factory=dict)
    judged: set[str] = field(default_factory=set)  # the blobs judged as a commit's version: their words are known
    # (finding's index, what it is about: an entry's words or a state line's text) of findings at an older version's
    # line, which `relocate` moves to where HEAD holds what they are about
    subjects: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    deletions: list[Deletion] = field(default_factory=list)  # reported by docs_history_log.report_deletions
    # path -> a log deleted or emptied, until the log's next version; `rewritten` holds its finding's index when that
    # version starts with all its entries again, in their order, else it is `standing`, the log written again without
    removed: dict[str, Removal] = field(default_factory=dict)
    standing: list[tuple[str, Removal]] = field(default_factory=list)
    rewritten: set[int] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)  # an edited entry's words -> its words after the edit
    _logs: dict[tuple[str, str], Version] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)  # the last few texts decoded, oldest first

    def add(self, rule: Rule, path: str, line: int | None, message: str, fix: str | None = None,
            subject: str | tuple[str, ...] | None = None) -> None:
        """A finding at `line` of `path`; with `subject` (what it is about: an entry's words, a state line's text;
        several: the first HEAD holds), `line` is of the commit's version, and `relocate` moves it to HEAD's."""
        if subject is not None:
            self.subjects.append((len(self.findings), (subject,) if isinstance(subject, str) else subject))
        self.findings.append(Finding(code=rule.code, severity=rule.severity, path=path, line=line,
                                     message=shorten(message), fix=shorten(fix or rule.fix)))

    def relocate(self, at_head: dict[str, dict[str, int]]) -> None:
        """Move each finding about a subject to its line in HEAD's version of its file (`at_head`: path -> subject
        -> line): a reader opens the file as HEAD holds it. A subject HEAD no longer holds is reported at no line,
        its message naming the line it had."""
        for index, subjects in self.subjects:
            finding = self.findings[index]
            held = at_head.get(finding.path, {})
            line = next((held[said] for subject in subjects for said in self._edits(subject) if said in held), None)
            if line is None and finding.line is not None:
                finding.message += f" (line {finding.line} of that version; HEAD no longer holds it)"
            finding.line = line

    def _edits(self, said: str) -> Iterator[str]:
        """An entry's words, then what later commits' edits made of them (`renamed`), in turn."""
        seen = {said}
        yield said
        while self.renamed.get(said, said) not in seen:
            said = self.renamed[said]
            seen.add(said)
            yield said

    def forget_rewritten(self) -> None:
        """Drop the finding of each deleted or emptied log whose next version held all its entries again."""
        self.findings = [finding for index, finding in enumerate(self.findings) if index not in self.rewritten]

    def entries_at_head(self, path: str) -> dict[str, int]:
        """The line of each entry of the audit log at `path` as HEAD holds it, by its words."""
        version = self.at_head(path)
        found: dict[str, int] = {}
        for entry in version.entries if version else []:
            found.setdefault(words(entry.text), entry.line)
        return found

    def at_head(self, path: str) -> Version | None:
        """The audit log at `path` as HEAD holds it; None where HEAD holds none."""
        return self.version(self.head.get(path), path)

    def restored(self, path: str) -> set[str]:
        """The words of the entries a log at `path` held before a commit removed it and another wrote it again without
        them: put back above the entries written since, they restore what was lost, and are inserted above none."""
        return {said for where, removal in self.standing if where == path for said in removal.held}

    def text(self, blob: str) -> str:
        # No size limit, unlike the work tree's audit log: a version left unread for its size would leave what the
        # next commit deleted from it unjudged. Reading grows in proportion (benchmarks/audit_growth.py).
        if blob not in self._texts:
            if blob not in self.contents:
                self.read({blob})  # one read more: a version read before, forgotten since
            data = self.contents.get(blob) or b""
            self._texts[blob] = one_line_end(data.decode("utf-8", "replace").removeprefix("\ufeff"))
            if len(self._texts) > 8:  # a version is read again mostly as the parent of the next commit's
                del self._texts[next(iter(self._texts))]
        return self._texts[blob]

    def appends_lines(self, parent: str | None, blob: str | None) -> bool:
        """Whether the version `blob` is its parent's with lines after it: every line the parent held kept as it was,
        its last one given the line end it lacked. Words added at the end of that line change it, unless it is the
        `---` that closes the last entry, which is no entry's line: dragon4499/teamtwo-repository's next commit
        glued its first heading onto it (`---## Us...`), every byte before kept."""
        if parent is None or blob is None:
            return False
        before, text = self.text(parent), self.text(blob)
        kept = before.removesuffix("\n")
        if not text.startswith(kept):
            return False
        return text[len(kept):len(kept) + 1] in ("", "\n") or before.rpartition("\n")[2].strip() == "---"

    def utf16(self, blob: str | None) -> bool:
        """Whether the version starts with a UTF-16 byte order mark (a log saved as Notepad's "Unicode")."""
        if blob is None:
            return False
        if blob not in self.contents:
            self.read({blob})
        return (self.contents.get(blob) or b"")[:2] in UTF16_MARKS

    def version(self, blob: str | None, path: str, parent: str | None = None) -> Version | None:
        """The version of `path` in `blob`; read from where `parent`'s (a blob already read) last entry starts when
        it only appends to `parent`, as most commits do."""
        if blob is None:
            return None
        if (blob, path) not in self._logs:
            text = self.text(blob)
            kept = self._logs.get((parent, path)) if parent is not None else None
            if kept is not None and parent is not None and not text.startswith(self.text(parent)):
                kept = None
            self._logs[(blob, path)] = Version.of(text, kept)
        return self._logs[(blob, path)]

    def parsed(self, blob: str | None, path: str) -> bool:
        return blob is None or (blob, path) in self._logs

    def read(self, blobs: set[str | None]) -> None:
        wanted = sorted(blob for blob in blobs if blob is not None and blob not in self.contents
                        and blob not in self.missing)
        for blob, data in vcs.objects(self.history.top, wanted).items():
            if data is None:
                self.missing.add(blob)
            else:
                self.contents[blob] = data

    def forget(self) -> None:
        """Let go of the bytes read: what was read of them is kept (an audit log's versions add up to gigabytes)."""
        self.contents.clear()


def versions(revision: vcs.Revision, path: str, base: str | None = None) -> tuple[str | None, ...]:
    """The blobs of `path` in the commit, in each of its parents and (given) in their merge base."""
    new, old = revision.files[path]
    return new, *old, base


def short(revision: vcs.Revision) -> str:
    subject = revision.subject
    return f"commit {revision.sha[:12]} ({subject if len(subject) <= 50 else subject[:47] + '...'})"


def described(entry: AuditEntry) -> str:
    """`heading` (timestamp), a long heading cut: a finding's message keeps its facts within its length."""
    heading = entry.heading or "an entry without a heading"
    return f"`{heading if len(heading) <= 60 else heading[:57] + '...'}` ({entry.timestamp or 'no timestamp'})"


def which(entries: list[AuditEntry]) -> str:
    """`the entry X`, or `N entries, the first X,` (a finding about every entry one commit added)."""
    if len(entries) == 1:
        return f"the entry {described(entries[0])}"
    return f"{len(entries)} entries, the first {described(entries[0])},"


def whitespace(text: str) -> str:
    return " ".join(text.split())


@functools.cache  # each entry's text is met in every later version of its log
def words(text: str) -> str:
    """What an entry says: its text without its whitespace and conflict-marker lines."""
    return whitespace(_unmarked(text))


def _unmarked(text: str) -> str:
    markers = set(marker_lines(text))
    return "\n".join(line for number, line in enumerate(text.split("\n"), start=1) if number not in markers)
