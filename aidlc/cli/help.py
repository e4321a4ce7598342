"""aidlc help [COMMAND...]: the help of aidlc or of one of its commands, as `--help` prints it."""

from __future__ import annotations

import click


@click.command("help")
@click.argument("command", nargs=-1, metavar="[COMMAND]...")
@click.pass_context
def help_cmd(ctx: click.Context, command: tuple[str, ...]) -> None:
    """Show the help of aidlc, or of a command (aidlc help gate approve)."""
    shown = ctx.find_root()
    for name in command:
        group = shown.command
        found = group.get_command(shown, name) if isinstance(group, click.Group) else None
        if found is None:
            names = group.list_commands(shown) if isinstance(group, click.Group) else []
            raise click.exceptions.NoSuchCommand(name, possibilities=names, ctx=shown)
        shown = click.Context(found, info_name=name, parent=shown)
    click.echo(shown.get_help())
