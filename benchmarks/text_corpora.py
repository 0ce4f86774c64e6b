"""`python -m benchmarks.text_corpora OUT`: real manuals as text-corpus folders (one .txt
per page, read by `ragaudit.auditing.corpus_io.read_user_corpus`), for the benchmarks that
need documents nobody here wrote. Cached: a page converted before is not converted again.

- `man_pages(source, out)`: each roff page of a man folder (`/usr/share/man/de`) rendered
  as a person would save it: `MANWIDTH=80 man --nj --nh -l PAGE | col -b` (no justification
  and no hyphenation, so a word is never cut in two at a line end), into OUT/<section>/<page>.txt.
- `git_doc(out)`: the Git manual's text pages as Debian's `git-doc` installs them
  (/usr/share/doc/git-doc/**/*.txt), copied without the HTML twins beside them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

GIT_DOC = Path("/usr/share/doc/git-doc")
MAN_ENV = {"MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MAN_KEEP_FORMATTING": ""}


def man_pages(source: Path, out: Path, *, limit: int | None = None, workers: int = 2) -> Path:
    """Render every man page under `source` (its man1..man8 folders; the first `limit` in
    sorted order) into `out`, skipping pages already rendered. Returns `out`."""
    pages = sorted(p for p in source.glob("man*/*") if p.is_file())[:limit]
    todo = [(page, _page_text_path(page, out)) for page in pages]
    todo = [(page, target) for page, target in todo if not target.exists()]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda pair: _render(*pair), todo))
    return out


def _page_text_path(page: Path, out: Path) -> Path:
    name = page.name.removesuffix(".gz")
    return out / page.parent.name / f"{name}.txt"


def _render(page: Path, target: Path) -> None:
    env = {**os.environ, **MAN_ENV}
    man = subprocess.run(["man", "--nj", "--nh", "-l", str(page)], env=env,
                         capture_output=True, check=False)  # fmt: skip
    text = subprocess.run(["col", "-b"], input=man.stdout, env=env, capture_output=True,
                          check=False).stdout  # fmt: skip
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(text)  # an empty page is kept empty: the reader lists it as skipped
    partial.replace(target)


def git_doc(out: Path) -> Path:
    """The Git manual's .txt pages copied into `out` (their folders kept). Returns `out`."""
    for page in sorted(GIT_DOC.rglob("*.txt")):
        target = out / page.relative_to(GIT_DOC)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, target)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.text_corpora")
    parser.add_argument("out", type=Path, help="where the corpus folders are written")
    parser.add_argument("--man", action="append", default=[], metavar="NAME=FOLDER",
                        help="a man folder to render, e.g. de=/usr/share/man/de")  # fmt: skip
    parser.add_argument("--git-doc", action="store_true", help="copy the Git manual too")
    parser.add_argument("--limit", type=int, default=None, help="pages per man folder")
    args = parser.parse_args(argv)
    if args.git_doc:
        print(git_doc(args.out / "git-doc"))
    for spec in args.man:
        name, _, folder = spec.partition("=")
        print(man_pages(Path(folder), args.out / f"man-{name}", limit=args.limit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
