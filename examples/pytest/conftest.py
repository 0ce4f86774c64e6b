"""The example suite's one marker: the pipeline test loads a generator and takes minutes."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: loads a generator; minutes, not seconds")
