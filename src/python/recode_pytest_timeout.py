"""A per-test time limit for pytest, for Pythons without pytest-timeout.

Loaded by pytest_entry.py with `-p recode_pytest_timeout
--recode-timeout=N` when test.sh asks for `--timeout N` and pytest-timeout is
not installed. Like pytest-timeout's signal method, a test (setup, call and
teardown) that runs longer than N seconds fails with "Timeout >Ns"; a
`@pytest.mark.timeout(seconds)` marker sets the limit of one test. Needs
SIGALRM (POSIX); elsewhere it does nothing.
"""

import signal

import pytest


def pytest_addoption(parser):
    parser.addoption("--recode-timeout", type=float, default=0.0,
                     help="fail a test that runs longer than this many seconds (0: no limit)")


def pytest_configure(config):
    config.addinivalue_line("markers", "timeout(seconds): fail the test when it runs longer than this")


def _limit(item):
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        try:
            return float(marker.args[0])
        except (TypeError, ValueError):
            pass
    return item.config.getoption("--recode-timeout")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    limit = _limit(item)
    if not limit or limit <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def on_alarm(signum, frame):
        pytest.fail("Timeout >%ss" % (int(limit) if limit == int(limit) else limit), pytrace=False)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
