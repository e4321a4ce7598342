"""Which paths the work tree's ignore rules (.gitignore files, info/exclude, core.excludesFile) ignore, tracked or not,
each with the rule that does (`git check-ignore --no-index`): a log the rules would keep out of every commit."""

from __future__ import annotations

import os
from pathlib import Path

from aidlc.vcs.process import git_failed, git_process


def ignoring_rules(top: Path, tree_paths: list[str]) -> list[tuple[str, str, int, str]]:
    """(path, the rule's file, its line, the pattern) for each of `tree_paths` (paths from the top of the work tree)
    an ignore rule matches; the rule's file from the top too. A path beyond a symbolic link is never tracked, so no
    ignore rule applies to it (and check-ignore refuses it: a pull request that swaps aidlc-docs/ for a link would stop
    the whole run)."""
    tree_paths = [path for path in tree_paths if not _beyond_link(top, path)]
    if not tree_paths:
        return []
    # check-ignore takes paths, and refuses the literal-pathspec setting every other command runs with.
    proc = git_process(top, ("check-ignore", "--no-index", "--verbose", "-z", "--stdin"),
                       "".join(f"{path}\0" for path in tree_paths).encode(), {"GIT_LITERAL_PATHSPECS": "0"})
    if proc.returncode not in (0, 1):
        raise git_failed(top, ("check-ignore",), proc.stderr)
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    found = []
    for at in range(0, len(fields) - 3, 4):  # source, line, pattern, path
        source, line, pattern, path = fields[at:at + 4]
        if source and not pattern.startswith("!"):
            found.append((path, source if not os.path.isabs(source) else os.path.relpath(source, top), int(line),
                          pattern))
    return found


def _beyond_link(top: Path, tree_path: str) -> bool:
    """Whether a folder on the way to `tree_path` in the work tree is a symbolic link."""
    return any((top / parent).is_symlink() for parent in list(Path(tree_path).parents)[:-1])
