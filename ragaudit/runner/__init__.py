"""The stages a run goes through, in order: retrieve (every embedder x chunking x config x
instance), diagnostics, generate, and the orchestrator that hands each its inputs."""
