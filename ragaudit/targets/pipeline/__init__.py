"""A user's whole pipeline as one target: a black box that answers a question and says which
contexts it used, each context located in the corpus by alignment (runner.pipeline_stage
makes it a stage of a run; mutation.column rebuilds it per mutated corpus)."""
