"""Comments that silence a check for a line or a file: `# noqa`, a `type: ignore` comment, `# pragma: no cover`,
`// eslint-disable-next-line`, `@ts-ignore`, `//nolint`, `#[allow(...)]`, `@SuppressWarnings`, `# nosec`,
`// NOSONAR`, `@phpstan-ignore`, `# fmt: off`, and the like of each tool a check may run. A bolt that adds
one passes a check that judged that line, as a test it skips passes the runner: the evidence report lists each,
for the person who reads it to weigh (many are harmless: an untyped library, a long URL)."""

from __future__ import annotations

import re

MARKERS = re.compile(
    r"#\s*noqa\b|#\s*type:\s*ignore\b|#\s*pyright:\s*ignore\b|#\s*pylint:\s*disable|#\s*pragma:\s*no\s*cover"
    r"|#\s*(?:mypy|ruff|flake8):\s*(?:ignore-errors|noqa)|eslint-disable|@ts-(?:ignore|nocheck|expect-error)"
    r"|\b(?:istanbul|c8|v8)\s+ignore\b|biome-ignore|//\s*nolint\b|#!?\[allow\(|@SuppressWarnings\b"
    r"|#pragma\s+warning\s+disable|rubocop:disable|shellcheck\s+disable"
    # the other tools a check may run: bandit, staticcheck, yamllint, markdownlint, PHP_CodeSniffer, PHPStan,
    # Psalm, SonarQube, stylelint, prettier, black, isort, hadolint, deno, Rust's expectations, SwiftLint, .NET,
    # Kotlin, IntelliJ
    r"|#\s*nosec\b|//\s*lint:(?:file-)?ignore\b|yamllint\s+disable|markdownlint-disable|phpcs:(?:ignore|disable)"
    r"|@phpstan-ignore|@psalm-suppress|\bNOSONAR\b|stylelint-disable|prettier-ignore|#\s*fmt:\s*(?:off|skip)\b"
    r"|#\s*isort:\s*skip\b|hadolint\s+ignore|deno-lint-ignore|#!?\[expect\(|swiftlint:disable|\[SuppressMessage\("
    r"|@Suppress\(|\bnoinspection\b", re.IGNORECASE)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_SHOWN = 80  # characters of a line shown


def added(diff: str) -> dict[str, list[tuple[int, str]]]:
    """path -> (line number at the head, the line, cut to _SHOWN characters) of each line a unified `diff` (git's,
    `b/` paths) adds that silences a check."""
    found: dict[str, list[tuple[int, str]]] = {}
    path, number = "", 0
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = _unquoted(line[4:]).removeprefix("b/") if line[4:] != "/dev/null" else ""
        elif (hunk := _HUNK.match(line)) is not None:
            number = int(hunk.group(1))
        elif line.startswith("+"):
            if path and MARKERS.search(line):
                text = line[1:].strip()
                found.setdefault(path, []).append((number, text[:_SHOWN] + ("..." if len(text) > _SHOWN else "")))
            number += 1
        elif line.startswith(" "):
            number += 1
    return found


def _unquoted(name: str) -> str:
    """A path as git's diff header writes it: in C quotes with octal bytes where it holds a byte outside printable
    ASCII (core.quotePath), else as is."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    raw = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), name[1:-1])
    raw = raw.replace('\\"', '"').replace("\\t", "\t").replace("\\n", "\n").replace("\\\\", "\\")
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")
