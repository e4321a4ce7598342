"""Why a gate decision is refused before anything is written: who decides (a person, not an agent, CI, a bot or
code a bolt run's check executes; policy only within its limits), a ledger that does not verify, requirements
that define nothing yet."""

from __future__ import annotations

from aidlc.bank.items import STATEMENT_PLACEHOLDER, Intent, MemoryBank
from aidlc.errors import AidlcError
from aidlc.events.verify import ProblemKind
from aidlc.events.view import LedgerView
from aidlc.gates.actor import AGENT_SHELLS, agent_shell, bot_identity
from aidlc.model.events import Actor, ActorKind, Decision
from aidlc.model.types import Risk
from aidlc.names import arg
from aidlc.processes import run_ancestor


class GateRefused(AidlcError):
    """The decision is not allowed now; nothing was recorded."""


def check_policy(bank: MemoryBank, stage: str, decision: Decision, risk: Risk | None) -> None:
    allowed = bank.config.policy.auto_approve_plan
    if stage != "plan" or decision != Decision.approve or risk not in (Risk.low, Risk.medium) or risk not in allowed:
        raise GateRefused(f"policy.auto_approve_plan ({', '.join(allowed) or 'empty'}) cannot decide the {stage} "
                          f"gate ({decision.value}, risk {risk or 'unknown'}): only plan approvals of low or medium "
                          "risk it lists", ["a person decides: aidlc gate approve BOLT --stage plan"])


def check_requirements_written(intent: Intent) -> None:
    """An approval of requirements needs a requirement to approve (a file still as `aidlc new intent` wrote
    it, placeholder statement and no requirement, has none)."""
    if intent.requirements:
        return
    doc = intent.requirements_doc
    rel = doc.rel if doc is not None else f"{intent.rel}/requirements.md"
    what = ("is still the template: its statement is the placeholder and it defines no requirement"
            if doc is not None and STATEMENT_PLACEHOLDER in doc.body
            else "defines no requirement (no `### FR-n:` or `### NFR-n:` heading)")
    raise GateRefused(f"intent {intent.id} has nothing to approve at its requirements gate: {rel} {what}",
                      [f'aidlc new requirement "TITLE" --intent {arg(intent.id)} --priority must --criterion '
                       '"**Given** ..., **When** ..., **Then** ..."',
                       f"aidlc draft requirements {arg(intent.id)}    # or have the model propose them"])


def not_a_person(subject: str, stage: str, decision: Decision, actor: Actor) -> GateRefused:
    """The refusal of an agent or a CI run, shown as what it is (not under the git name it runs with)."""
    command = f"aidlc gate {decision.value} {arg(subject)} --stage {arg(stage)}"
    if actor.kind == ActorKind.ci:
        return GateRefused(f"{stage} is a human checkpoint, and CI cannot decide one: this run is CI (CI is set). "
                           "A person decides; CI then checks the decision.",
                           [f"{command}    # a person, from their own shell, then push the ledger"])
    shell = agent_shell()
    why = (f"it runs in a coding agent's shell ({shell} is set: {AGENT_SHELLS[shell]})" if shell else
           f"its actor kind (AIDLC_ACTOR_KIND) is {actor.kind}")
    return GateRefused(f"{stage} is a human checkpoint, and this command runs as an agent, whatever name git "
                       f"gives: {why}. AI proposes, a human decides.",
                       [f"{command}    # a person, from their own shell"])


def refuse_below_a_check(subject: str, stage: str, decision: Decision) -> None:
    """Code a bolt run's checks execute (the tests a model wrote) runs as the person, with their git identity:
    a decision from a process started below a check, however it left the check, is that code's, not theirs."""
    why = run_ancestor()
    if why is not None:
        raise GateRefused(f"{stage} is a human checkpoint, and this command was started by code a bolt run's check "
                          f"executes ({why}): a check cannot decide a gate, nothing was recorded",
                          [f"aidlc gate {decision.value} {arg(subject)} --stage {arg(stage)}    # typed by you, in "
                           "your own terminal"])


def refuse_bot(bot_emails: list[str], stage: str, actor: Actor) -> None:
    """A human decision names a person: a bot's identity is an agent's, also when given through --as."""
    why = bot_identity(actor.name, actor.email, bot_emails)
    if why is not None:
        raise GateRefused(f"{stage} is a human checkpoint, and {actor.name} <{actor.email or ''}> is a bot ({why}). "
                          "A bot proposes, a person decides.",
                          ["a person decides with their own identity: git config user.name \"Your Name\" && "
                           "git config user.email you@example.org", 'or: --as "Your Name <you@example.org>"'])


def check_intact(led: LedgerView) -> None:
    """The order check trusts the recorded decisions, so they must be the ones the chain vouches for.

    A torn last line is no reason to refuse: the append moves it aside (docs/design.md, The ledger).
    """
    problem, ledger = led.first_error, led.ledger
    if problem is not None and problem.kind != ProblemKind.torn:
        raise GateRefused(f"the ledger is damaged at {ledger.rel}:{problem.line} ({problem.kind}: {problem.message}); "
                          "no decision is chained onto it",
                          ["aidlc log verify    # names the first bad line",
                           f"restore {ledger.rel} from the last good commit, then decide again"])
