"""Writes the ids of the tests pytest collected, before any of them runs, and the id of each test as it begins.

Loaded by pytest_entry.py with `-p recode_pytest_collected
--recode-collected=FILE --recode-started=FILE2`. When the run's time limit
interrupts pytest, its JUnit report holds only the tests that finished; this
list names the others (each case of a parametrised test by its own id,
`test_scale[2-4]`), so that each is reported as not finished, and FILE2 says
which of them was running (the others were not run). FILE gets one JSON list
of pytest node ids (`tests/test.py::TestNorm::test_zero[2-4]`); FILE2 the node
id of the last test pytest began.
"""

import json

import pytest


def pytest_addoption(parser):
    parser.addoption("--recode-collected", default="", help="write the collected tests' node ids to this file (JSON)")
    parser.addoption("--recode-started", default="", help="write the node id of each test as it begins to this file")


def pytest_collection_finish(session):
    path = session.config.getoption("--recode-collected")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump([item.nodeid for item in session.items], f)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    path = item.config.getoption("--recode-started")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(item.nodeid)
