"""aidlc new intent|requirement|unit|story|bolt: create artifacts from templates."""

from __future__ import annotations

import click

from aidlc.cli import complete
from aidlc.cli.app import App, output_options
from aidlc.model.types import BoltType, Priority, Risk
from aidlc.scaffold.new import Created, Creator


def _csv(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _report(app: App, kind: str, result: Created) -> None:
    if app.json:
        app.emit_json({"kind": kind, "id": result.id, "created": result.created, "updated": result.updated,
                       "next_steps": result.next_steps})
        return
    app.out(f"created {kind} {result.id}")
    for path in result.created:
        app.out(f"  + {path}")
    for path in result.updated:
        app.out(f"  ~ {path}")
    if result.next_steps:
        app.out("\nNext steps:")
        for step in result.next_steps:
            app.out(f"  {step}")


_priority = click.option("--priority", type=click.Choice([p.value for p in Priority]), default="must",
                         show_default=True)
_intent = click.option("--intent", "intent_ref", shell_complete=complete.intents,
                       help="Intent folder name (with or without its number).")
_requirements = click.option("--requirements", help="Comma-separated requirement IDs, e.g. FR-1,NFR-2.")
_criterion = click.option("--criterion", "criteria", multiple=True,
                          help="An acceptance criterion (repeatable): '**Given** ..., **When** ..., **Then** ...'.")


@output_options
@click.group("new")
def new_group() -> None:
    """Create an intent, requirement, unit, story or bolt with the next free number."""


@new_group.command("intent")
@click.argument("title")
@click.option("--statement", help="The intent statement: why, for whom, what success looks like.")
@output_options
@click.pass_obj
def new_intent(app: App, title: str, statement: str | None) -> None:
    """Create intents/NNN-slug/ with requirements, system context and units files."""
    _report(app, "intent", Creator(app.root()).new_intent(title, statement))


@new_group.command("requirement")
@click.argument("title")
@_intent
@click.option("--kind", type=click.Choice(["FR", "NFR"]), default="FR", show_default=True,
              help="Functional or non-functional.")
@_priority
@_criterion
@click.option("--description", help="A paragraph under the heading.")
@output_options
@click.pass_obj
def new_requirement(app: App, title: str, intent_ref: str | None, kind: str, priority: str,
                    criteria: tuple[str, ...], description: str | None) -> None:
    """Append `### FR-n: TITLE` (or NFR-n) to the intent's requirements.md."""
    creator = Creator(app.root())
    _report(app, "requirement",
            creator.new_requirement(title, intent_ref, kind, Priority(priority), list(criteria), description))


@new_group.command("unit")
@click.argument("title")
@_intent
@_requirements
@click.option("--purpose", help="What the unit does and why it stands alone.")
@output_options
@click.pass_obj
def new_unit(app: App, title: str, intent_ref: str | None, requirements: str | None, purpose: str | None) -> None:
    """Create units/NNN-slug/unit-brief.md and map its requirements in units.md."""
    _report(app, "unit", Creator(app.root()).new_unit(title, intent_ref, _csv(requirements), purpose))


@new_group.command("story")
@click.argument("title")
@_intent
@click.option("--unit", "unit_ref", required=True, shell_complete=complete.units,
              help="Unit folder name (with or without its number).")
@_requirements
@_priority
@_criterion
@click.option("--as-a", help="The user role of the user story.")
@click.option("--i-want", help="What the user wants (default: the title).")
@click.option("--so-that", help="The benefit of the user story.")
@output_options
@click.pass_obj
def new_story(app: App, title: str, intent_ref: str | None, unit_ref: str, requirements: str | None, priority: str,
              criteria: tuple[str, ...], as_a: str | None, i_want: str | None, so_that: str | None) -> None:
    """Create stories/NNN-slug.md in the unit and refresh story-index.md."""
    creator = Creator(app.root())
    _report(app, "story", creator.new_story(title, intent_ref, unit_ref, _csv(requirements), Priority(priority),
                                            list(criteria), as_a, so_that, i_want))


@new_group.command("plan")
@click.argument("bolt", shell_complete=complete.bolts)
@output_options
@click.pass_obj
def new_plan(app: App, bolt: str) -> None:
    """Write the template of BOLT's implementation-plan.md, for a person who plans the bolt (a run of the
    bolt has the model write it instead)."""
    _report(app, "plan", Creator(app.root()).new_plan(bolt))


@new_group.command("bolt")
@_intent
@click.option("--unit", "unit_ref", required=True, shell_complete=complete.units, help="The unit the bolt builds.")
@click.option("--stories", required=True, shell_complete=complete.stories,
              help="Comma-separated story names (file names or ids) of that unit.")
@click.option("--type", "bolt_type", type=click.Choice([t.value for t in BoltType]),
              default=BoltType.simple.value, show_default=True)
@click.option("--risk", type=click.Choice([r.value for r in Risk]), default="low", show_default=True,
              help="Sets the evidence a walkthrough approval needs.")
@click.option("--requires", shell_complete=complete.bolts, help="Comma-separated bolt ids this bolt depends on.")
@click.option("--scope", help="Comma-separated globs of files the bolt may change, e.g. 'src/pay/**'.")
@click.option("--objective", help="One paragraph: what the bolt delivers.")
@output_options
@click.pass_obj
def new_bolt(app: App, intent_ref: str | None, unit_ref: str, stories: str, bolt_type: str, risk: str,
             requires: str | None, scope: str | None, objective: str | None) -> None:
    """Create bolts/NNN-unit/bolt.md, assign its stories to it and refresh story-index.md."""
    creator = Creator(app.root())
    _report(app, "bolt", creator.new_bolt(intent_ref, unit_ref, _csv(stories), BoltType(bolt_type), Risk(risk),
                                          _csv(requires), _csv(scope), objective))
