"""The RAG stack under test: configs and presets as frozen data, chunking, the Chroma
index, and the one retrieval core (dense, BM25, fusion) shared by the matrix, the Lab
and the audit."""
