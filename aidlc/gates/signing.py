"""Signed approvals: a human decision carries an SSH signature by a key that memory-bank/allowed_signers
lists for the decider's email (git's allowed-signers format).

* Signed bytes: the event's canonical JSON (sorted keys, no spaces, UTF-8, as the ledger line) without
  `hash` and without `signature`. Every other field is covered, `prev`, `seq`, `ts` and `id` included, so a
  signature binds the decision to its place in the chain: moving or re-chaining it breaks the signature.
* Signing: `ssh-keygen -Y sign -n aidlc -f KEY FILE` with the key git signs commits with (`gpg.format=ssh`;
  `user.signingkey` a private key file, a public key file whose private key is in ssh-agent or beside it,
  or `key::ssh-... ` / a bare `ssh-...` literal in ssh-agent; `gpg.ssh.program` instead of ssh-keygen when
  set). Not handled: an unset `user.signingkey` (git's `gpg.ssh.defaultKeyCommand` is not run).
* Checking: `ssh-keygen -Y verify -f allowed_signers -I EMAIL -n aidlc -s SIGFILE` with the signed bytes on
  standard input, always with the system's ssh-keygen.

Every program runs from an argument list, never through a shell.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.errors import AidlcError, UsageError
from aidlc.events.canonical import canonical, plain
from aidlc.events.ledger import Signer
from aidlc.gates.allowed_signers import (
    ALLOWED_SIGNERS,
    NAMESPACE,
    AllowedSigners,
    allowed_line,
    load_allowed,
    matches,
    wire_string,
)
from aidlc.model.events import Event

SIGN_TIMEOUT_S = 300  # a person may have to type a passphrase or touch a security key
VERIFY_TIMEOUT_S = 30
_LINE = 70  # ssh-keygen wraps the armored signature at 70 characters


class SigningError(AidlcError):
    """A decision that must be signed cannot be; nothing was recorded (exit 1)."""


def signed_bytes(event: dict[str, Any]) -> bytes:
    """What a signature covers: the canonical event without `hash` and `signature`."""
    return canonical({k: v for k, v in event.items() if k not in ("hash", "signature")})


def setup_steps(email: str | None) -> list[str]:
    """The commands that set signing up, as docs/gates.md gives them."""
    who = email or "you@example.org"
    return ["git config gpg.format ssh",
            "git config user.signingkey ~/.ssh/id_ed25519.pub    # the key you sign commits with",
            f"echo \"{who} namespaces=\\\"{NAMESPACE}\\\" $(cut -d' ' -f1,2 ~/.ssh/id_ed25519.pub)\" "
            f">> memory-bank/{ALLOWED_SIGNERS}    # then commit it, reviewed like code"]


# -- keys and signature blobs ---------------------------------------------------------------------------------------
def fingerprint(key: bytes) -> str:
    return "SHA256:" + base64.b64encode(hashlib.sha256(key).digest()).decode().rstrip("=")


def public_key(sig: str) -> bytes:
    """The public key blob inside a base64 SSHSIG blob (b"" when it is not one)."""
    return _signing_key(sig)[0]


def _signing_key(sig: str) -> tuple[bytes, bytes]:
    """(public key blob, namespace) inside an SSHSIG blob; empty values when it is not one."""
    try:
        blob = base64.b64decode(sig, validate=True)
    except ValueError:
        return b"", b""
    if not blob.startswith(b"SSHSIG"):
        return b"", b""
    key, at = wire_string(blob, 10)  # magic (6 bytes) and version (4)
    namespace, _ = wire_string(blob, at)
    return key, namespace


# -- signing at the gate --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GitKey:
    """The key git signs with, as `user.signingkey` gives it."""

    program: str
    path: str | None = None  # a key file (private, or public with the private key in ssh-agent)
    literal: str | None = None  # a public key given inline; its private key is in ssh-agent


REQUIRED = "governance.require_signed_approvals is on"


def git_key(project: Path, email: str | None, reason: str = REQUIRED) -> GitKey:
    """`reason`: why a signature is made, for the messages (the setting, or --sign)."""
    config = vcs.signing_config(project)
    steps = setup_steps(email)
    if config.get("gpg.format") != "ssh":
        raise SigningError(f"{reason}, and git does not sign with SSH "
                           f"(gpg.format is {config.get('gpg.format', 'unset')!r}); aidlc signs with the "
                           "SSH key git signs commits with", steps)
    key = config.get("user.signingkey", "").strip()
    if not key:
        raise SigningError(f"{reason}, and git has no user.signingkey "
                           "(aidlc does not run gpg.ssh.defaultKeyCommand)", steps[1:])
    program = config.get("gpg.ssh.program") or "ssh-keygen"
    if key.startswith("key::") or key.startswith("ssh-"):
        return GitKey(program, literal=key.removeprefix("key::").strip())
    path = Path(os.path.expanduser(key))
    path = path if path.is_absolute() else project / path
    if not path.is_file():
        raise SigningError(f"user.signingkey names {key}, which is not a file", steps[1:])
    return GitKey(program, path=str(path))


def sign(key: GitKey, data: bytes, what: str = "the decision") -> str:
    """The base64 SSHSIG blob of `data` (`what`, for the messages), made by ssh-keygen (or gpg.ssh.program) with
    the key git uses."""
    with tempfile.TemporaryDirectory(prefix="aidlc-sign-") as tmp:
        message = Path(tmp) / "event"
        message.write_bytes(data)
        keyfile = key.path
        if key.literal is not None:
            keyfile = str(Path(tmp) / "key.pub")
            Path(keyfile).write_text(key.literal + "\n", encoding="utf-8")
        try:  # stdin closed: without a terminal a passphrase prompt fails instead of reading our bytes
            proc = subprocess.run([key.program, "-Y", "sign", "-n", NAMESPACE, "-f", str(keyfile), str(message)],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=SIGN_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SigningError(f"cannot run {key.program} to sign {what}: {exc}",
                               ["install OpenSSH (ssh-keygen), or set gpg.ssh.program"]) from None
        armored = Path(f"{message}.sig")
        if proc.returncode != 0 or not armored.is_file():
            said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SigningError(f"{key.program} could not sign {what} with {key.path or 'the key in ssh-agent'}"
                               f": {said[-1] if said else f'exit {proc.returncode}'}",
                               ["ssh-add ~/.ssh/id_ed25519    # a key in ssh-agent signs without a prompt",
                                "git config user.signingkey    # the key aidlc signs with"])
        lines = armored.read_text(encoding="ascii").splitlines()
    return "".join(line for line in lines if not line.startswith("-----"))


# -- checking ----------------------------------------------------------------------------------------------------
def armor(sig: str) -> str:
    body = "\n".join(sig[i:i + _LINE] for i in range(0, len(sig), _LINE))
    return f"-----BEGIN SSH SIGNATURE-----\n{body}\n-----END SSH SIGNATURE-----\n"


@dataclass(frozen=True)
class Signed:
    """A signature to check: `sig` (base64 SSHSIG) over `data`, by a key allowed_signers lists for `email`."""

    email: str | None
    sig: str
    data: bytes


def verify(allowed: AllowedSigners, events: Iterable[Event]) -> list[str | None]:
    """For each signed event: None when its signature verifies for its actor's email, else what is wrong."""
    return verify_signed(allowed, [Signed(event.actor.email, event.signature.sig if event.signature else "",
                                          signed_bytes(plain(event)))
                                   for event in events])


def verify_signed(allowed: AllowedSigners, todo: list[Signed]) -> list[str | None]:
    """For each signature: None when it verifies, else what is wrong. One ssh-keygen per signature, a few at a
    time (each is a process start, not computing)."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    if not todo:
        return []
    if not allowed.usable():
        raise ValueError("verify needs a usable allowed_signers")
    program = shutil.which("ssh-keygen")
    if program is None:
        raise UsageError("ssh-keygen is not available, so signatures cannot be checked",
                         ["install OpenSSH (the openssh-client package), then rerun"])
    with tempfile.TemporaryDirectory(prefix="aidlc-verify-") as tmp:
        signers = Path(tmp) / ALLOWED_SIGNERS
        signers.write_bytes(allowed.data or b"")

        def check(numbered: tuple[int, Signed]) -> str | None:
            number, signed = numbered
            if not signed.email:
                return "the decision names no email, so no allowed signer can be looked up"
            return _check(program, signers, Path(tmp) / f"{number}.sig", allowed, signed)

        with ThreadPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 2)) as pool:
            return list(pool.map(check, enumerate(todo)))


def _check(program: str, signers: Path, sigfile: Path, allowed: AllowedSigners, signed: Signed) -> str | None:
    email, sig = str(signed.email), signed.sig
    key, namespace = _signing_key(sig)
    if not key:
        return "the signature is not an SSH signature (SSHSIG)"
    if namespace != NAMESPACE.encode():
        return f"the signature is for namespace {namespace.decode(errors='replace')!r}, not {NAMESPACE!r}"
    sigfile.write_text(armor(sig), encoding="ascii")
    try:
        proc = subprocess.run([program, "-Y", "verify", "-f", str(signers), "-I", email, "-n", NAMESPACE,
                               "-s", str(sigfile)], input=signed.data, capture_output=True,
                              timeout=VERIFY_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return "ssh-keygen did not answer in time"
    if proc.returncode == 0:
        return None
    return _why_not(allowed, key, email, proc.stderr.decode("utf-8", "replace").strip())


def _why_not(allowed: AllowedSigners, key: bytes, email: str, said: str) -> str:
    """A readable reason for a failed check (ssh-keygen itself only says that it failed)."""
    listed = [entry for entry in allowed.entries if entry.key == key]
    print_ = fingerprint(key)
    if not listed:
        return f"it is signed by key {print_}, which {allowed.rel} does not list"
    mine = [e for e in listed if matches(e.principals, email)]
    if not mine:
        others = ", ".join(p for e in listed for p in e.principals)
        return f"it is signed by key {print_}, which {allowed.rel} lists for {others}, not for {email}"
    if all(e.namespaces is not None and NAMESPACE not in e.namespaces for e in mine):
        return f"{allowed.rel} does not allow key {print_} the namespace {NAMESPACE!r}"
    return (f"the signature by key {print_} does not match what it signs: it was changed after it was signed"
            + (f" ({said.splitlines()[-1]})" if said else ""))


def signer_for(project: Path, bank_rel: str, email: str | None) -> Signer:
    """What signs a decision by `email`, checked before anything is recorded: allowed_signers is usable and git
    names a key. The signer signs, then verifies as validation will, and refuses what would not pass."""
    key, allowed = _ready(project, bank_rel, email, REQUIRED)

    def signer(event: dict[str, Any]) -> dict[str, Any]:
        sig = _signed(key, allowed, Signed(email, "", signed_bytes(event)), "the decision", "recorded")
        return {"format": "ssh", "namespace": NAMESPACE, "sig": sig}

    return signer


def sign_as(project: Path, bank_rel: str, email: str | None, data: bytes, reason: str, what: str) -> str:
    """`data` (`what`) signed as a decision is, with the key git signs with, for `email`, and verified against
    the records' allowed_signers before it is given out (`reason`: why it is signed, for the messages)."""
    key, allowed = _ready(project, bank_rel, email, reason)
    return _signed(key, allowed, Signed(email, "", data), what, "written")


def _ready(project: Path, bank_rel: str, email: str | None, reason: str) -> tuple[GitKey, AllowedSigners]:
    if not email:
        raise SigningError(f"{reason}, and the signer has no email to sign as",
                           ['git config user.email you@example.org    # or --as "Your Name <you@example.org>"'])
    allowed = load_allowed(project, bank_rel)
    if not allowed.usable():
        raise SigningError(f"{reason}, and {allowed.problem}", setup_steps(email))
    return git_key(project, email, reason), allowed


def _signed(key: GitKey, allowed: AllowedSigners, unsigned: Signed, what: str, done: str) -> str:
    """The signature of `unsigned.data`, made and then checked as a reader will; refused when it would not pass."""
    sig = sign(key, unsigned.data, what)
    problem = verify_signed(allowed, [Signed(unsigned.email, sig, unsigned.data)])[0]
    if problem is not None:
        public, _ = _signing_key(sig)
        raise SigningError(f"the signature would not be accepted: {problem}; nothing was {done}",
                           [f"add this line to {allowed.rel} (and have it reviewed): "
                            f"{allowed_line(str(unsigned.email), public)}"
                            if public else "git config user.signingkey    # the key aidlc signs with"])
    return sig
