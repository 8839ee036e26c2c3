"""Keeps each test's report within what the JUnit report can hold.

Loaded by pytest_entry.py with `-p recode_pytest_report`. A failure whose
text runs to many megabytes (an assertion message of 50 MB, a test that
prints as much) is written by pytest's junitxml two or three times over,
and the run's file-size limit then cuts the report short: the whole run
read as "pytest wrote no report", every test's result lost. So, before
junitxml and the terminal read a report, a failure's text longer than
`TEXT_CAP` characters is cut to its head and tail, the cut marked, and its
one-line message to `MESSAGE_CAP`; captured output longer than `TEXT_CAP`
keeps its tail. Reports within the caps are left as pytest made them.
"""

import pytest

# Characters kept of a failure's text and of each captured output (within the last 20000 of each, which
# the host reads: a cut text reaches it whole, the mark included).
TEXT_CAP = 16000
# Of a failure's text, the characters kept from its start (where the traceback names the files and lines), the
# rest from its end (where the error is).
HEAD = 4000
# Characters kept of a failure's one-line message (the host reads the first 2000).
MESSAGE_CAP = 4000


def _cut(text, cap=TEXT_CAP, head=HEAD):
    if len(text) <= cap:
        return text
    tail = cap - head
    return f"{text[:head]}\n[... {len(text) - cap} characters cut ...]\n{text[-tail:]}"


class _Crash:
    """Where a cut failure was raised and its message (what junitxml and the summary read of ``reprcrash``)."""

    def __init__(self, crash):
        self.path = getattr(crash, "path", "")
        self.lineno = getattr(crash, "lineno", 0)
        self.message = _cut(str(getattr(crash, "message", "")), MESSAGE_CAP, MESSAGE_CAP // 2)


class _CutReport:
    """A failure's report cut to its head and tail (pytest writes a text without ``toterminal`` as it is)."""

    def __init__(self, longrepr, text):
        crash = getattr(longrepr, "reprcrash", None)
        self.reprcrash = _Crash(crash) if crash is not None else None
        self.text = _cut(text)

    def __str__(self):
        return self.text


def _keep_small(report):
    longrepr = report.longrepr
    if longrepr is not None and not isinstance(longrepr, tuple):
        text = longrepr if isinstance(longrepr, str) else str(longrepr)
        crash = getattr(longrepr, "reprcrash", None)
        if len(text) > TEXT_CAP or len(str(getattr(crash, "message", ""))) > MESSAGE_CAP:
            report.longrepr = _CutReport(longrepr, text)
    if any(len(content) > TEXT_CAP for _, content in report.sections):
        report.sections = [(title, _cut(content, TEXT_CAP, 0)) for title, content in report.sections]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    _keep_small(report)


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report):
    _keep_small(report)
