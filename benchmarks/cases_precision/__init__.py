"""Precision of mined cases read by hand: draw a seeded sample of a cases file's kept
intents (`draw`), judge each against RUBRIC.md in the written file, and count (`summary`):
valid/n with its Wilson interval, and the invalid ones with why.

    python -m benchmarks.cases_precision draw CASES.yaml --n 40 --seed 44 --out judged.yaml
    python -m benchmarks.cases_precision summary judged.yaml
"""
