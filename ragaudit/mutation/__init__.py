"""Mutation audit: plant known faults in a user's own corpus and score their stack on them."""
