"""Writes the ids of the tests pytest collected, before any of them runs.

Loaded by pytest_entry.py with `-p recode_pytest_collected
--recode-collected=FILE`. When the run's time limit interrupts pytest, its
JUnit report holds only the tests that finished; this list names the others
(each case of a parametrised test by its own id, `test_scale[2-4]`), so that
each is reported as not finished. FILE gets one JSON list of pytest node ids
(`tests/test.py::TestNorm::test_zero[2-4]`).
"""

import json


def pytest_addoption(parser):
    parser.addoption("--recode-collected", default="", help="write the collected tests' node ids to this file (JSON)")


def pytest_collection_finish(session):
    path = session.config.getoption("--recode-collected")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump([item.nodeid for item in session.items], f)
