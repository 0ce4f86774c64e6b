"""`ragaudit harness-check`: failure handling in evaluation and benchmark scripts that hides
failures (the originating study's audit, "the evaluation harness was lying to us": an
empty catch turned one network hiccup into a question answered with no references, and a
normal-looking score). Python is read through `ast`, JavaScript and TypeScript through
tree-sitter (ragaudit.codescan.sources)."""
