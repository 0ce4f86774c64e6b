"""The threshold sweep is recorded point by point, so the inspector can plot it from the file."""

from ragaudit.analysis.detectability import threshold_sweep


def test_the_recorded_sweep_holds_every_cut_and_the_best_one():
    fail = [0.50, 0.55, 0.60, 0.62, 0.70]
    passing = [0.65, 0.72, 0.80, 0.81, 0.90, 0.95]
    result = threshold_sweep(fail, passing)
    points = result["points"]
    cuts = [p["cut"] for p in points]
    assert cuts == sorted(cuts) and len(cuts) == len(set(fail) | set(passing))
    best = next(p for p in points if p["cut"] == result["cut"])
    assert (best["catches"], best["false_positives"]) == (
        result["catches"],
        result["false_positives"],
    )
    # A cut below every score flags nothing; one above every score flags everything.
    assert points[0]["catches"] == 1 and points[-1] == {
        "cut": points[-1]["cut"],
        "catches": 5,
        "false_positives": 6,
    }
