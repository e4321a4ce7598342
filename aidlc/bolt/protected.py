"""The files a bolt run may never plan or write, whatever a plan or a model says: git's own, aidlc's run state,
the whole memory bank (the bolt's definition and risk, its stories, the ledger, allowed_signers) and the files
that govern the repository (what CI runs, who owns code, how git merges, the CI baseline, aidlc.yaml).

A path is compared as a file system that ignores case and a trailing dot or space would see it (Windows,
macOS): `.GIT/config`, `Memory-Bank/bolts/001/bolt.md.` and `.github\\CODEOWNERS` name protected files too.
"""

from __future__ import annotations

import unicodedata

from aidlc.bank.rulefiles import BASELINE_FILE
from aidlc.bank.walk import CONFIG_FILE

_GOVERNANCE = ("is a file that governs the repository (what CI runs, who owns the code, how git treats files, "
               "the CI baseline, aidlc's rules); a person changes it")


def folded(path: str) -> list[str]:
    """The parts of `path` as a case-insensitive, trailing-dot-ignoring file system resolves them: '\\' and '/'
    separate, '.' and empty parts drop out, '..' goes up, each part is NFKC-normalised and case-folded, without
    invisible format characters (zero-width and the like) and trailing dots and spaces."""
    parts: list[str] = []
    for raw in path.replace("\\", "/").split("/"):
        if raw == "..":
            if parts:
                parts.pop()
            continue
        name = "".join(c for c in unicodedata.normalize("NFKC", raw) if unicodedata.category(c) != "Cf")
        name = name.rstrip(". ").casefold()
        if name:
            parts.append(name)
    return parts


def protected(path: str, bank: str) -> str | None:
    """Why a run may never plan or write `path` (relative to the repository), or None. `bank`: the memory
    bank folder (aidlc.yaml's memory_bank)."""
    parts = folded(path)
    if not parts:
        return None
    if ".git" in parts or parts[0] == "git~1":  # git~1: the short name Windows gives .git
        return "is inside .git/, which aidlc never writes"
    if parts[0] == ".aidlc":
        return "is aidlc's own run state (.aidlc/), which a model never changes"
    bank_parts = folded(bank)
    if parts[:len(bank_parts)] == bank_parts:
        return (f"is in the memory bank ({bank.strip('/')}/): the bolt's definition and risk, its stories, the "
                "ledger and the signers are a person's to change, and aidlc writes its own records there")
    if parts[0] == ".github":
        return f"is under .github/ (workflows, actions, CODEOWNERS), which {_GOVERNANCE}"
    if parts[-1] == ".gitattributes" or parts in (["codeowners"], ["docs", "codeowners"], [BASELINE_FILE],
                                                   [CONFIG_FILE]):
        return _GOVERNANCE
    return None
