"""Run a shared task's tests under pytest, as the official RECODE-H test.sh does.

Usage: python pytest_entry.py <run>/config.json

The run folder holds `work/` (the repository with the candidate, canonical.py
and test.py in place), `plugins/` (recode_pytest_report.py, which keeps each
test's report within what the JUnit report can hold,
recode_pytest_collected.py, which writes the ids of the tests collected, and
recode_pytest_timeout.py) and config.json:
{"cwd", "test_dir", "pythonpath": [...], "timeout_s": int | null,
"limit_s": float}, folders relative to work/. This starts
`python -m pytest <test_dir>/test.py --junitxml=<run>/report.xml
--recode-collected=<run>/collected.json [--timeout=N]` in `cwd` with PYTHONPATH set to the `pythonpath` folders, as
clean_test_runner.py does; it interrupts pytest (SIGINT, then SIGKILL) when
the wall clock `limit_s` runs out. Then it reads the JUnit report and writes
one JSON line to file descriptor 3: {"report": {"totals", "cases"} | null,
"report_error", "exit", "timed_out", "stopped", "killed", "output",
"collected": [node ids] | null}. SIGUSR1
stops the run the same way (the user's Stop); on SIGTERM pytest is killed at
once and nothing is reported. pytest runs in a
process of its own, which does not inherit descriptor 3.
"""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

OUTPUT_CAP = 8000
TEXT_CAP = 20000
# pytest writes its report after an interrupt; on a busy machine that takes seconds.
GRACE_S = 5.0
# Collected test ids reported at most (each cut at 500 characters).
COLLECTED_CAP = 5000
# The JUnit report as read: code under test can write the file pytest reports to (a shared task's tests run in
# its interpreter), so what is read of it is bounded: its size, its test cases, and their text in all.
REPORT_BYTES_CAP = 32 * 1024 * 1024
CASES_CAP = 5000
TOTAL_TEXT_CAP = 8_000_000

_stop = {"requested": False}


def _on_stop(signum, frame):
    _stop["requested"] = True


def _int(value):
    try:
        return int(float(value or 0))
    except ValueError:
        return 0


class ReportError(Exception):
    """The JUnit report is not one pytest writes (too large, too many cases, declarations)."""


def read_report(path):
    """The JUnit report as {"totals", "cases"}; raises when it is not one. Bounded: at most REPORT_BYTES_CAP
    bytes read, CASES_CAP test cases, and TOTAL_TEXT_CAP characters of messages, tracebacks and output in all
    (past it, each text is cut to what is left); a document type or entity declaration, which pytest never
    writes (an entity can expand a small file a hundredfold), is refused."""
    with open(path, "rb") as f:
        data = f.read(REPORT_BYTES_CAP + 1)
    if len(data) > REPORT_BYTES_CAP:
        raise ReportError("it is larger than %d MB" % (REPORT_BYTES_CAP // (1024 * 1024)))
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ReportError("it declares a document type or entities, which pytest never writes")
    root = ET.fromstring(data)
    del data
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    totals = {k: sum(_int(s.get(k)) for s in suites) for k in ("tests", "errors", "failures", "skipped")}
    cases = []
    left = [TOTAL_TEXT_CAP]

    def kept(text, cap, tail=True):
        text = text[-cap:] if tail else text[:cap]
        text = text[-left[0]:] if tail and left[0] else text[: left[0]]
        left[0] -= len(text)
        return text

    for suite in suites:
        for case in suite.iter("testcase"):
            if len(cases) == CASES_CAP:
                raise ReportError("it holds more than %d test cases" % CASES_CAP)
            outcome, message, text = "passed", "", ""
            for tag in ("failure", "error", "skipped"):
                el = case.find(tag)
                if el is not None:
                    outcome, message, text = tag, el.get("message") or "", el.text or ""
                    break
            try:
                seconds = float(case.get("time") or 0)
            except ValueError:
                seconds = 0.0
            cases.append({
                "classname": (case.get("classname") or "")[:500],
                "name": (case.get("name") or "")[:500],
                "time": seconds,
                "outcome": outcome,
                "message": kept(message, 2000, tail=False),
                "text": kept(text, TEXT_CAP),
                "stdout": kept(case.findtext("system-out") or "", TEXT_CAP),
                "stderr": kept(case.findtext("system-err") or "", TEXT_CAP),
            })
    return {"totals": totals, "cases": cases}


def read_collected(path):
    """The node ids recode_pytest_collected.py wrote (at most COLLECTED_CAP), or None when there are none to read."""
    try:
        with open(path, encoding="utf-8") as f:
            ids = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return None
    return [i[:500] for i in ids[:COLLECTED_CAP]]


def read_started(path):
    """The node id of the last test pytest began (recode_pytest_collected.py), or None when it began none."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(500).strip() or None
    except (OSError, ValueError):
        return None


def main():
    # Descriptors beyond the four the host gave (0-2, and 3 for events) were inherited from whatever started
    # recode (a shell's open folder leads out of the box): closed before any code under test runs.
    os.closerange(4, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536)
    cfg_path = os.path.abspath(sys.argv[1])
    root = os.path.dirname(cfg_path)
    with open(cfg_path, encoding="utf-8") as f:
        cfg = json.load(f)
    work = os.path.join(root, "work")
    cwd = os.path.normpath(os.path.join(work, cfg["cwd"]))
    test_file = os.path.normpath(os.path.join(work, cfg["test_dir"], "test.py"))
    report = os.path.join(root, "report.xml")
    paths = [os.path.normpath(os.path.join(work, p)) for p in cfg["pythonpath"]]
    paths.append(os.path.join(root, "plugins"))
    collected = os.path.join(root, "collected.json")
    started = os.path.join(root, "started.txt")
    cmd = [sys.executable, "-m", "pytest", test_file, "--junitxml=" + report, "-p", "no:cacheprovider",
           "-p", "recode_pytest_report", "-p", "recode_pytest_collected", "--recode-collected=" + collected,
           "--recode-started=" + started]
    timeout = cfg.get("timeout_s")
    if timeout:
        if importlib.util.find_spec("pytest_timeout") is not None:
            cmd.append("--timeout=%d" % timeout)
        else:
            # Without pytest-timeout, a plugin of the same behaviour (a test over time fails with "Timeout >Ns").
            cmd += ["-p", "recode_pytest_timeout", "--recode-timeout=%d" % timeout]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    output_path = os.path.join(root, "output.txt")
    timed_out = killed = False
    # SIGUSR1: the user stopped the run (handled like the end of the wall clock);
    # SIGTERM: the host gives up, and pytest goes with this process.
    signal.signal(signal.SIGUSR1, _on_stop)
    with open(output_path, "wb") as output:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, start_new_session=True)

        def on_term(signum, frame):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            finally:
                os._exit(143)

        signal.signal(signal.SIGTERM, on_term)
        deadline = time.monotonic() + max(float(cfg["limit_s"]), 0.1)
        while proc.poll() is None and not _stop["requested"] and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGINT)
                proc.wait(timeout=GRACE_S)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                killed = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        # Whatever the tests left running in their group ends with the run.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    with open(output_path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(f.tell() - OUTPUT_CAP, 0))
        tail = f.read().decode("utf-8", "replace")
    result = {"report": None, "report_error": None, "exit": None if killed else proc.returncode,
              "timed_out": timed_out, "stopped": _stop["requested"], "killed": killed, "output": tail}
    if os.path.exists(report):
        try:
            result["report"] = read_report(report)
        except Exception as e:  # a report pytest did not finish, or not XML, or not one pytest writes
            result["report_error"] = "the JUnit report could not be read (%s)" % e
    else:
        result["report_error"] = "no JUnit report was written"
    result["collected"] = read_collected(collected)
    result["started"] = read_started(started)
    # (A lone surrogate, from a collected.json code under test rewrote, is written as its JSON escape.)
    with os.fdopen(3, "w", encoding="utf-8", errors="backslashreplace") as channel:
        channel.write(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
