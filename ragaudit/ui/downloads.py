"""Download buttons for records, as `ragaudit export` writes them (docs/export.md): the chosen
cell's records on the Matrix page; the instance's records (under every config and embedder)
and its cell's on the Instance page. The files are built only when a button is clicked."""

from __future__ import annotations

import re

from ragaudit.export.table import FORMATS, MEDIA_TYPES, export_bytes, records_frame
from ragaudit.results.view import cell_records, column_for


def download_name(*parts: str, fmt: str) -> str:
    """A file name safe on every system: `ragaudit-boundary-A-local-minilm.csv`."""
    stem = "-".join(re.sub(r"[^A-Za-z0-9._]+", "-", part).strip("-") for part in parts)
    return f"ragaudit-{stem}.{fmt}"


def instance_all_records(results: dict, probe: str, instance_id: str) -> list[dict]:
    """Every record of one instance: each config and embedder it ran under, in file order."""
    return [
        r
        for r in results.get("instances") or []
        if r["probe"] == probe and r["instance_id"] == instance_id
    ]


def records_label(records: list[dict], what: str) -> str:
    """The line above a pair of buttons: what is downloaded and how many rows."""
    rows = "1 record" if len(records) == 1 else f"{len(records)} records"
    return f"**Download {what}**: {rows}, one a row (columns: docs/export.md)"


def _buttons(results: dict, records: list[dict], name: tuple[str, ...], key: str) -> None:
    """A CSV and a Parquet button for `records`; each file is built when clicked."""
    import streamlit as st

    with st.container(horizontal=True):
        for fmt in FORMATS:
            st.download_button(
                fmt.upper() if fmt == "csv" else fmt.capitalize(),
                data=lambda fmt=fmt: export_bytes(records_frame(results, records), fmt),
                file_name=download_name(*name, fmt=fmt),
                mime=MEDIA_TYPES[fmt],
                key=f"{key}_{fmt}",
                on_click="ignore",
                disabled=not records,
                icon=":material/download:",
            )


def render_cell_download(results: dict, embedder: str, probe: str, config: str) -> None:
    """The Matrix page's buttons for the chosen cell (a stack's under its own embedder)."""
    import streamlit as st

    cell_embedder = column_for(results, config, embedder).embedder
    records = cell_records(results, probe, config, cell_embedder)
    st.markdown(records_label(records, f"the records of {probe} × {config} ({cell_embedder})"))
    _buttons(results, records, (probe, config, cell_embedder), "matrix_download")


def render_instance_downloads(
    results: dict, probe: str, config: str, embedder: str, instance_id: str
) -> None:
    """The Instance page's buttons: the instance under every config and embedder, and the
    cell it was opened from."""
    import streamlit as st

    with st.expander("Download records (CSV or Parquet)"):
        records = instance_all_records(results, probe, instance_id)
        st.markdown(records_label(records, f"{instance_id} under every config and embedder"))
        _buttons(results, records, (instance_id,), "instance_download_instance")
        cell = cell_records(results, probe, config, embedder)
        st.markdown(records_label(cell, f"the records of {probe} × {config} ({embedder})"))
        _buttons(results, cell, (probe, config, embedder), "instance_download_cell")
