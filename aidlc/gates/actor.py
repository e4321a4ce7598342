"""Who is deciding: git config or --as, and whether it is a person, an agent or CI."""

from __future__ import annotations

import os
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
        name, _, rest = as_actor.partition("<")
        email = rest.rstrip(">").strip() or None
        if not name.strip():
            raise UsageError(f"--as {as_actor!r}: expected 'Name <email>'")
        return Actor(kind=ActorKind(kind), name=name.strip(), email=email)
    name, email = vcs.identity(repo)
    if not name:
        raise UsageError("who is deciding? git config has no user.name",
                         ['git config user.name "Your Name" && git config user.email you@example.org',
                          'or pass --as "Your Name <you@example.org>"'])
    return Actor(kind=ActorKind(kind), name=name, email=email)


def recorder(repo: Path) -> Actor:
    """The actor of a record that needs no decision (e.g. ledger.created): never fails."""
    try:
        return actor_from(repo, None)
    except UsageError:
        kind = ActorKind.ci if os.environ.get("CI") else ActorKind.human
        return Actor(kind=kind, name="unknown")
