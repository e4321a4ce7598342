"""memory-bank/allowed_signers: who may sign decisions with which key (git's allowed-signers format,
`PRINCIPALS [namespaces="aidlc"] KEYTYPE BASE64-KEY`), read as a regular file, never through a link."""

from __future__ import annotations

import base64
import fnmatch
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from aidlc.bank.items import PinnedFile

NAMESPACE = "aidlc"
ALLOWED_SIGNERS = "allowed_signers"
MAX_SIGNERS = 1024 * 1024
_KEY_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
              "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com")


@dataclass(frozen=True)
class Entry:
    line: int
    principals: list[str]
    namespaces: list[str] | None  # None: every namespace
    key: bytes  # the public key blob


@dataclass
class AllowedSigners:
    rel: str
    data: bytes | None = None
    problem: str | None = None  # why it cannot be used: missing, unreadable, malformed (with the line)
    line: int | None = None
    entries: list[Entry] = field(default_factory=list)

    def usable(self) -> bool:
        return self.problem is None and self.data is not None


def load_allowed(repo_root: Path, bank_rel: str, pinned: PinnedFile | None = None) -> AllowedSigners:
    """Read memory-bank/allowed_signers: a regular file (never through a symlink, never a FIFO), well formed.
    `pinned`: the file as another source holds it (`aidlc ci --base`: the base's), instead of the work tree's."""
    rel = f"{bank_rel}/{ALLOWED_SIGNERS}"
    if pinned is not None:
        if pinned.data is None:
            return AllowedSigners(pinned.rel, problem=f"{pinned.rel} does not exist {pinned.source}: no key may "
                                  "sign decisions")
        return _parse_allowed(pinned.rel, pinned.data)
    path = Path(repo_root) / rel
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return AllowedSigners(rel, problem=f"{rel} does not exist: no key may sign decisions")
    except OSError as exc:
        return AllowedSigners(rel, problem=f"{rel} cannot be read: {exc.strerror} (it must be a regular file, "
                              "not a symbolic link)")
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return AllowedSigners(rel, problem=f"{rel} is not a regular file")
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_SIGNERS + 1)
    finally:
        os.close(fd)
    return _parse_allowed(rel, data)


def _parse_allowed(rel: str, data: bytes) -> AllowedSigners:
    if len(data) > MAX_SIGNERS:
        return AllowedSigners(rel, problem=f"{rel} is larger than 1 MiB")
    allowed = AllowedSigners(rel, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        allowed.problem = f"{rel} is not UTF-8 text"
        return allowed
    for number, raw in enumerate(text.splitlines(), start=1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        parsed = _entry(number, entry)
        if isinstance(parsed, str):
            allowed.problem, allowed.line = f"{rel}:{number}: {parsed}", number
            return allowed
        allowed.entries.append(parsed)
    return allowed


def lists(allowed: AllowedSigners, email: str) -> bool:
    """Whether an entry of `allowed` names `email` among its principals (ssh's patterns)."""
    return any(matches(entry.principals, email) for entry in allowed.entries)


def _entry(number: int, text: str) -> Entry | str:
    """One line `PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]`; a string says what is wrong with it."""
    fields = _fields(text)
    at = next((i for i, word in enumerate(fields[:3]) if word in _KEY_TYPES or word.endswith("-cert-v01@openssh.com")),
              None)
    if at is None or at == 0 or at + 1 >= len(fields):
        return ("expected `EMAIL[,EMAIL...] [namespaces=\"aidlc\"] KEYTYPE BASE64-KEY`, e.g. "
                f"`ada@example.org namespaces=\"{NAMESPACE}\" ssh-ed25519 AAAA...`")
    try:
        blob = base64.b64decode(fields[at + 1], validate=True)
    except ValueError:
        return f"the key after {fields[at]} is not base64"
    if wire_string(blob, 0)[0] != fields[at].encode():
        return f"the key after {fields[at]} is not a {fields[at]} key"
    namespaces = None
    for option in (fields[1].split(",") if at == 2 else []):
        name, _, value = option.partition("=")
        if name.lower() == "namespaces":
            namespaces = [n.strip() for n in value.strip('"').split(",")]
    return Entry(number, fields[0].split(","), namespaces, blob)


def _fields(text: str) -> list[str]:
    """Split at blanks outside double quotes (options such as namespaces="a,b" may hold blanks)."""
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char in " \t" and not quoted:
            if current:
                fields.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        fields.append("".join(current))
    return fields


def wire_string(data: bytes, at: int) -> tuple[bytes, int]:
    """An SSH wire-format string at `at`: (its bytes, the offset after it); (b"", len) when cut short."""
    if at + 4 > len(data):
        return b"", len(data)
    size = int.from_bytes(data[at:at + 4], "big")
    return data[at + 4:at + 4 + size], at + 4 + size


def matches(patterns: list[str], email: str) -> bool:
    """An ssh pattern-list: `*` and `?` wildcards, `!` negates (for the message; ssh-keygen gives the verdict)."""
    matched = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if fnmatch.fnmatchcase(email, pattern.lstrip("!")):
            if negated:
                return False
            matched = True
    return matched


def allowed_line(email: str, key: bytes) -> str:
    """The allowed_signers line that lets `key` sign aidlc decisions for `email`."""
    kind = wire_string(key, 0)[0].decode("ascii", "replace")
    return f'{email} namespaces="{NAMESPACE}" {kind} {base64.b64encode(key).decode()}'
