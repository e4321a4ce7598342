"""Who is deciding: git config or --as, and whether it is a person, an agent or CI."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from aidlc import vcs
from aidlc.errors import UsageError
from aidlc.model.events import Actor, ActorKind

# The variables coding agents set in the shells they run commands in (Claude Code since 0.2.47, Gemini CLI, Codex in
# its sandbox: CODEX_SANDBOX=seatbelt on macOS, CODEX_SANDBOX_NETWORK_DISABLED=1 without network; Cursor's agent,
# headless or in the editor; VS Code's Copilot agent terminals; Kiro's CLI; OpenCode. Kiro's editor marks its
# terminals alike for a person and its agent: no marker), with the value that marks them where only one does
# (Cursor's editor sets CURSOR_EXTENSION_HOST_ROLE to other roles too): a command run there is the agent's, whatever
# AIDLC_ACTOR_KIND says. An agent that unsets them is not stopped by this; one told to run a gate's command is.
AGENT_SHELLS = {"CLAUDECODE": "Claude Code", "GEMINI_CLI": "Gemini CLI", "CODEX_SANDBOX": "Codex",
                "CODEX_SANDBOX_NETWORK_DISABLED": "Codex", "CURSOR_AGENT": "Cursor",
                "CURSOR_EXTENSION_HOST_ROLE": "Cursor", "COPILOT_AGENT": "GitHub Copilot",
                "KIRO_SESSION_ID": "Kiro CLI", "OPENCODE": "OpenCode"}
_MARKED_BY = {"CURSOR_EXTENSION_HOST_ROLE": "agent-exec"}


def agent_shell() -> str | None:
    """The marker (`CLAUDECODE`) set when this process runs in a coding agent's shell, else None."""
    def marks(name: str) -> bool:
        value = os.environ.get(name, "")
        return value == _MARKED_BY[name] if name in _MARKED_BY else value not in ("", "0")

    return next((name for name in AGENT_SHELLS if marks(name)), None)


def actor_from(repo: Path, as_actor: str | None) -> Actor:
    """--as "Name <email>" or git config; AIDLC_ACTOR_KIND or an agent's shell marks agents (CI runs are ci)."""
    kind = "agent" if agent_shell() else (os.environ.get("AIDLC_ACTOR_KIND") or
                                          ("ci" if os.environ.get("CI") else "human"))
    if kind not in {k.value for k in ActorKind} - {ActorKind.policy.value}:
        raise UsageError(f"AIDLC_ACTOR_KIND={kind!r} is not one of human, agent, ci")
    if as_actor:
        name, email = _parse_as(as_actor)
        if email is None and kind == ActorKind.human.value:
            # A person's decision names them as git names an author: a bare name could be anyone's, and two
            # approvals are told apart (and matched to signers) by their email too.
            raise UsageError(f"--as {as_actor!r} names no email: a person's decision is recorded with their name "
                             "and email; nothing was recorded",
                             [f'--as "{name} <{name.split()[0].lower()}@example.org>"    # your own email',
                              "or leave out --as: git config user.name and user.email say who you are"])
        return Actor(kind=ActorKind(kind), name=name, email=email)
    git_name, git_email = vcs.identity(repo)
    if not git_name:
        raise UsageError("who is deciding? git config has no user.name",
                         ['git config user.name "Your Name" && git config user.email you@example.org',
                          'or pass --as "Your Name <you@example.org>"'])
    return Actor(kind=ActorKind(kind), name=git_name, email=git_email)


# "Name <email>" or "Name": the name without angle brackets, the email one token inside them.
_AS = re.compile(r"\s*([^<>]*?)\s*(?:<([^<>\s]*)>)?\s*")


def _parse_as(as_actor: str) -> tuple[str, str | None]:
    match = _AS.fullmatch(as_actor)
    if match is None or not match.group(1):
        raise UsageError(f"--as {as_actor!r}: expected 'Name <email>'", ['--as "Ada Lovelace <ada@example.org>"'])
    return match.group(1), match.group(2) or None


# What counts as a bot, never a person (names and emails compared without case):
# * an email listed in governance.bot_emails;
# * a name ending in "[bot]" (GitHub Apps: dependabot[bot], github-actions[bot], renovate[bot]);
# * an email whose local part ends in "[bot]" (their no-reply address: 49699333+dependabot[bot]@users.noreply...);
# * noreply@github.com (the identity of commits GitHub itself makes from its web interface);
# * an email whose local part is "bot" or ends in "-bot" or "_bot" (renovate-bot@..., ci_bot@...);
# * GitLab's bot users: project_NNN_bot... and group_NNN_bot... (project and group access tokens);
# * the identities coding agents commit or co-author under (AGENT_EMAILS).
AGENT_EMAILS = {"noreply@anthropic.com": "Claude's identity (Claude Code)",
                "cursoragent@cursor.com": "Cursor's agent's identity"}
_BOT_LOCAL = re.compile(r"(.*\[bot\]|bot|.*[-_]bot|(project|group)_\d+_bot(_\w+)?)", re.IGNORECASE)


def same_person(actor: Actor, name: str | None, email: str | None) -> bool:
    """An actor and a person (a name, an email) are one person when their names or their emails are the same,
    compared without case: two approvals need two people."""
    def same(one: str | None, two: str | None) -> bool:
        a, b = (one or "").strip().lower(), (two or "").strip().lower()
        return bool(a) and a == b

    return same(actor.name, name) or same(actor.email, email)


def bot_identity(name: str | None, email: str | None, bot_emails: Sequence[str]) -> str | None:
    """Why an identity belongs to a bot (see the list above); None for what may be a person."""
    address = (email or "").strip().lower()
    if address and address in {listed.strip().lower() for listed in bot_emails}:
        return f"{email} is listed in governance.bot_emails"
    if (name or "").strip().lower().endswith("[bot]"):
        return f"the name {name!r} ends in [bot]"
    if address == "noreply@github.com":
        return "noreply@github.com is GitHub's own identity"
    if address in AGENT_EMAILS:
        return f"{address} is {AGENT_EMAILS[address]}"
    local = address.rpartition("@")[0]
    if local and any(_BOT_LOCAL.fullmatch(part) for part in local.split("+")):  # NNN+name[bot], name+tag
        return f"{email} is a bot's address"
    return None


def no_person(actor: Actor, bot_emails: Sequence[str]) -> str | None:
    """Who made a decision no person made, in words: an agent or CI, or a bot under a person's kind (the gate refuses
    each; a line written past it is one); None for what may be a person, or a policy (aidlc.yaml's rules judge it)."""
    if actor.kind in (ActorKind.agent, ActorKind.ci):
        return f"{actor.kind} {actor.name}"
    why = bot_identity(actor.name, actor.email, bot_emails) if actor.kind == ActorKind.human else None
    return None if why is None else f"{actor.name}, a bot ({why})"


def recorder(repo: Path) -> Actor:
    """The actor of a record that needs no decision (e.g. ledger.created): never fails."""
    try:
        return actor_from(repo, None)
    except UsageError:
        kind = ActorKind.ci if os.environ.get("CI") else ActorKind.human
        return Actor(kind=kind, name="unknown")


def writer(repo: Path) -> Actor:
    """The actor of a record an agent writes as it works (an audit entry, `aidlc audit append`): an agent unless
    AIDLC_ACTOR_KIND says a person (human) or CI runs it, as on every record of aidlc; named by git config, or
    `unknown` (the entry is written either way: it decides nothing)."""
    kind = os.environ.get("AIDLC_ACTOR_KIND") or ("ci" if os.environ.get("CI") else "agent")
    if kind not in {k.value for k in ActorKind} - {ActorKind.policy.value}:
        raise UsageError(f"AIDLC_ACTOR_KIND={kind!r} is not one of human, agent, ci")
    name, email = vcs.identity(repo)
    return Actor(kind=ActorKind(kind), name=name or "unknown", email=email)
