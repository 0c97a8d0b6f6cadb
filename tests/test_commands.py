"""Each chapter owns its command (issue 38): the table of :mod:`tcplab.commands` declares every
subcommand once, ``tcplab --help`` lists them all without importing a chapter, and a command's
flags come from its own module whether the parser is built for it alone or for every command.

Expectations from outside the code: the command modules found on disk, the modules a fresh
interpreter holds after ``tcplab --help``, and the help argparse prints for the full parser.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import cli, commands

PACKAGE = Path(cli.__file__).resolve().parent


def _command_modules() -> list[str]:
    """Every ``command.py`` in the package (the chapters' and the ledger's), as module names."""
    return sorted(
        ".".join(("tcplab", *p.relative_to(PACKAGE).with_suffix("").parts))
        for p in PACKAGE.rglob("command.py")
    )


def _declared(module: str) -> list[str]:
    """The commands a module defines, by the convention of :mod:`tcplab.commands`."""
    loaded = importlib.import_module(module)
    if hasattr(loaded, "COMMANDS"):
        return [c.name for c in loaded.COMMANDS]
    return [loaded.NAME]


def test_every_command_module_is_in_the_table_and_nothing_else() -> None:
    table = {name: module for name, _, module in commands.TABLE}
    assert len(table) == len(commands.TABLE), "a name declared twice"
    found = {name: module for module in _command_modules() for name in _declared(module)}
    found.update({c.name: "tcplab.cli" for c in cli.COMMANDS})
    assert found == table
    assert len(_command_modules()) >= 8  # the chapters' modules were found at all


@pytest.mark.parametrize(("name", "help_text", "module"), commands.TABLE)
def test_the_tables_help_is_the_commands_own(name: str, help_text: str, module: str) -> None:
    command = commands.load(name)
    assert (command.name, command.help) == (name, help_text)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)  # follows the convention: takes a parser, returns nothing
    assert callable(command.run)


def test_a_module_that_names_another_command_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(
        commands, "TABLE", (("sawtooth", "x", "tcplab.chapters.insensitivity.command"),)
    )
    with pytest.raises(LookupError, match="'fluid', not 'sawtooth'"):
        commands.load("sawtooth")


def _loaded_after_help(*argv: str) -> tuple[str, list[str]]:
    """The help ``tcplab argv`` prints and the modules a fresh interpreter holds after it."""
    probe = (
        "import contextlib, io, json, sys\nfrom tcplab import cli\nout = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        f"    cli.main({list(argv)!r})\n"
        "print(json.dumps([out.getvalue(), sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    text, modules = json.loads(done.stdout.splitlines()[-1])
    return text, modules


def test_the_top_level_help_lists_every_command_and_imports_no_chapter() -> None:
    text, modules = _loaded_after_help("--help")
    for name, help_text, _ in commands.TABLE:
        assert f"    {name}" in text
        assert help_text.split()[0] in text
    assert not [m for m in modules if m.startswith("tcplab.chapters")]
    assert not [m for m in modules if m.split(".")[0] in ("numpy", "pandas", "simpy", "tqdm")]
    assert [m for m in modules if m.startswith("tcplab")] == [
        "tcplab", "tcplab.cli", "tcplab.commands", "tcplab.flags", "tcplab.writable",
    ]  # fmt: skip


def test_one_commands_help_imports_only_its_own_chapter() -> None:
    text, modules = _loaded_after_help("morris", "--help")
    assert "--telnet" in text
    chapters = {m.split(".")[2] for m in modules if m.startswith("tcplab.chapters.")}
    assert chapters == {"morris"}


def _help(parser: argparse.ArgumentParser, name: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        parser.parse_args([name, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("name", [name for name, _, _ in commands.TABLE])
def test_a_command_alone_has_the_flags_it_has_among_all(name: str) -> None:
    full = cli._parser()
    alone = cli._parser([name])
    assert _help(alone, name) == _help(full, name)
    assert full.format_help() == alone.format_help() == cli._parser([]).format_help()
