"""Zero-config mutate: `ragaudit mutate DOCS --stack FILE` with no case file mines and
verifies cases first (ragaudit.casemining.run), keeps them in the data folder under the
corpus digest, the generator, the seed, the number wanted and the miner's own code, and
writes a copy beside the results so the user can review and pin them. A second run over
the same corpus reads the kept file and asks nothing; only the verified intents are used,
never an unverified fact."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ragaudit import paths
from ragaudit.auditing.cases import IntentSpec
from ragaudit.auditing.corpus_io import as_corpus
from ragaudit.casemining.casefile import write_case_file
from ragaudit.casemining.run import DEFAULT_CASES_GENERATOR, CasesOptions, corpus_digest, make_cases
from ragaudit.errors import RagauditError
from ragaudit.fileio.text import parse_yaml, read_text


def miner_digest() -> str:
    """The mining code itself (ragaudit/casemining and ragaudit/values): cases kept by an
    earlier miner are mined again, not reused, once its rules change (the call cache
    replays every call they share)."""
    digest = hashlib.sha256()
    for package in ("casemining", "values"):
        for source in sorted((Path(__file__).parents[1] / package).glob("*.py")):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def mined_cases_path(digest: str, spec: str, options: CasesOptions) -> Path:
    """Where the cases mined for a corpus digest, a generator, `options` and this miner
    are kept."""
    wanted = f"{options.seed}\0{options.max_cases}\0{options.max_per_document}\0{options.all_kinds}"
    key = hashlib.sha256(f"{digest}\0{spec}\0{wanted}\0{miner_digest()}".encode()).hexdigest()
    key = key[:16]
    return paths.data_dir() / "cases" / f"mined-{key}.yaml"


def cases_for_mutate(options: CasesOptions, beside: Path | None) -> tuple[list[IntentSpec], str]:
    """The verified intents for a mutate run without cases, and the one line that says where
    they came from. `beside`: the results file the copy is written next to
    (`<stem>.cases.yaml`)."""
    corpus = as_corpus(options.documents)
    spec = options.generator or DEFAULT_CASES_GENERATOR
    digest = corpus_digest(corpus.documents)
    kept = mined_cases_path(digest, spec, options)
    if kept.exists():
        document, _ = parse_yaml(read_text(kept, "mined cases"), kept)
        how = "reused"
    else:
        options.documents = corpus
        document = make_cases(options)
        kept.parent.mkdir(parents=True, exist_ok=True)
        write_case_file(kept, document)
        how = "mined"
    counts = document["counts"]
    if not counts["kept"]:
        raise RagauditError(
            f"no case given and none could be mined: {counts['checked']} facts checked, none "
            f"kept (reasons in {kept}); write a case file and pass it"
        )
    copy = beside.with_name(f"{beside.stem}.cases.yaml") if beside is not None else None
    if copy is not None:
        write_case_file(copy, document)
    line = (
        f"cases: {how} {counts['kept']} verified cases for corpus sha256 {digest[:12]} with "
        f"{spec} (seed {options.seed}): {kept}"
        + (f"; a copy to review and pin: {copy}" if copy is not None else "")
    )
    return [IntentSpec.model_validate(i) for i in document["intents"]], line
