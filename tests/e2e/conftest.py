"""The real-browser suite: Debian Chromium via Playwright against the app on 127.0.0.1.

The browser's launch (the system Chromium, loopback-only flags) is set in tests/conftest.py,
shared with the top-level browser tests.
"""
