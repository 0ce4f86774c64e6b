"""The value shapes mining and mutate share: numbers, units, dates, settings, names."""
