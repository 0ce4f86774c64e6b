"""`ragaudit corpus`: write the planted-fault corpus, check it, or print its statistics."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ragaudit import paths
from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.corpus.build import DEFAULT_N, DEFAULT_SEED, build_corpus
from ragaudit.corpus.export import FORMATS, export_documents
from ragaudit.corpus.files import check_corpus, load_planted_corpus, write_corpus
from ragaudit.corpus.stats import instrument_stats
from ragaudit.errors import RagauditError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpus command's options."""
    parser.add_argument("--out", type=Path, default=None, help="corpus folder (default: corpus/)")
    parser.add_argument("--seed", type=int, default=None, help="generation seed (default 20261129)")
    parser.add_argument("--n", type=int, default=None, help="instances per probe (default 25)")
    parser.add_argument(
        "--probes", default=None, help="comma-separated probe names (default: all eleven)"
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--stats", action="store_true", help="print the instrument statistics instead of writing"
    )
    action.add_argument(
        "--check", action="store_true", help="list files that differ from the manifest"
    )
    parser.add_argument("--json", action="store_true", help="with --stats: print JSON")
    action.add_argument(
        "--export",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the corpus's documents into DIR for your own service to index (a "
        "pipeline: stack file's ingest); --n cuts it as a run would",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="jsonl", help="with --export (default jsonl)"
    )


def run(args: argparse.Namespace) -> int:
    """Write (default), --check or --stats."""
    folder = args.out or paths.corpus_dir()
    probes = [p.strip() for p in args.probes.split(",") if p.strip()] if args.probes else None
    seed = DEFAULT_SEED if args.seed is None else args.seed
    n = DEFAULT_N if args.n is None else args.n
    if args.export is not None:
        _check_export_target(args.export, folder, args.format)
        corpus = load_planted_corpus(folder)
        if args.n is not None and args.n < corpus.n:
            corpus = corpus.subset(args.n)
        written = export_documents(corpus.documents, args.export, args.format)
        print(f"wrote {len(corpus.documents)} documents to {args.export} ({len(written)} files)")
        return 0
    if args.check:
        problems = check_corpus(folder)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} file(s) in {folder} differ from its manifest")
            return 1
        print(f"{folder}: every file matches its manifest")
        return 0
    if args.stats:
        explicit = args.seed is not None or args.n is not None or probes
        corpus = build_corpus(seed, n, probes) if explicit else load_planted_corpus(folder)
        stats = instrument_stats(corpus)
        if args.json:
            print(json.dumps(stats, indent=1, allow_nan=False))
        else:
            print("\n".join(format_stats(stats)))
        return 0
    corpus = build_corpus(seed, n, probes)
    written = write_corpus(corpus, folder)
    print(
        f"wrote {len(corpus.instances)} instances over {len(corpus.probes)} probes and "
        f"{len(corpus.documents)} documents ({corpus.filler_count} filler) to {written}"
    )
    return 0


def _check_export_target(target: Path, corpus_folder: Path, fmt: str) -> None:
    """Before anything is read: the export goes into a folder (not onto a file, nor
    /dev/null), and never into the corpus folder or below it, which it would change
    (every later command then finds the corpus differing from its manifest)."""
    if target.exists() and not target.is_dir():
        raise RagauditError(
            f"--export {target}: is a file, not a folder; name a folder to write the documents into"
        )
    written = [("--export", target)]
    if fmt == "jsonl":
        written.append(("--export", target / "documents.jsonl"))
    refuse_input_as_output(written, [("corpus folder", corpus_folder)])


def _frac(count: int, n: int) -> str:
    return f"{count}/{n}"


def _overlap_rule_lines(rules: dict) -> list[str]:
    """What each overlap rule changes against the same cut at overlap 0."""
    if not rules:
        return []
    lines = ["chunk texts that differ from the same cut at overlap 0, per overlap rule:"]
    for name, row in rules.items():
        lines.append(
            f"  {name:<30} vs {row['baseline']}: "
            f"{_frac(row['documents_changed'], row['multi_chunk_documents'])} documents of "
            f"more than one chunk, {_frac(row['chunks_changed'], row['chunks'])} chunks"
        )
    return lines


def format_stats(stats: dict) -> list[str]:
    """The statistics as lines a person reads (every count with its denominator)."""
    lines = [
        f"corpus: seed {stats['seed']}, n {stats['n']}: {stats['instances']} instances, "
        f"{stats['documents']} documents ({stats['filler_documents']} filler)",
        "chunks: " + ", ".join(f"{k} {v}" for k, v in stats["chunk_counts"].items()),
    ]
    boundary = stats["boundary"]
    n = boundary["n"]
    if n:
        lines.append(f"boundary spans (n={n}):")
        for name, row in boundary["chunkings"].items():
            by_class = ", ".join(
                f"{k} {_frac(v['count'], v['n'])}" for k, v in row["header_by_length_class"].items()
            )
            lines.append(
                f"  {name:<30} cut {_frac(row['span_cut'], n)}, "
                f"whole {_frac(row['span_preserved'], n)}, "
                f"header in answer chunk {_frac(row['header_in_answer_chunk'], n)} ({by_class})"
            )
    lines += _overlap_rule_lines(stats.get("overlap_rules") or {})
    tables = stats["table_split"]
    if any(v["n"] for v in tables.values()):
        lines.append(
            "table_split header and answer row in one chunk: "
            + ", ".join(f"{k} {_frac(v['together'], v['n'])}" for k, v in tables.items())
        )
    dup = stats["near_duplicates"]
    lines.append(f"closest instance pair per probe (token Jaccard, threshold {dup['threshold']}):")
    for probe, row in dup["within"].items():
        if row["pair"]:
            lines.append(f"  {probe:<20} {row['jaccard']:.2f}  {row['pair'][0]} ~ {row['pair'][1]}")
        else:
            lines.append(f"  {probe:<20} n/a   {row.get('reason', '')}")
    across = dup["across"]
    if across:
        lines.append(
            f"  {'across probes':<20} {across['jaccard']:.2f}  "
            f"{across['pair'][0]} ~ {across['pair'][1]}"
        )
    sel = stats["anchor_selectivity"]
    if sel["questions"]:
        lines.append(
            f"anchor selectivity at {sel['chunking']} ({sel['chunks']} chunks): chunks holding "
            f"each question's anchor: min {sel['min']}, median {sel['median']}, "
            f"max {sel['max']}; "
            f"{_frac(sel['single_chunk'], sel['questions'])} questions narrow to a single chunk "
            f"({len(sel['single_chunk_probes'])} probes: {', '.join(sel['single_chunk_probes'])})"
        )
    return lines
