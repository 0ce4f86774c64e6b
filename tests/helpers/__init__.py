"""Helpers the tests share: fixtures, stand-in servers and builders of results files."""
