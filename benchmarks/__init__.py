"""Benchmarks: scripts that print a figure and its ratio to a baseline measured in the same
run. Each is a module here exposing `main(argv) -> int`, run from the top of a checkout as
`python -m benchmarks.NAME` (backends, matrix, generation, prefix, concurrency, ui,
ray_fanout, ray_scaling, gate, judges, mutate, pipeline, pipeline_n25, install_size,
ui_before_after).

They are for developers and are not part of the installed package: a wheel ships neither
this folder nor tests/ (tests/test_wheel_contents.py). The stand-in servers and the
synthetic results file they share with the tests live in tests/helpers and are imported
from there as `tests.helpers.*`.
"""
