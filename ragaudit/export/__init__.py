"""Data out: the results file's instance records as one flat table (one row per record, the
diagnostics and the verdict in columns), written as CSV or Parquet (docs/export.md)."""
