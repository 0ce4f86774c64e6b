"""The user's own stack, read from a stack file: their splitter (llama-index or LangChain),
embedder and generator (any spec, OpenAI-compatible servers too) and, optionally, their
own retriever, run over the planted-fault corpus or their own corpus as one more column."""
