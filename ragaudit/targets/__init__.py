"""What the user brings: their system under test, described by a stack file and built.

One package for every form of it: the stack-file and `pipeline:` schemas and their parsing
(`stackfile`, `stackfile_schema`, `pipeline_schema`, `response_paths`), components by import
path under time and size bounds (`components`, `bounded`), their splitter with each chunk
located in its document (`splitter`, `locate`), their retriever (`retriever`), their whole
pipeline (`pipeline/`: factory, query engine, Runnable, callable or `http:`, ingest, and the
contexts it used located), and `column`, the one column that `run`, `audit` and `mutate`
build from a parsed stack (runner.stack_stage, auditing.target, mutation.column)."""
