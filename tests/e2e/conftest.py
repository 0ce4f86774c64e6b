"""The real-browser suite: Debian Chromium via Playwright against the app on 127.0.0.1.

Never `playwright install` (it downloads a browser): the launch points at /usr/bin/chromium.
"""

from __future__ import annotations

import pytest
from ui_browser_helpers import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch, on the system Chromium with loopback-only flags."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}
