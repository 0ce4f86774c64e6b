"""A toy ragaudit plugin: one entry in each entry-point group ragaudit reads."""
