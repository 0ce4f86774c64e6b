"""The report: tables and findings read from a results file, rendered to Markdown/HTML."""
