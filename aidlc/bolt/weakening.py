"""Edits that delete or weaken tests: a check that passes because its tests were removed, skipped or emptied
proves nothing, so a run that sees one pauses for a person (docs/design.md, The bolt).

`weakened_tests` compares two commits and says, one sentence per finding, naming the file and the line:
* a test file deleted, or renamed to a name test runners do not collect;
* a skip added (`@pytest.mark.skip`/`skipif`/`xfail`, `pytestmark = pytest.mark.skip`, `pytest.skip()`,
  `unittest.skip`, `skipTest`, `__unittest_skip__`, `it.skip`/`describe.skip`/`test.todo`/`test.skipIf`,
  `xit`/`xdescribe`, Mocha's `this.skip()`, `@Disabled`/`@DisabledOnOs`/`@Ignore`, PHPUnit's `markTestSkipped`,
  `t.Skip`, `#[ignore]`), or a focus (`it.only`, `fit`) that stops the other tests from running;
* tests excluded by configuration (`--deselect`, `--ignore`, `-k "not ..."`, `collect_ignore`,
  `testPathIgnorePatterns`; Maven's surefire `<exclude>` of a test, `skipTests`, `testFailureIgnore`; Gradle's test
  `exclude`, `excludeTestsMatching`, `ignoreFailures = true`);
* fewer assertions, or fewer test definitions, in a test file than before (each removed line is named); an
  assertion that cannot fail does not count as one;
* an assertion that cannot fail added to a test file, wherever it is added (a new test, or in place of a real
  assertion): a literal that is always true (`assert True`, `self.assertTrue(1)`, `expect(true).toBeTruthy()`,
  `assert!(true)`), or one expression compared with itself (`assert x == x`, `self.assertEqual(5, 5)`,
  `expect(total).toBe(total)`, `assert.strictEqual(a, a)`, `assert_eq!(v, v)`): aidlc/bolt/tautology.py;
* the `verify` commands of aidlc.yaml changed, or a file they run (`./scripts/check.sh`) changed;
* from the JUnit counts before and after: fewer tests ran, or more were skipped.

Lines are compared by their text without indentation, so a test moved or re-indented is not a removal. The
patterns are deliberately simple (a line-level look; an assertion on one line is read with Python's parser, which
also reads the JavaScript, Java, Go and Rust assertions above): a finding is a question for a person, never a
verdict.
"""

from __future__ import annotations

import difflib
import functools
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank import frontmatter
from aidlc.bank.config import key_line
from aidlc.bank.walk import CONFIG_FILE
from aidlc.bolt import check_runs, check_settings, settings_bases
from aidlc.bolt.check_runs import named_by_verify
from aidlc.bolt.tautology import is_tautology
from aidlc.model.checks import TestCounts

MAX_FLAGS_PER_KIND = 10  # per file: beyond this, one sentence counts the rest

_TEST_FOLDERS = {"test", "tests", "__tests__", "spec", "specs", "testing"}
_TEST_NAMES = re.compile(
    r"^(?:test_.*\.py|.*_test\.py|conftest\.py|.*\.(?:test|spec)\.[cm]?[jt]sx?|.*_test\.go"
    r"|.*(?:Test|Tests|IT)\.(?:java|kt|scala|cs)|.*_(?:spec|test)\.rb|test_.*\.rb|.*_test\.rs|.*Tests?\.swift)$")
_CODE = re.compile(r"\.(?:py|[cm]?[jt]sx?|go|java|kt|scala|cs|rb|rs|swift|php)$")
_TEST_CONFIGS = re.compile(r"^(?:pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|package\.json|\.mocharc\..*"
                           r"|(?:jest|vitest|karma)\.conf(?:ig)?\.[cm]?[jt]s(?:on)?|pom\.xml|build\.gradle(?:\.kts)?)$")

_SKIPS = [(re.compile(pattern), what) for pattern, what in [
    # a decorator, or `pytestmark = pytest.mark.skip` (the whole module), or a parametrize case's `marks=`
    (r"\bpytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail|importorskip)\s*\(", "a test is skipped"),
    (r"@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b"
     r"|\b__unittest_skip__\s*=\s*True", "a test is skipped"),
    (r"\b(?:it|test|describe|context|suite|specify)\.(?:skip|todo|skipIf)\s*\(|(?<![\w.$])x(?:it|test|describe|context)\s*\("
     r"|\bthis\.skip\s*\(|->markTest(?:Skipped|Incomplete)\s*\(", "a test is skipped"),
    (r"\b(?:it|test|describe|context|suite)\.only\s*\(|(?<![\w.$])f(?:it|describe)\s*\(",
     "a test is focused, so the others stop running"),
    (r"@(?:Disabled\w*|Ignore)\b|\[Ignore\b|\bSkip\s*=\s*\"", "a test is disabled"),
    (r"\b[tb]\.(?:Skip|SkipNow|Skipf)\s*\(", "a test is skipped"),
    (r"#\[ignore\b", "a test is ignored"),
    (r"^\s*(?:skip|pending)(?:\s*\(|\s+[\"']|\s*$)", "a test is skipped"),
]]
_EXCLUSIONS = [(re.compile(pattern), what) for pattern, what in [
    (r"--deselect\b|--ignore(?:-glob)?\b|\bcollect_ignore(?:_glob)?\b|testPathIgnorePatterns|\bmodulePathIgnorePatterns\b"
     r"|(?:^|[\s\"'])-k\s*[\"']?not\b"  # pytest's `-k "not test_total"`
     # Maven's surefire `<exclude>**/PaymentTest.java</exclude>`, Gradle's `exclude '**/PaymentTest*'`
     r"|<exclude>[^<]*Test|\bexcludeTestsMatching\b|\bexclude\s*\(?\s*['\"][^'\"]*Test",
     "tests are excluded from the run"),
    (r"<skipTests>\s*true|\bmaven\.test\.skip\b|\bskipTests\s*=\s*true", "the tests are skipped"),
    (r"<testFailureIgnore>\s*true|\bignoreFailures\s*=\s*true|\bmaven\.test\.failure\.ignore\b",
     "a failing test no longer fails the run"),
]]
_ASSERTION = re.compile(
    r"^\s*(?:assert\b|assert_\w*!|(?:self\.)?assert\w*\s*\(|(?:await\s+)?expect\s*\(|assert\.\w+\s*\(|"
    r"(?:Assert|Assertions)\.\w+\s*\(|t\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\b|require\.\w+\s*\(|"
    r"(?:async\s+)?with\s+(?:pytest\.raises|self\.assert\w+)\b|\w+\.should\b)")
_DEFINITION = re.compile(r"^\s*(?:(?:async\s+)?def\s+test\w*\s*\(|x?(?:it|test|specify)(?:\.\w+)?\s*\("
                         r"|func\s+Test\w*\s*\(|@(?:Test|ParameterizedTest)\b|#\[test\]|\[(?:Fact|Test|Theory)\b)")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")


def is_test_name(name: str) -> bool:
    """Whether a file name is one test runners collect as tests (`test_calc.py`, `cart.spec.ts`, `CartTest.java`)."""
    return bool(_TEST_NAMES.match(name))


def is_test_file(rel: str) -> bool:
    """Whether `rel` (POSIX, relative to the repository) is a test: a test runner's file name, or a code file
    under a test folder."""
    folder, name = posixpath.split(rel)
    if is_test_name(name):
        return True
    return bool(_CODE.search(name)) and any(part in _TEST_FOLDERS for part in folder.split("/"))


def weakened_tests(repo_root: Path, base: str, head: str, before: TestCounts | None,
                   after: TestCounts | None, baseline: str = "before the edit",
                   verify: list[dict[str, Any]] | None = None) -> list[str]:
    """The findings between commits `base` and `head` of the repository at `repo_root` (see the module);
    `baseline` says where the counts `before` come from. `verify`: aidlc.yaml's verify commands when the caller
    holds them as of `base` (the run's configuration): unless the edit changed aidlc.yaml or a test file,
    nothing then needs reading from history."""

    changes = vcs.changed_files_between(repo_root, base, head)
    flags, pairs = _test_changes(changes)
    changed = {change.path for change in changes} | {change.old_path for change in changes if change.old_path}
    candidates = _settings_paths(verify, changed - {CONFIG_FILE})
    if verify is not None and not pairs and CONFIG_FILE not in changed and not candidates:
        return flags + _named_by_held(repo_root, head, verify, changed) + _count_changes(before, after, baseline)
    history = vcs.history(repo_root)
    if history is None:
        return flags
    followed = check_runs.files_read(verify or [])  # package.json, a Makefile: what they call
    new = history.reader(head, [n for _, n in pairs] + candidates + [CONFIG_FILE] + followed)
    files = functools.cache(lambda: vcs.files_at(repo_root, head))  # listed when a check runs every workspace
    tools = settings_bases.extended_at(repo_root, head, _tools(verify, new, files, changed), candidates, files)
    old = history.read(base, [o for o, _ in pairs if o] + candidates + [CONFIG_FILE])
    for old_path, new_path in pairs:
        flags += _compare(new_path, _text(old.get(old_path) if old_path else b""), _text(new(new_path)), base)
    flags += _verify_changes(CONFIG_FILE, old.get(CONFIG_FILE), new, changed)
    return flags + _settings_changes(candidates, old, new, tools) + _count_changes(before, after, baseline)


def _tools(verify: list[dict[str, Any]] | None, new: Callable[[str], bytes | None], files: Callable[[], list[str]],
           changed: set[str]) -> dict[check_settings.Tool, list[str]]:
    """The tools the verify commands run: the caller's commands, or the head's aidlc.yaml's (`new`: a file at the
    head; `files`: the project's files there; `changed`: the edit's, whose workspaces are read first)."""
    return check_runs.tools_of(verify if verify is not None else _listed(verify_of(new(CONFIG_FILE))), new, files,
                               changed)


def _named_by_held(repo_root: Path, head: str, verify: list[dict[str, Any]], changed: set[str]) -> list[str]:
    """The changed files the caller's verify commands name or run; a recipe file or script they run (a Makefile) may
    include or run others, read at the head."""
    history = vcs.history(repo_root) if check_runs.files_read(verify) else None
    return _named_by_verify(verify, changed - {CONFIG_FILE}, history.reader(head) if history is not None else None)


def _settings_paths(verify: list[dict[str, Any]] | None, changed: set[str]) -> list[str]:
    """The changed files that may hold settings of a tool the verify commands run (of any tool aidlc knows, when the
    caller does not hold the commands, the head's aidlc.yaml naming them, or when they run package.json scripts, the
    head's package.json naming what those call), by their names or as a file their settings may extend."""
    follows = verify is None or check_runs.files_read(verify)
    tools = [*check_settings.TOOLS.values(), check_settings.PRE_COMMIT] if follows else \
        list(check_runs.tools_of(verify or []))
    return sorted(path for path in changed
                  if check_settings.may_hold_settings(path, tools) or settings_bases.may_be_base(path))


def _settings_changes(paths: list[str], old: dict[str, bytes | None], new: Callable[[str], bytes | None],
                      runs: dict[check_settings.Tool, list[str]]) -> list[str]:
    """The settings of the tools the verify commands run (`runs`) that the edit changed in `paths` (in those that
    hold some: a file their settings extend is one only as `runs` says)."""
    flags = []
    for path in paths:
        by_tool = {tool: parts for tool in runs
                   if (parts := check_settings.changed_parts(path, old.get(path), new(path), [tool]))}
        flags += [f"{check_settings.said(path, by_tool, runs)}; the edit changed them"] if by_tool else []
    return flags


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _test_changes(changes: list[vcs.FileChange]) -> tuple[list[str], list[tuple[str | None, str]]]:
    """The test files the edit deleted or renamed out of the runners' sight (findings), and the pairs (path at
    base, path at head) of the test and test-configuration files to compare."""
    flags: list[str] = []
    pairs: list[tuple[str | None, str]] = []
    for change in changes:
        if change.status == "D" and is_test_file(change.path):
            flags.append(f"{change.path}: test file deleted")
        elif change.status == "R" and change.old_path and is_test_file(change.old_path) \
                and not is_test_file(change.path):
            flags.append(f"{change.old_path}: test file renamed to {change.path}, a name test runners do not collect")
        elif change.status != "D" and (is_test_file(change.path) or _is_test_config(change.path)):
            pairs.append((change.old_path or (None if change.status == "A" else change.path), change.path))
    return flags, pairs


def _is_test_config(rel: str) -> bool:
    return bool(_TEST_CONFIGS.match(posixpath.basename(rel)))


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data is not None else ""


def _snippet(line: str) -> str:
    text = _CONTROLS.sub("", line.strip())
    return f"`{text[:100]}{'...' if len(text) > 100 else ''}`"


def _compare(path: str, old: str, new: str, base: str) -> list[str]:
    old_lines, new_lines = old.splitlines(), new.splitlines()
    gone, came = _moved_out(old_lines, new_lines)
    test_code = is_test_file(path)
    flags = _added(path, came, test_code)
    if test_code:
        short = base[:12]
        for pattern, kind in ((_ASSERTION, "assertion"), (_DEFINITION, "test")):
            if _matching(new_lines, pattern) < _matching(old_lines, pattern):
                flags += _limited(path, f"{kind} lines removed", [
                    f"{path}: {kind} removed (line {n} at {short}): {_snippet(text)}"
                    for n, text in gone if pattern.search(text)])
    return flags


def _moved_out(old_lines: list[str], new_lines: list[str]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The lines removed (numbered at base) and added (numbered at head). A line that left one place and came back
    in another (moved, re-indented) is neither removed nor added."""
    removed: list[tuple[int, str]] = []
    added: list[tuple[int, str]] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += [(n + 1, old_lines[n]) for n in range(i1, i2)]
        if tag in ("replace", "insert"):
            added += [(n + 1, new_lines[n]) for n in range(j1, j2)]
    removed_texts = Counter(text.strip() for _, text in removed)
    added_texts = Counter(text.strip() for _, text in added)
    gone = [(n, text) for n, text in removed if added_texts[text.strip()] < removed_texts[text.strip()]]
    came = [(n, text) for n, text in added if removed_texts[text.strip()] < added_texts[text.strip()]]
    return gone, came


def _added(path: str, came: list[tuple[int, str]], test_code: bool) -> list[str]:
    """The findings in the lines the edit added: skips and exclusions, and in test code assertions that cannot
    fail."""
    flags: list[str] = []
    for n, text in came:
        if test_code:
            what = next((what for pattern, what in _SKIPS if pattern.search(text)), None)
            if what:
                flags.append(f"{path}:{n}: {what}: {_snippet(text)}")
                continue
        what = next((what for pattern, what in _EXCLUSIONS if pattern.search(text)), None)
        flags += [f"{path}:{n}: {what}: {_snippet(text)}"] if what else []
    if test_code:
        flags += _limited(path, "assertions that cannot fail added", [
            f"{path}:{n}: an assertion that cannot fail: {_snippet(text)}"
            for n, text in came if _is_assertion(text, tautologies=True)])
    return flags


def _matching(lines: Iterable[str], pattern: re.Pattern[str]) -> int:
    if pattern is _ASSERTION:  # an assertion that cannot fail is not one
        return sum(1 for line in lines if _is_assertion(line))
    return sum(1 for line in lines if pattern.search(line))


def _is_assertion(line: str, tautologies: bool = False) -> bool:
    """With `tautologies`, whether the line is an assertion that cannot fail; else whether it is one that can."""
    return bool(_ASSERTION.search(line)) and is_tautology(line) == tautologies


def _limited(path: str, lines: str, flags: list[str]) -> list[str]:
    if len(flags) <= MAX_FLAGS_PER_KIND:
        return flags
    rest = len(flags) - MAX_FLAGS_PER_KIND
    return [*flags[:MAX_FLAGS_PER_KIND], f"{path}: {rest} more {lines}"]


def _verify_changes(config: str, old: bytes | None, read: Callable[[str], bytes | None], changed: set[str]
                    ) -> list[str]:
    """aidlc.yaml's verify commands, and the files they name or run, changed by the edit (`read`: a file as the
    edit leaves it)."""
    new = read(config)
    old_verify, new_verify = verify_of(old), verify_of(new)
    flags = []
    if config in changed and old_verify != new_verify:

        where = f"{config}:{key_line(_text(new), ['verify'])}" if new is not None else config
        flags.append(f"{where}: the verify commands changed, and they decide whether the edit passes")
    return flags + _named_by_verify(_listed(new_verify), changed - {config}, read)


def _named_by_verify(verify: list[Any], changed: set[str], read: Callable[[str], bytes | None] | None) -> list[str]:
    return [f"{path}: changed, and the verify command '{name}' names it"
            for path, name in named_by_verify(verify, changed, read)]


def verify_of(data: bytes | None) -> Any:
    """The `verify` value of an aidlc.yaml (what a check runs), or the text itself when it does not parse."""

    if data is None:
        return None
    text = _text(data)
    mapping, problem = frontmatter.parse_mapping(text)
    if problem is not None or mapping is None:
        return text
    return mapping.get("verify")


def _count_changes(before: TestCounts | None, after: TestCounts | None, baseline: str) -> list[str]:
    if before is None or after is None:
        return []
    flags = []
    if after.total < before.total:
        flags.append(f"fewer tests ran: the test report counts {after.total}, {before.total} {baseline}")
    if after.skipped > before.skipped:
        flags.append(f"more tests were skipped: the test report counts {after.skipped}, "
                     f"{before.skipped} {baseline}")
    return flags
