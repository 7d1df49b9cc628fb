"""The documentation's command line and settings references, rendered from the code itself: the
``hmscatalog`` command's argparse parsers and :data:`hmscatalog.config.SETTINGS`. The site's
build hook (``docs/hooks.py``) puts them into their pages, so they cannot drift from the code;
``tests/unit/test_docs_reference.py`` checks that nothing in them lacks a text."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from hmscatalog import config

_WIDTH = 88  # usage lines are wrapped as on a terminal this wide, whatever the build's own


@dataclass(frozen=True)
class Command:
    """One command or subcommand: ``hmscatalog metastore start``, its parser and its help."""

    path: str
    parser: argparse.ArgumentParser
    help: str | None  # the line the parent's listing shows; None for the top command


def commands(parser: argparse.ArgumentParser, path: str | None = None,
             help: str | None = None) -> Iterator[Command]:
    """``parser``'s command (``path``, by default its ``prog``) and every subcommand below it,
    depth first, in definition order."""
    path = path or parser.prog
    yield Command(path, parser, help)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield from commands(sub, f"{path} {name}", helps.get(name))


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments and options of ``parser`` itself, without ``--help``, ``--version`` and the
    subcommands."""
    skipped = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)
    return [action for action in parser._actions if not isinstance(action, skipped)]


def option_name(action: argparse.Action) -> str:
    """``--port``, ``-h/--help``, or a positional argument's metavar (``HMS_URI``)."""
    if action.option_strings:
        return "/".join(action.option_strings)
    return str(action.metavar or action.dest)


def undocumented(parser: argparse.ArgumentParser) -> list[str]:
    """The subcommands and options, below ``parser``, that have no help text."""
    top, *subcommands = commands(parser)
    missing = [command.path for command in subcommands if not command.help]
    for command in (top, *subcommands):
        missing += [f"{command.path} {option_name(action)}" for action in options(command.parser)
                    if not action.help]
    return missing


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """``action``'s help with argparse's ``%(default)s``-style fields filled in."""
    return parser._get_formatter()._expand_help(action) if action.help else ""


def _usage(command: Command) -> str:
    formatter = argparse.HelpFormatter(command.path, width=_WIDTH)
    formatter.add_usage(command.parser.usage, command.parser._actions,
                        command.parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _cell(text: str) -> str:
    """Text that fits in a Markdown table cell."""
    return " ".join(text.replace("|", "\\|").split())


def _local(text: str) -> str:
    """``text`` with the building user's home directory written as ``~``."""
    return text.replace(str(Path.home()), "~")


def _default(action: argparse.Action) -> str:
    if action.option_strings and isinstance(action, argparse._StoreTrueAction):
        return "off"
    if action.default is None or action.default == []:
        return ""
    return f"`{_local(str(action.default))}`"


def render_cli(parser: argparse.ArgumentParser) -> str:
    """A Markdown section per command: its help, its usage, and a table of its arguments and
    options with their help and default."""
    out = []
    for command in commands(parser):
        level = "#" * min(command.path.count(" ") + 2, 4)
        out.append(f"{level} `{command.path}`\n")
        for about in dict.fromkeys(filter(None, (command.help, command.parser.description))):
            out.append(f"{about}\n")
        out.append(f"```text\n{_local(_usage(command))}\n```\n")
        actions = options(command.parser)
        if actions:
            out.append("| argument | meaning | default |\n| --- | --- | --- |")
            for action in actions:
                name = option_name(action)
                if action.option_strings and action.nargs != 0:
                    name += f" {action.metavar or action.dest.upper()}"
                choices = (f" One of: {', '.join(f'`{c}`' for c in action.choices)}."
                           if action.choices else "")
                out.append(f"| `{name}` | {_cell(_local(_help(command.parser, action)))}"
                           f"{choices} | {_default(action)} |")
            out.append("")
    return "\n".join(out)


_SOURCES: Mapping[config.Source, tuple[str, str]] = {
    "table": ("Table properties",
              "Set in `CREATE TABLE ... TBLPROPERTIES` or `ALTER TABLE ... SET TBLPROPERTIES`; "
              "`read_partitioned` takes the `hmscatalog.*` ones as `options`. Keys are looked "
              "up exactly, case included; an unknown key under `hmscatalog.`, a known key in "
              "another case, or a value of the wrong kind is refused before the metastore "
              "changes, naming the closest known key or the value."),
    "catalog": ("Catalog settings",
                "Spark session settings of a catalog attached with `attach(spark, name)`: "
                "`spark.hmscatalog.<name>.<key>`, else `spark.hmscatalog.<key>` (listed here); "
                "an empty value counts as unset. `attach` refuses an unknown key under "
                "`spark.hmscatalog.`, naming the closest known one."),
    "hive": ("Hive settings",
             "Hive's own settings, read from the Spark session as `<key>` or "
             "`spark.hadoop.<key>` (the plain key wins), with Hive's defaults; `SET key=value` "
             "changes them for a session."),
}

_KINDS: Mapping[config.Kind, str] = {
    "boolean": "`true` or `false`, any case",
    "count": "a whole number",
    "seconds": "a positive number of seconds",
    "duration": "a number of seconds, or of `ms`, `s`, `m`, `h`, `d` (`30s`, `5m`)",
    "choice": "one of its words, any case",
    "glob": "a glob below the table location",
    "text": "text",
}


def _setting_default(setting: config.Setting) -> str:
    value = setting.default
    if value is None or value == "":
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    return f"`{value}`"


def _setting_values(setting: config.Setting) -> str:
    if setting.kind == "count":
        return f"{_KINDS['count']}, at least {setting.minimum}"
    if setting.kind == "choice":
        return " or ".join(f"`{choice}`" for choice in setting.choices) + ", any case"
    return _KINDS[setting.kind]


def render_settings(settings: Mapping[str, config.Setting] = config.SETTINGS) -> str:
    """A Markdown section per source (table, catalog, Hive) with a table of its settings:
    key, values (kind, minimum, choices), default and meaning."""
    out = []
    for source, (title, about) in _SOURCES.items():
        found = [s for s in settings.values() if s.source == source]
        if not found:
            continue
        out.append(f"## {title}\n\n{about}\n")
        out.append("| key | values | default | meaning |\n| --- | --- | --- | --- |")
        for setting in found:
            out.append(f"| `{setting.key}` | {_setting_values(setting)} | "
                       f"{_setting_default(setting)} | {_cell(setting.doc)} |")
        out.append("")
    return "\n".join(out)
