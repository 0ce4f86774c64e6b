"""Audit a user's own retrieval: phrasings of one intent, duplicate cases, test-vs-production
drift, long-document dilution and subsection splitting (spec: the originating study's audit,
docs/configs.md)."""
