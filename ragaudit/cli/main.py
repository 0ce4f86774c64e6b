"""`ragaudit <command>`: each command lives in its own module exposing
`add_arguments(parser)` and `run(args) -> int`, declared on a registry (ragaudit.registry)
with its help line. Only the chosen command's module is imported, so `ragaudit --help`
stays instant and nothing heavy loads at import."""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass

from ragaudit.errors import RagauditError
from ragaudit.registry import Registry, unknown_name_message


@dataclass(frozen=True)
class Command:
    """One subcommand: the module that parses and runs it, and its help line."""

    module: str
    help: str


COMMANDS: dict[str, tuple[str, str]] = {  # name -> (module, help), declared on the registry
    "demo": (
        "ragaudit.cli.demo",
        "run the quick planted-fault matrix (if needed) and open the inspector",
    ),
    "corpus": ("ragaudit.cli.corpus", "write, check or describe the planted-fault corpus"),
    "run": (
        "ragaudit.cli.run",
        "run the configuration matrix (retrieval, generation, grading, analysis)",
    ),
    "report": ("ragaudit.cli.report", "render the report from a results file"),
    "compare": ("ragaudit.cli.compare", "compare two results files cell by cell"),
    "gate": ("ragaudit.cli.gate", "fail CI when a run loses instances against a baseline"),
    "export": ("ragaudit.cli.export", "write a results file's instance records as CSV/Parquet"),
    "app": ("ragaudit.cli.app", "open the Streamlit inspector"),
    "audit": ("ragaudit.cli.audit", "audit your own corpus and queries"),
    "cases": ("ragaudit.cli.cases", "mine verified cases from your own documents"),
    "mutate": ("ragaudit.cli.mutate", "plant faults in your own corpus and score your stack"),
    "drift": (
        "ragaudit.cli.drift",
        "compare production and evaluation retrieval constants (source or settings files)",
    ),
    "harness-check": ("ragaudit.cli.harness", "find failure handling that hides failures"),
    "judges": ("ragaudit.cli.judges", "how often LLM-judge metrics miss planted faults"),
    "serve": ("ragaudit.cli.serve", "serve the bundled generator as an OpenAI API on 127.0.0.1"),
}


def command_registry() -> Registry[Command]:
    """Every command, in the order `ragaudit --help` lists them (nothing imported)."""
    registry: Registry[Command] = Registry("command")
    for name, (module, help_) in COMMANDS.items():
        registry.add(name, Command(module, help_))
    return registry


def _top_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragaudit", description="ragaudit: find out how a RAG stack really fails."
    )
    commands = command_registry()
    width = max(len(name) for name in commands)
    lines = [f"  {name:<{width}} {commands.get(name).help}" for name in commands]
    parser.epilog = "commands:\n" + "\n".join(lines)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("command", nargs="?")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        _top_parser().print_help()
        return 0
    name, rest = argv[0], argv[1:]
    commands = command_registry()
    if name not in commands:
        print(
            f"ragaudit: {unknown_name_message('command', name, commands.names())}", file=sys.stderr
        )
        return 2
    command = commands.get(name)
    try:  # a plugin that cannot load (a clashing name) is one line too
        module = importlib.import_module(command.module)
        parser = argparse.ArgumentParser(prog=f"ragaudit {name}", description=command.help)
        module.add_arguments(parser)
        args = parser.parse_args(rest)
        return int(module.run(args) or 0)
    except RagauditError as error:
        print(f"ragaudit {name}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"ragaudit {name}: interrupted; finished work is kept (rerun to resume)",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
