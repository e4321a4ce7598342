"""Who decides, and with which key: bot identities (AIDLC-LEDGER-014) and signed approvals (015, 016, 017).

Real ed25519 keys made by ssh-keygen in temporary folders, signatures made and checked by the real
ssh-keygen, a real ssh-agent where a key lives only there, real git config in real repositories.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aidlc.events.ledger import Ledger
from aidlc.gates import signing
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from tests.helpers import run_cli
from tests.test_gate import (
    INTENT_ID,
    LEDGER,
    MB,
    REQUIREMENTS,
    approve,
    decisions,
    events,
    findings,
    gate,
    git,
    read,
    write,
)
from tests.test_log_cli import rechain

ALLOWED = f"{MB}/allowed_signers"
# Only the repository's git config counts: a developer's ~/.gitconfig must not sign (or fail to sign) for a test.
ISOLATED = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "SSH_AUTH_SOCK": None}
BOT = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"


@dataclass(frozen=True)
class Key:
    private: Path

    @property
    def public(self) -> Path:
        return self.private.with_name(self.private.name + ".pub")

    @property
    def line(self) -> str:
        """`ssh-ed25519 AAAA...` without the comment."""
        return " ".join(self.public.read_text().split()[:2])

    def allowed(self, email: str) -> str:
        return f'{email} namespaces="aidlc" {self.line}\n'


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Key]:
    folder = tmp_path_factory.mktemp("keys")
    made = {}
    for name in ("ada", "bob", "eve"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(folder / name)],
                       check=True)
        made[name] = Key(folder / name)
    return made


def require_signing(root: Path, allowed: str | None, key: Path | str | None) -> None:
    """Turn signing on in aidlc.yaml, write allowed_signers (None: none), and point git at `key`."""
    text = read(root, "aidlc.yaml")
    assert text.count("require_signed_approvals: false") == 1
    write(root, "aidlc.yaml", text.replace("require_signed_approvals: false", "require_signed_approvals: true"))
    if allowed is not None:
        write(root, ALLOWED, allowed)
    if key is not None:
        git(root, "config", "gpg.format", "ssh")
        git(root, "config", "user.signingkey", str(key))


def ledger_hits(root: Path, code: str) -> list[Finding]:
    return [f for f in findings(root) if f.code == code]


def sign_with(key: Path):  # type: ignore[no-untyped-def]
    """A signer as an attacker with this key would use it, through the ledger's own append."""
    def signer(event: dict) -> dict:
        return {"format": "ssh", "namespace": "aidlc",
                "sig": signing.sign(signing.GitKey("ssh-keygen", path=str(key)), signing.signed_bytes(event))}
    return signer


def append_decision(root: Path, actor: Actor, sign=None, stage: str = "requirements") -> int:  # type: ignore[no-untyped-def]
    """A decision written straight into the ledger (no gate): returns its line."""
    Ledger(root / LEDGER, root).append(
        EventType.gate_decided, actor, subject=Subject(kind="intent", id=INTENT_ID), stage=stage,
        decision=Decision.approve, fingerprint=FileDigest(path=REQUIREMENTS, sha256="0" * 64), sign=sign)
    return len(read(root, LEDGER).splitlines())


ADA = Actor(kind=ActorKind.human, name="Ada Lovelace", email="ada@x.org")


# -- signing at the gate, verified by the real ssh-keygen --------------------------------------------------------------
def test_a_decision_signed_with_an_allowed_key_validates_and_verifies(chain: Path, keys: dict[str, Key]) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org"), keys["ada"].private)
    result = gate(chain, "approve", INTENT_ID, "requirements", env=ISOLATED)
    assert result.exit_code == 0, result.stderr
    event = decisions(chain)[-1]
    assert set(event["signature"]) == {"format", "namespace", "sig"}
    assert event["signature"]["format"] == "ssh" and event["signature"]["namespace"] == "aidlc"
    # The signed bytes, as documented: the canonical event without `hash` and `signature`.
    payload = json.dumps({k: v for k, v in event.items() if k not in ("hash", "signature")}, sort_keys=True,
                         separators=(",", ":"), ensure_ascii=False).encode()
    sig = chain / "event.sig"
    sig.write_text(signing.armor(event["signature"]["sig"]))
    proc = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(chain / ALLOWED), "-I", "ada@x.org", "-n", "aidlc",
                           "-s", str(sig)], input=payload, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    sig.unlink()
    assert [f for f in findings(chain) if f.code.startswith("AIDLC-LEDGER")] == []
    assert run_cli("--repo", str(chain), "log", "verify").returncode == 0


def test_without_signing_set_up_the_gate_refuses_with_the_setup_commands(chain: Path, keys: dict[str, Key]) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org"), None)
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "requirements", env=ISOLATED)
    assert result.exit_code == 1
    assert "git does not sign with SSH (gpg.format is 'unset')" in result.stderr
    assert "git config gpg.format ssh" in result.stderr and "git config user.signingkey" in result.stderr
    assert read(chain, LEDGER) == before
    assert not (chain / ".aidlc" / "gate-pending").exists()


def test_without_allowed_signers_the_gate_refuses(chain: Path, keys: dict[str, Key]) -> None:
    require_signing(chain, None, keys["ada"].private)
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "requirements", env=ISOLATED)
    assert result.exit_code == 1 and f"{ALLOWED} does not exist" in result.stderr
    assert read(chain, LEDGER) == before


@pytest.mark.parametrize("listed", ["unlisted", "for another email"])
def test_a_key_allowed_signers_does_not_list_for_the_decider_is_refused(chain: Path, keys: dict[str, Key],
                                                                        listed: str) -> None:
    allowed = keys["ada"].allowed("ada@x.org") + (keys["eve"].allowed("bob@x.org") if listed != "unlisted" else "")
    require_signing(chain, allowed, keys["eve"].private)
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "requirements", env=ISOLATED)
    assert result.exit_code == 1, result.stderr
    said = " ".join(result.stderr.split())
    if listed == "unlisted":
        assert f"which {ALLOWED} does not list" in said
    else:
        assert f"which {ALLOWED} lists for bob@x.org, not for ada@x.org" in said
    assert f'add this line to {ALLOWED} (and have it reviewed): ada@x.org namespaces="aidlc" {keys["eve"].line}' in said
    assert read(chain, LEDGER) == before


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A real ssh-agent on a socket of its own: `ssh-agent -s` returns once the socket is ready; stopped by its pid."""
    sock = tmp_path / "agent.sock"
    out = subprocess.run(["ssh-agent", "-s", "-a", str(sock)], capture_output=True, text=True, check=True).stdout
    pid = int(re.search(r"SSH_AGENT_PID=(\d+)", out).group(1))  # type: ignore[union-attr]
    try:
        yield {"SSH_AUTH_SOCK": str(sock)}
    finally:
        os.kill(pid, signal.SIGTERM)


@pytest.mark.parametrize("form", ["key::literal", "bare literal", "public key file"])
def test_a_key_that_lives_in_ssh_agent_signs(chain: Path, keys: dict[str, Key], agent: dict[str, str],
                                             tmp_path: Path, form: str) -> None:
    only_public = tmp_path / "ada.pub"  # no private key beside it: the agent must sign
    only_public.write_text(keys["ada"].public.read_text())
    subprocess.run(["ssh-add", "-q", str(keys["ada"].private)], env={**os.environ, **agent}, check=True,
                   capture_output=True)
    key = {"key::literal": f"key::{keys['ada'].line}", "bare literal": keys["ada"].line,
           "public key file": str(only_public)}[form]
    require_signing(chain, keys["ada"].allowed("ada@x.org"), key)
    result = gate(chain, "approve", INTENT_ID, "requirements", env={**ISOLATED, **agent})
    assert result.exit_code == 0, result.stderr
    assert decisions(chain)[-1]["signature"]["sig"]
    assert ledger_hits(chain, "AIDLC-LEDGER-016") == []


def test_a_public_key_without_its_private_key_anywhere_is_refused(chain: Path, keys: dict[str, Key],
                                                                  tmp_path: Path) -> None:
    only_public = tmp_path / "ada.pub"
    only_public.write_text(keys["ada"].public.read_text())
    require_signing(chain, keys["ada"].allowed("ada@x.org"), only_public)
    result = gate(chain, "approve", INTENT_ID, "requirements", env=ISOLATED)
    assert result.exit_code == 1 and "could not sign the decision" in result.stderr
    assert "ssh-add" in result.stderr and decisions(chain) == []


# -- AIDLC-LEDGER-016: every signature verifies -------------------------------------------------------------------
@pytest.mark.parametrize("signer", ["unlisted key", "key of another email"])
def test_016_a_decision_signed_by_a_key_not_allowed_for_its_email(chain: Path, keys: dict[str, Key],
                                                                  signer: str) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org") + keys["bob"].allowed("bob@x.org"), None)
    key = keys["eve" if signer == "unlisted key" else "bob"]
    line = append_decision(chain, ADA, sign=sign_with(key.private))
    found = ledger_hits(chain, "AIDLC-LEDGER-016")
    assert [(f.path, f.line) for f in found] == [(LEDGER, line)]
    fingerprint = signing.fingerprint(base64.b64decode(key.line.split()[1]))
    expected = (f"which {ALLOWED} does not list" if signer == "unlisted key" else
                f"which {ALLOWED} lists for bob@x.org, not for ada@x.org")
    assert f"it is signed by key {fingerprint}, {expected}" in found[0].message
    assert found[0].severity == Severity.error and found[0].fix.startswith("a person decides again")
    proc = run_cli("--repo", str(chain), "log", "verify")
    assert proc.returncode == 1 and f"{LEDGER}:{line}" in proc.stdout and expected in proc.stdout


def test_016_a_signed_event_changed_and_rechained_no_longer_verifies(chain: Path, keys: dict[str, Key]) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org"), keys["ada"].private)
    approve(chain, INTENT_ID, "requirements")
    assert ledger_hits(chain, "AIDLC-LEDGER-016") == []
    forged = events(chain)
    forged[-1]["reason"] = "approved, honestly"  # the hash chain is redone: only the signature can tell
    (chain / LEDGER).write_bytes(rechain(forged))
    assert ledger_hits(chain, "AIDLC-LEDGER-001") == []
    found = ledger_hits(chain, "AIDLC-LEDGER-016")
    assert [f.line for f in found] == [len(forged)]
    assert "does not match what it signs: it was changed after it was signed" in found[0].message
    document = json.loads(run_cli("--repo", str(chain), "--format", "json", "log", "verify").stdout)
    assert document["ok"] is False and document["signatures"][0]["line"] == len(forged)


def test_016_a_signature_is_checked_even_where_none_is_required(chain: Path, keys: dict[str, Key]) -> None:
    write(chain, ALLOWED, keys["ada"].allowed("ada@x.org"))
    append_decision(chain, ADA, sign=sign_with(keys["eve"].private))
    assert len(ledger_hits(chain, "AIDLC-LEDGER-016")) == 1


# -- AIDLC-LEDGER-015: no unsigned decision while signatures are required ----------------------------------------------
def _commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


def test_015_an_unsigned_decision_recorded_while_signing_is_required(chain: Path, keys: dict[str, Key]) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org"), None)
    line = append_decision(chain, ADA)
    found = ledger_hits(chain, "AIDLC-LEDGER-015")
    assert [(f.path, f.line) for f in found] == [(LEDGER, line)]
    assert "carries no signature, and signing is required, and no commit shows it was recorded before that " \
           "(nothing is committed yet)" in found[0].message
    assert run_cli("--repo", str(chain), "log", "verify").returncode == 1


def test_015_decisions_from_before_signing_was_required_stand(chain: Path, keys: dict[str, Key]) -> None:
    approve(chain, INTENT_ID, "requirements")  # unsigned: not required yet
    _commit(chain, "requirements approved")
    require_signing(chain, keys["ada"].allowed("ada@x.org"), keys["ada"].private)
    assert ledger_hits(chain, "AIDLC-LEDGER-015") == []  # turned on in the work tree: the old one stands
    turned_on = _commit(chain, "signed approvals from now on")
    approve(chain, INTENT_ID, "units")  # signed
    assert ledger_hits(chain, "AIDLC-LEDGER-015") == []
    line = append_decision(chain, ADA, stage="stories")  # unsigned, by hand, after the switch
    found = ledger_hits(chain, "AIDLC-LEDGER-015")
    assert [f.line for f in found] == [line]
    assert f"it was recorded after commit {turned_on[:12]} made aidlc.yaml require signed approvals" \
        in found[0].message


def test_015_an_unsigned_decision_slipped_in_before_the_switch_was_committed(chain: Path, keys: dict[str, Key]) -> None:
    _commit(chain, "the bank")
    require_signing(chain, keys["ada"].allowed("ada@x.org"), None)
    line = append_decision(chain, ADA)  # not in the ledger HEAD holds: recorded while the work tree required it
    found = ledger_hits(chain, "AIDLC-LEDGER-015")
    assert [f.line for f in found] == [line]
    assert "signing is required since aidlc.yaml turned it on in the work tree" in found[0].message


def test_015_a_pull_request_cannot_turn_signing_off_for_a_commit_to_record_an_unsigned_decision(
        chain: Path, keys: dict[str, Key]) -> None:
    """The attack: the base requires signed approvals; the pull request turns them off in one commit, records an
    unsigned decision there, and turns them on again. Its history then shows the decision recorded while nothing
    required a signature; judged against the base, which required them, a decision the base's ledger lacks is the
    pull request's, and unsigned it fails."""
    approve(chain, INTENT_ID, "requirements")  # unsigned: not required yet
    _commit(chain, "requirements approved")
    require_signing(chain, keys["ada"].allowed("ada@x.org"), keys["ada"].private)
    base = _commit(chain, "signed approvals from now on")
    git(chain, "checkout", "-q", "-b", "pr")
    config = read(chain, "aidlc.yaml")
    write(chain, "aidlc.yaml", config.replace("require_signed_approvals: true", "require_signed_approvals: false"))
    line = append_decision(chain, ADA, stage="units")
    _commit(chain, "signing off for a moment")
    write(chain, "aidlc.yaml", config)
    _commit(chain, "signing on again")
    ci = run_cli("--repo", str(chain), "--format", "json", "ci", "--base", base)
    found = [(f["code"], f["line"]) for f in json.loads(ci.stdout)["findings"] if f["code"] == "AIDLC-LEDGER-015"]
    assert ci.returncode == 1 and found == [("AIDLC-LEDGER-015", line)], ci.stdout


def test_015_a_subtree_s_own_aidlc_yaml_says_nothing_of_when_signing_began(chain: Path, keys: dict[str, Key],
                                                                           tmp_path: Path) -> None:
    """Another project, whose aidlc.yaml at its top requires no signature, brought into `vendor/` as `git subtree add`
    does, its commit dated after ours: its versions of that path are not this project's aidlc.yaml, so they do not
    make an unsigned decision look recorded before signing was required."""
    approve(chain, INTENT_ID, "requirements")
    _commit(chain, "requirements approved")
    require_signing(chain, keys["ada"].allowed("ada@x.org"), None)
    _commit(chain, "signed approvals from now on")
    line = append_decision(chain, ADA, stage="units")
    _commit(chain, "units approved, unsigned")
    assert [f.line for f in ledger_hits(chain, "AIDLC-LEDGER-015")] == [line]
    other = tmp_path / "other"
    other.mkdir()
    later = {**os.environ, "GIT_AUTHOR_DATE": "2030-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z",
             "GIT_AUTHOR_NAME": "Bo", "GIT_AUTHOR_EMAIL": "bo@x.org", "GIT_COMMITTER_NAME": "Bo",
             "GIT_COMMITTER_EMAIL": "bo@x.org"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the library"]):
        if args[0] == "add":
            write(other, "aidlc.yaml", "version: 1\n")
        subprocess.run(["git", "-C", str(other), *args], check=True, capture_output=True, env=later)
    git(chain, "fetch", "-q", str(other), "HEAD")
    side = git(chain, "rev-parse", "FETCH_HEAD")
    git(chain, "read-tree", "--prefix=vendor/", "-u", side)
    merge = subprocess.run(["git", "-C", str(chain), "commit-tree", git(chain, "write-tree"), "-p", "HEAD", "-p", side,
                            "-m", "Add 'vendor/' from commit " + side], check=True, capture_output=True, text=True,
                           env=later).stdout.strip()
    git(chain, "reset", "-q", "--hard", merge)
    assert [f.line for f in ledger_hits(chain, "AIDLC-LEDGER-015")] == [line]


def test_the_gate_refuses_an_unsigned_decision_where_signing_is_required(chain: Path, keys: dict[str, Key]) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org"), None)
    result = gate(chain, "approve", INTENT_ID, "requirements", env=ISOLATED)
    assert result.exit_code == 1 and decisions(chain) == []


# -- AIDLC-LEDGER-017: allowed_signers is usable where it is needed ------------------------------------------------
@pytest.mark.parametrize("broken", ["missing", "malformed", "fifo", "symlink"])
def test_017_allowed_signers_that_cannot_be_used(chain: Path, keys: dict[str, Key], broken: str) -> None:
    require_signing(chain, keys["ada"].allowed("ada@x.org"), keys["ada"].private)
    approve(chain, INTENT_ID, "requirements")
    path = chain / ALLOWED
    path.unlink()
    if broken == "malformed":
        path.write_text("# who may decide\n" + keys["ada"].allowed("ada@x.org") + "bob@x.org ssh-ed25519 not-base64!\n")
    elif broken == "fifo":
        os.mkfifo(path)
    elif broken == "symlink":
        (chain / "signers").write_text(keys["ada"].allowed("ada@x.org"))
        path.symlink_to(chain / "signers")
    found = ledger_hits(chain, "AIDLC-LEDGER-017")  # a FIFO must not hang the check
    assert len(found) == 1 and found[0].path == ALLOWED and found[0].severity == Severity.error
    assert {"missing": "does not exist", "malformed": f"{ALLOWED}:3: the key after ssh-ed25519 is not base64",
            "fifo": "is not a regular file", "symlink": "must be a regular file, not a symbolic link"}[broken] \
        in found[0].message
    assert found[0].line == (3 if broken == "malformed" else None)
    assert ledger_hits(chain, "AIDLC-LEDGER-016") == []  # nothing can be judged without it


def test_017_allowed_signers_is_not_needed_where_nothing_is_signed(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert ledger_hits(chain, "AIDLC-LEDGER-017") == []


# -- AIDLC-LEDGER-014 and the gate: a bot is not a person ---------------------------------------------------------
@pytest.mark.parametrize("who", [BOT, "GitHub <noreply@github.com>", "Renovate <renovate-bot@example.org>",
                                 "Deploy <deploy@x.org>"])
def test_the_gate_refuses_a_bot_identity_also_through_as(chain: Path, who: str) -> None:
    text = read(chain, "aidlc.yaml")
    write(chain, "aidlc.yaml", text.replace("bot_emails: []", "bot_emails: [Deploy@X.org]"))
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "requirements", "--as", who)
    assert result.exit_code == 1, result.stderr
    assert "requirements is a human checkpoint" in result.stderr and "A bot proposes, a person decides." \
        in result.stderr
    assert "git config user.email you@example.org" in result.stderr
    assert read(chain, LEDGER) == before


def test_a_bot_git_identity_is_refused(chain: Path) -> None:
    git(chain, "config", "user.name", "github-actions[bot]")
    git(chain, "config", "user.email", "41898282+github-actions[bot]@users.noreply.github.com")
    result = gate(chain, "approve", INTENT_ID, "requirements")
    assert result.exit_code == 1 and "the name 'github-actions[bot]' ends in [bot]" in result.stderr


def test_a_person_with_a_no_reply_address_decides(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements", "--as", "Ada <12345+ada@users.noreply.github.com>")
    assert ledger_hits(chain, "AIDLC-LEDGER-014") == []


def test_014_a_human_decision_recorded_under_a_bot_identity(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert ledger_hits(chain, "AIDLC-LEDGER-014") == []
    line = append_decision(chain, Actor(kind=ActorKind.human, name="dependabot[bot]",
                                        email="49699333+dependabot[bot]@users.noreply.github.com"), stage="units")
    found = ledger_hits(chain, "AIDLC-LEDGER-014")
    assert [(f.path, f.line) for f in found] == [(LEDGER, line)]
    assert found[0].message.startswith(f"seq {line}: intent {INTENT_ID} units (approve) by dependabot[bot]")
    assert "a bot, not a person (the name 'dependabot[bot]' ends in [bot])" in found[0].message


def test_014_bot_emails_of_the_configuration_count(chain: Path) -> None:
    append_decision(chain, Actor(kind=ActorKind.human, name="Release Robot", email="release@x.org"))
    assert ledger_hits(chain, "AIDLC-LEDGER-014") == []
    write(chain, "aidlc.yaml", read(chain, "aidlc.yaml").replace("bot_emails: []", "bot_emails: [release@x.org]"))
    assert "release@x.org is listed in governance.bot_emails" in ledger_hits(chain, "AIDLC-LEDGER-014")[0].message


def test_init_says_how_to_turn_signing_on(tmp_path: Path) -> None:
    proc = run_cli("init", "--git", str(tmp_path / "p"))
    assert proc.returncode == 0, proc.stderr
    assert "signed approvals (optional): set governance.require_signed_approvals in aidlc.yaml" in proc.stdout
    config = (tmp_path / "p" / "aidlc.yaml").read_text()
    assert "git config gpg.format ssh" in config and "git config user.signingkey ~/.ssh/id_ed25519.pub" in config
    assert "memory-bank/allowed_signers" in config
    from aidlc.bank.config import load_config

    assert load_config(tmp_path / "p").governance.require_signed_approvals is False


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.binary(max_size=40), after=st.binary(max_size=40), needle=st.binary(min_size=1, max_size=9),
       planted=st.booleans(), chunk=st.integers(1, 12))
def test_the_chunked_signature_search_agrees_with_a_search_of_the_whole_file(
        tmp_path: Path, before: bytes, after: bytes, needle: bytes, planted: bool, chunk: int) -> None:
    from aidlc.gates.signatures import _holds

    data = before + (needle if planted else b"") + after
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    assert _holds(path, needle, chunk=chunk) == (needle in data)


@pytest.mark.parametrize("at", [0, 5, 6, 7, 11, 16])
def test_the_signature_search_finds_a_needle_across_chunks_reading_a_chunk_at_a_time(tmp_path: Path,
                                                                                     at: int) -> None:
    from aidlc.gates.signatures import _holds

    needle = b'"signature":{'
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"x" * at + needle + b"y" * 20)
    assert _holds(path, needle, chunk=8)  # every placement across 8-byte chunks
    path.write_bytes(b"x" * at + needle[:-1] + b"y" * 20)
    assert not _holds(path, needle, chunk=8)
    path.write_bytes(b"")
    assert not _holds(path, needle, chunk=8)
