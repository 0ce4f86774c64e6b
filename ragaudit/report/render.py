"""Rendering report blocks as Markdown and as one self-contained HTML page."""

from __future__ import annotations

import html
import re

from ragaudit.results.format import NO_GOLD, NOT_RUN

Block = tuple
"""One piece of the report: ("h", level, text), ("p", text), ("table", headers, rows),
("ul", items), ("quote", text) or ("figure", caption, svg): a picture, inline SVG in the
HTML page and left out of the Markdown (whose tables carry the same figures)."""

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       color: #1d1d1f; line-height: 1.5; }
table { border-collapse: collapse; margin: 0.5rem 0 1.25rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; white-space: nowrap; }
th { background: #f2f2f2; }
td.not-run { color: #888; }
figure { margin: 0.5rem 0 1.5rem; overflow-x: auto; }
figcaption { font-size: 0.85rem; color: #5f6368; }
@media print { figure { break-inside: avoid; } }
blockquote { border-left: 4px solid #999; margin: 0.5rem 0 1rem; padding: 0.25rem 0.75rem;
             white-space: pre-wrap; background: #fafafa; font-family: ui-monospace, monospace; }
"""


def heading_anchor(text: str) -> str:
    """The anchor a heading gets, as GitHub makes it for Markdown and as the HTML page sets
    it: lower case, punctuation dropped, spaces as hyphens (`Correct answers, local:minilm`
    -> `correct-answers-localminilm`). A report links only headings it holds once."""
    kept = re.sub(r"[^\w\- ]", "", re.sub(r"[`*]", "", str(text)).lower())
    return kept.replace(" ", "-")


def _md_cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def blocks_to_markdown(blocks: list[Block]) -> str:
    """Markdown for report blocks: headings, paragraphs, pipe tables, lists, quotes."""
    out: list[str] = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append("#" * block[1] + " " + block[2])
        elif kind == "p":
            out.append(block[1])
        elif kind == "table":
            headers, rows = block[1], block[2]
            lines = ["| " + " | ".join(_md_cell(h) for h in headers) + " |"]
            lines.append("|" + "|".join(" --- " for _ in headers) + "|")
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            out.append("\n".join(lines) if rows else lines[0] + "\n" + lines[1] + "\n\n(none)")
        elif kind == "ul":
            out.append("\n".join(f"- {item}" for item in block[1]))
        elif kind == "quote":
            out.append("\n".join("> " + line for line in str(block[1]).splitlines() or [""]))
    return "\n\n".join(out) + "\n"


def _inline(text: str) -> str:
    # `code` first, so that ** inside a regex is not read as bold.
    parts = re.split(r"`([^`]+)`", str(text))
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(f"<code>{html.escape(part)}</code>")
        else:
            escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(part))
            # [words](#anchor): a link to a heading of the same page, the only kind drawn
            out.append(re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', escaped))
    return "".join(out)


def blocks_to_html(blocks: list[Block], *, title: str) -> str:
    """One HTML page for report blocks; all text escaped, no outside resources."""
    body: list[str] = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            anchor = heading_anchor(block[2])
            body.append(f'<h{block[1]} id="{anchor}">{_inline(block[2])}</h{block[1]}>')
        elif kind == "p":
            body.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(str(h))}</th>" for h in block[1])
            rows = []
            for row in block[2]:
                cells = "".join(
                    f'<td class="not-run">{html.escape(str(c))}</td>'
                    if c in (NOT_RUN, NO_GOLD)
                    else f"<td>{html.escape(str(c))}</td>"
                    for c in row
                )
                rows.append(f"<tr>{cells}</tr>")
            body.append(
                f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            )
        elif kind == "ul":
            items = "".join(f"<li>{_inline(item)}</li>" for item in block[1])
            body.append(f"<ul>{items}</ul>")
        elif kind == "quote":
            body.append(f"<blockquote>{html.escape(str(block[1]))}</blockquote>")
        elif kind == "figure":  # the SVG is markup report.svg escaped as it drew it
            body.append(f"<figure>{block[2]}<figcaption>{_inline(block[1])}</figcaption></figure>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
