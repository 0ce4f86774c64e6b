"""One module per planted-fault probe; each registers itself in the registry it is given."""
