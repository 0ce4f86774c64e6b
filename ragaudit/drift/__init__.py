"""Test-vs-production drift (the originating study's audit, "why the test missed it"):
retrieval constants read from the code and configuration both sides really run (Python,
JavaScript/TypeScript, YAML/JSON, `.env`), matched to canonical constants by name, and
compared one by one with the looser side named. `ragaudit drift` is the command;
`ragaudit.drift.settings` compares two settings files with the same directions."""
