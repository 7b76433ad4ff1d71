"""mkdocs hook: the command-line reference, generated at build time from colbench's own argparse parsers.

A page that holds the line ``<!-- cli-reference -->`` gets, in its place, one section per command of
:data:`colbench.cli.COMMANDS` (and one per sub-command, e.g. ``colbench train rft``), each built from
:func:`colbench.cli.command_parser` -- the parser ``colbench CMD --help`` prints -- never from copied
help text: the usage line, the description, a table of the options (flags, default, help; each row
has the id ``colbench-CMD--option`` to link to) and the epilog.
"""
from __future__ import annotations

import argparse
import html
import re

MARKER = "<!-- cli-reference -->"


def _slug(prog: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", prog.lower()).strip("-")


def _text_block(text: str) -> str:
    """Preformatted text as an HTML block (Markdown left alone, nothing in it interpreted)."""
    return f'<pre class="cli-text"><code>{html.escape(text.strip())}</code></pre>\n'


def _default(action: argparse.Action) -> str:
    if action.required or action.default in (None, False, argparse.SUPPRESS) or action.nargs == 0:
        return ""
    value = " ".join(map(str, action.default)) if isinstance(action.default, (list, tuple)) else str(action.default)
    return f"<code>{html.escape(value)}</code>"


def _flags(action: argparse.Action) -> str:
    names = action.option_strings or [action.metavar or action.dest]
    metavar = ""
    if action.option_strings and action.nargs != 0:
        if action.choices is not None and action.metavar is None:
            metavar = "{" + ",".join(map(str, action.choices)) + "}"
        else:
            metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    return ", ".join(f"<code>{html.escape(n + (' ' + metavar if metavar else ''))}</code>" for n in names)


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    text = (action.help or "") % {**vars(action), "prog": parser.prog} if action.help else ""
    return html.escape(" ".join(text.split()))


def _options_table(parser: argparse.ArgumentParser, slug: str) -> str:
    out = []
    for group in parser._action_groups:  # argparse keeps its groups here; there is no public accessor
        actions = [a for a in group._group_actions
                   if a.help != argparse.SUPPRESS and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]
        if not actions:
            continue
        rows = []
        for a in actions:
            row_id = f"{slug}--{a.option_strings[-1].lstrip('-')}" if a.option_strings else f"{slug}-{_slug(a.dest)}"
            rows.append(f'<tr id="{row_id}"><td>{_flags(a)}</td><td>{_default(a)}</td><td>{_help(a, parser)}</td></tr>')
        out.append(f"<p><strong>{html.escape(group.title or '')}</strong></p>\n<table>\n"
                   "<thead><tr><th>option</th><th>default</th><th>meaning</th></tr></thead>\n<tbody>\n"
                   + "\n".join(rows) + "\n</tbody>\n</table>\n")
    return "\n".join(out)


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def _section(parser: argparse.ArgumentParser, level: int) -> str:
    slug = _slug(parser.prog)
    parts = [f"{'#' * level} `{parser.prog}` {{ #{slug} }}\n",
             _text_block(parser.format_usage().removeprefix("usage: "))]
    if parser.description:
        parts.append(_text_block(parser.description))
    parts.append(_options_table(parser, slug))
    if parser.epilog:
        parts.append(_text_block(parser.epilog))
    for _, sub in _subparsers(parser):
        parts.append(_section(sub, level + 1))
    return "\n".join(parts)


def cli_reference() -> str:
    """The Markdown of every command's section, in the order of ``colbench --help``."""
    from colbench.cli import COMMANDS, command_parser, top_parser

    top = top_parser()
    parts = [_text_block(top.format_help())]
    parts += [_section(command_parser(name), 2) for name in COMMANDS]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (mkdocs hook signature)
    """Put the reference in place of :data:`MARKER`."""
    return markdown.replace(MARKER, cli_reference()) if MARKER in markdown else markdown
