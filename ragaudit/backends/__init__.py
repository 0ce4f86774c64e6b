"""Model backends (embedded offline and Ollama) behind one small protocol, plus the call cache."""
