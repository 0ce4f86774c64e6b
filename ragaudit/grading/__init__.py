"""Per-kind graders (value, list, abstain, polarity) and the text matching they share.

`ragaudit.grading.grade` dispatches to these; each returns a verdict dict with its branch.
"""
