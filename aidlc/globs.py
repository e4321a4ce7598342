"""The path globs of aidlc.yaml's governance.paths and a bolt's scope, one meaning for both: gitignore-like globs
over POSIX paths relative to the project (`*` within one folder name, `**` any number of folders, `?` one
character; a glob naming a folder covers the files under it)."""

from __future__ import annotations

import re
from collections.abc import Callable


def _regex(glob: str) -> str:
    out, at = [], 0
    glob = glob.strip().lstrip("/")
    while at < len(glob):
        if glob.startswith("**/", at):
            out.append("(?:.*/)?")
            at += 3
        elif glob.startswith("**", at):
            out.append(".*")
            at += 2
        elif glob[at] == "*":
            out.append("[^/]*")
            at += 1
        elif glob[at] == "?":
            out.append("[^/]")
            at += 1
        else:
            out.append(re.escape(glob[at]))
            at += 1
    pattern = "".join(out)
    return pattern if glob.endswith("**") else f"{pattern}(?:/.*)?"  # `src` and `src/` govern the folder's files


def matcher(globs: list[str]) -> Callable[[str], bool]:
    """A test of a POSIX path relative to the project against every glob."""
    if not globs:
        return lambda _path: False
    compiled = re.compile("|".join(f"(?:{_regex(glob)})" for glob in globs), re.DOTALL)
    return lambda path: compiled.fullmatch(path) is not None
