"""The results file: its schema, atomic io, and the one read-side view and formatter that
the report and the inspector share."""
