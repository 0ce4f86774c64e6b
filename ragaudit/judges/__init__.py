"""Judges: third-party LLM-judge metrics (RAGAS, DeepEval) run through their real libraries
against an OpenAI-compatible judge server, every call recorded in the call cache, and
scored against ragaudit's own verdicts per probe and failure kind (docs/judges.md)."""
