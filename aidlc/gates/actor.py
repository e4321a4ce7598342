"""Who is deciding: git config or --as, and whether it is a person, an agent or CI."""

from __future__ import annotations

import os
import re
from pathlib import Path

from aidlc import vcs
from aidlc.errors import UsageError
from aidlc.model.events import Actor, ActorKind


def actor_from(repo: Path, as_actor: str | None) -> Actor:
    """--as "Name <email>" or git config; AIDLC_ACTOR_KIND marks agents (and CI runs are ci)."""
    kind = os.environ.get("AIDLC_ACTOR_KIND") or ("ci" if os.environ.get("CI") else "human")
    if kind not in {k.value for k in ActorKind}:
        raise UsageError(f"AIDLC_ACTOR_KIND={kind!r} is not one of human, agent, ci")
    if as_actor:
        name, email = _parse_as(as_actor)
        return Actor(kind=ActorKind(kind), name=name, email=email)
    name, email = vcs.identity(repo)
    if not name:
        raise UsageError("who is deciding? git config has no user.name",
                         ['git config user.name "Your Name" && git config user.email you@example.org',
                          'or pass --as "Your Name <you@example.org>"'])
    return Actor(kind=ActorKind(kind), name=name, email=email)


# "Name <email>" or "Name": the name without angle brackets, the email one token inside them.
_AS = re.compile(r"\s*([^<>]*?)\s*(?:<([^<>\s]*)>)?\s*")


def _parse_as(as_actor: str) -> tuple[str, str | None]:
    match = _AS.fullmatch(as_actor)
    if match is None or not match.group(1):
        raise UsageError(f"--as {as_actor!r}: expected 'Name <email>'", ['--as "Ada Lovelace <ada@example.org>"'])
    return match.group(1), match.group(2) or None


def recorder(repo: Path) -> Actor:
    """The actor of a record that needs no decision (e.g. ledger.created): never fails."""
    try:
        return actor_from(repo, None)
    except UsageError:
        kind = ActorKind.ci if os.environ.get("CI") else ActorKind.human
        return Actor(kind=kind, name="unknown")
