"""The planted-fault probes: one module per probe, each declaring itself as `PROBE = Probe(...)`
(probes.base); probes.catalogue says where each lives and in what order, and builds the
registry. Beside them, the material the probes share: facts, codes, pools, filler, text."""
