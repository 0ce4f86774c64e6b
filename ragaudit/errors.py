"""User-facing errors: each prints as one line naming the file, field or value at fault."""


class RagauditError(Exception):
    """An error the CLI prints as one line (no traceback) and exits 2 on."""


class ModelCallFailed(RagauditError):
    """A model call failed after its retries; the caller records it, never drops it."""
