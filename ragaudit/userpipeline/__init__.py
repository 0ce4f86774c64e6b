"""A user's whole pipeline as a stage of a run: a black box that answers a question and says
which contexts it used, each context located in the corpus by alignment (issue 26)."""
