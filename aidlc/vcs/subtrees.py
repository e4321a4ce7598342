"""The merges that put another project's history in a folder of this one, as `git subtree add` and `git subtree
merge` do (squashed or not): the merge's side parent holds that project's tree at its top, and the merge holds the
same tree in a folder. The side's commits name that project's paths (its `aidlc-docs/audit.md` is this project's
`plan/aidlc-docs/audit.md`), so HEAD's history as this project names its paths leaves them out
(aidlc/vcs/project_history.py).

A side counts only when it does not descend from the project's first commit: the root of the first-parent line of
the commit judged from (HEAD, or a pull request's base). With a base, a merge cannot call the project's own history
another project's: the base's history descends from the base's first commit. Without one (`aidlc validate`), HEAD's
first-parent line is taken as the project's, as git itself shows it; a pull request is judged with its base."""

from __future__ import annotations

from pathlib import Path

from aidlc.vcs.process import run_git


def subtree_sides(top: Path, anchor: str) -> tuple[str, ...]:
    """The side parents of HEAD's merges that brought another project's history into a folder, judged from the
    commit `anchor`; empty in a history with one first commit (every commit descends from it)."""
    if len(_lines(top, "rev-list", "--max-parents=0", "HEAD", "--")) < 2:
        return ()
    first = _lines(top, "rev-list", "--first-parent", "--max-parents=0", anchor, "--")
    project = set(_lines(top, "rev-list", "--ancestry-path", f"{first[0]}..HEAD", "--")) | set(first)
    joined: dict[str, list[str]] = {}  # a merge of the project's -> its sides from elsewhere
    for merge, _first, *sides in (line.split() for line in _lines(top, "rev-list", "--merges", "--parents",
                                                                   "HEAD", "--")):
        if merge in project:
            joined.setdefault(merge, []).extend(side for side in sides if side not in project)
    found = []
    for merge, sides in joined.items():
        if not sides:
            continue
        folders = {fields.split()[2] for fields, _, _name in
                   (entry.partition("\t") for entry in _lines(top, "ls-tree", "-r", "-d", "-z", merge, sep="\0"))
                   if fields}
        trees = _lines(top, "rev-parse", *(f"{side}^{{tree}}" for side in sides))
        found += [side for side, tree in zip(sides, trees, strict=True) if tree in folders]
    return tuple(found)


def _lines(top: Path, *args: str, sep: str = "\n") -> list[str]:
    return [line for line in run_git(top, args).decode("utf-8", "surrogateescape").split(sep) if line]
