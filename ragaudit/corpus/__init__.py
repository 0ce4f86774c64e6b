"""The planted-fault corpus: probes assembled with filler, written to and read from
`corpus/` against its manifest, and the instrument statistics that prove the faults."""
