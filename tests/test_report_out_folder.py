"""Where `ragaudit report` writes: beside a results file of the user's, but never inside the
package (the shipped reference) or a read-only folder: there, the data folder's results/."""

from __future__ import annotations

import json
import os

import pytest
from helpers.analysis_fixtures import analysed_results

from ragaudit.cli.main import main
from ragaudit.results.reference import REFERENCE_FILE


def test_the_shipped_references_report_goes_to_the_data_folder(ragaudit_home, capsys):
    before = sorted(p.name for p in REFERENCE_FILE.parent.iterdir())
    assert main(["report", "--results", str(REFERENCE_FILE)]) == 0
    out = capsys.readouterr().out
    results = ragaudit_home / "results"
    written = sorted(p.name for p in results.iterdir())
    assert written == ["report-reference.html", "report-reference.md"]
    assert (
        f"{REFERENCE_FILE} ships with ragaudit: the report goes to the data folder's results/"
        in out
    )
    assert f"wrote {results / 'report-reference.md'}" in out
    assert sorted(p.name for p in REFERENCE_FILE.parent.iterdir()) == before  # package untouched


def test_a_users_file_still_gets_its_report_beside_it(ragaudit_home, tmp_path, capsys):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(analysed_results()))
    assert main(["report", "--results", str(path), "--format", "md"]) == 0
    assert (tmp_path / "report.md").is_file()
    assert not (ragaudit_home / "results").exists()
    assert "data folder" not in capsys.readouterr().out


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder anyway")
def test_a_read_only_folders_report_goes_to_the_data_folder(ragaudit_home, tmp_path, capsys):
    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "theirs.json"
    path.write_text(json.dumps(analysed_results()))
    folder.chmod(0o555)
    try:
        assert main(["report", "--results", str(path), "--format", "md"]) == 0
    finally:
        folder.chmod(0o755)
    assert (ragaudit_home / "results" / "report-theirs.md").is_file()
    assert "is in a read-only folder" in capsys.readouterr().out
