"""ragaudit: find out how a retrieval-augmented generation stack really fails."""

__version__ = "0.1.0"
