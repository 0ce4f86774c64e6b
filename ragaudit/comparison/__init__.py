"""Two results files compared: the same (probe, config, embedder) cells under both runs, as
both recorded rates, the paired per-instance flips each way and an exact McNemar test on
them, after a check that the two runs asked the same questions of the same models
(`provenance`). `pairing` pairs the cells, `document` writes them as report blocks, and
`compare` is the whole of it as one library function."""
