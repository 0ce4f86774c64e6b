"""Model backends behind two contracts (backends.base: `EmbeddingEngine`, `GenerationEngine`):
the in-process `local:` models, Ollama and any OpenAI-compatible server, declared in
backends.catalogue and built from a spec string (backends.specs); the call cache and the
cache-aware fronts every engine is wrapped in; and where the calls run (this process or Ray)."""
