"""What .gitattributes give a file, as git itself reads them: every .gitattributes on the way to the file, with git's
own patterns, then info/attributes and core.attributesFile; in the work tree, or as a commit holds them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from aidlc.vcs.process import git_failed, git_process


def attributes(top: Path, paths: list[str], commit: str | None = None) -> dict[str, tuple[str, ...]]:
    """The attributes of each of `paths` (relative to the repository's top), in git's order: `name=value`, `name`
    (set) or `-name` (unset); a path with none is left out. At `commit`: its .gitattributes files, read into a
    temporary index (`git check-attr --source` needs git 2.40)."""
    if not paths:
        return {}
    args = ("check-attr", "-a", "-z", "--stdin")
    stdin = "".join(f"{path}\0" for path in paths).encode()
    if commit is None:
        return _parsed(_run(top, args, stdin, {}))
    with tempfile.TemporaryDirectory(prefix="aidlc-attributes-") as folder:
        env = {"GIT_INDEX_FILE": os.path.join(folder, "index")}
        _run(top, ("read-tree", commit), None, env)
        return _parsed(_run(top, ("check-attr", "--cached", *args[1:]), stdin, env))


def _run(top: Path, args: tuple[str, ...], stdin: bytes | None, env: dict[str, str]) -> bytes:
    # check-attr reads paths, and refuses the literal-pathspec setting every other command runs with.
    proc = git_process(top, args, stdin, {**env, "GIT_LITERAL_PATHSPECS": "0"})
    if proc.returncode != 0:
        raise git_failed(top, args, proc.stderr)
    return bytes(proc.stdout)


def _parsed(out: bytes) -> dict[str, tuple[str, ...]]:
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, list[str]] = {}
    for at in range(0, len(fields) - 2, 3):  # path, attribute, value
        path, name, value = fields[at:at + 3]
        shown = name if value == "set" else f"-{name}" if value == "unset" else f"{name}={value}"
        found.setdefault(path, []).append(shown)
    return {path: tuple(names) for path, names in found.items()}
