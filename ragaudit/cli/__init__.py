"""The command line: `main.py` holds the lazy command table; one module per subcommand."""
