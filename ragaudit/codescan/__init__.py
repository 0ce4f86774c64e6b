"""Reading a project's own source files: Python through `ast`, JavaScript and TypeScript
through tree-sitter. `ragaudit drift` reads retrieval constants from them and `ragaudit
harness-check` looks in them for failure handling that hides failures."""
