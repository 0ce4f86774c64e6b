"""Cases mined from the user's own documents, phrased in their language and verified."""
