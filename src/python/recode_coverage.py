"""Line coverage of a task's target file by its tests, standard library only.

Trusted tooling for ``recode tasks validate`` (the "coverage" gate): it runs a
task's canonical solution, which the task's author wrote, never candidate
code, and it runs apart from the harness (the harness counts tracing and
``sys.monitoring`` tools as tampering). It is run by the same interpreters as
the tests: native python3 (in the native backend's box) and Pyodide (in a
process of its own, see coverage-pyodide-entry.mjs).

- Executable lines are the line numbers of the compiled code objects of the
  target file (``co_lines()`` of the module's code and of every code object
  nested in its constants), not a reading of the text.
- Executed lines are recorded with ``sys.monitoring`` LINE events where the
  interpreter has them (3.12+, Pyodide 3.14), else with ``sys.settrace``
  (python3 3.11), for code of the target file only.
- The tests run with unittest's own suite machinery; ``recode_check.check``
  sends its values to a sink that drops them (values are not compared here:
  the other checks of ``validate`` do that).

``measure(config)`` takes ``{"workdir", "target", "tests_file"}`` (the run
folder holding the repository files, the target file at ``target`` and the
tests) and returns ``{"method", "python", "executable": [lines], "executed":
[lines], "missing": [lines], "tests": n, "problems": [test id: message]}``.
Run as a script it reads the config from ``argv[1]`` and writes the result as
one JSON line to file descriptor 3.
"""

import importlib.util
import io
import json
import os
import random
import sys
import types
import unittest

import recode_check

TEST_MODULE = "recode_coverage_tests"


def executable_lines(source, filename):
    """Line numbers (1-based, sorted) that hold code of ``source``: those of
    the compiled module and of every code object nested in it (functions,
    classes, lambdas, comprehensions)."""
    code = compile(source, filename, "exec", dont_inherit=True)
    lines = set()
    stack = [code]
    while stack:
        c = stack.pop()
        for _start, _end, line in c.co_lines():
            if line is not None and line > 0:
                lines.add(line)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return sorted(lines)


class LineRecorder:
    """Records the lines executed in one file, with ``sys.monitoring`` when the
    interpreter has it, else ``sys.settrace``."""

    def __init__(self, filename):
        self.filename = os.path.realpath(filename)
        self.lines = set()
        self._names = {}
        mon = getattr(sys, "monitoring", None)
        self.method = "sys.monitoring" if mon is not None else "sys.settrace"

    def _ours(self, name):
        hit = self._names.get(name)
        if hit is None:
            hit = os.path.realpath(name) == self.filename if not name.startswith("<") else False
            self._names[name] = hit
        return hit

    def start(self):
        if self.method == "sys.monitoring":
            mon = sys.monitoring
            tool = mon.COVERAGE_ID
            mon.use_tool_id(tool, "recode coverage")
            lines, ours, disable = self.lines, self._ours, mon.DISABLE

            def on_line(code, line):
                if ours(code.co_filename):
                    lines.add(line)
                # Each location reports once: the rest of the run is not slowed down.
                return disable

            mon.register_callback(tool, mon.events.LINE, on_line)
            mon.set_events(tool, mon.events.LINE)
            # Locations a measure before this one disabled report again.
            mon.restart_events()
        else:
            import threading

            lines, ours = self.lines, self._ours

            def local(frame, event, _arg):
                if event == "line":
                    lines.add(frame.f_lineno)
                return local

            def global_trace(frame, _event, _arg):
                return local if ours(frame.f_code.co_filename) else None

            threading.settrace(global_trace)
            sys.settrace(global_trace)

    def stop(self):
        if self.method == "sys.monitoring":
            mon = sys.monitoring
            mon.set_events(mon.COVERAGE_ID, 0)
            mon.register_callback(mon.COVERAGE_ID, mon.events.LINE, None)
            mon.free_tool_id(mon.COVERAGE_ID)
        else:
            import threading

            sys.settrace(None)
            threading.settrace(None)


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


def _test_id(test):
    test = getattr(test, "test_case", test)  # a failing subTest: its test
    return f"{type(test).__name__}.{getattr(test, '_testMethodName', 'test')}"


def _first_line(err):
    text = str(err[1]).strip().splitlines()
    return f"{err[0].__name__}: {text[0][:200]}" if text else err[0].__name__


def measure(config):
    """Run the tests once under the line recorder; see the module docstring."""
    workdir = os.path.abspath(config["workdir"])
    target = os.path.join(workdir, config["target"])
    with open(target, encoding="utf-8") as f:
        source = f.read()
    executable = executable_lines(source, target)
    modules = set(sys.modules)
    saved = (list(sys.path), os.getcwd(), sys.stdout, sys.stderr, recode_check.MODE, recode_check.SINK, recode_check.NUMPY, sys.dont_write_bytecode)
    recorder = LineRecorder(target)
    problems = []
    ran = 0
    try:
        os.chdir(workdir)
        sys.path.insert(0, workdir)
        sys.dont_write_bytecode = True
        random.seed(0)
        recode_check.MODE = "harness"
        recode_check.SINK = lambda *_args: None
        recode_check.NUMPY = sys.modules.get("numpy")
        sys.stdout = sys.stderr = io.StringIO()
        recorder.start()
        try:
            spec = importlib.util.spec_from_file_location(TEST_MODULE, os.path.join(workdir, config["tests_file"]))
            module = importlib.util.module_from_spec(spec)
            sys.modules[TEST_MODULE] = module
            spec.loader.exec_module(module)
            tests = list(_flatten(unittest.defaultTestLoader.loadTestsFromModule(module)))
            result = unittest.TestResult()
            unittest.TestSuite(tests).run(result)
            ran = result.testsRun
            for test, err in result.failures + result.errors:
                problems.append(f"{_test_id(test)}: {err.strip().splitlines()[-1][:200]}")
            for test, reason in result.skipped:
                problems.append(f"{_test_id(test)}: skipped ({reason})")
        except BaseException as exc:  # noqa: BLE001 - any import failure is reported
            problems.append(f"the tests could not be imported: {_first_line((type(exc), exc, None))}")
        finally:
            recorder.stop()
    finally:
        sys.path[:], cwd, sys.stdout, sys.stderr, recode_check.MODE, recode_check.SINK, recode_check.NUMPY, sys.dont_write_bytecode = saved
        os.chdir(cwd)
        for name in set(sys.modules) - modules:
            del sys.modules[name]
    executed = sorted(recorder.lines & set(executable))
    return {
        "method": recorder.method,
        "python": sys.version.split()[0],
        "executable": executable,
        "executed": executed,
        "missing": sorted(set(executable) - recorder.lines),
        "tests": ran,
        "problems": problems,
    }


def measure_json(config_text):
    """``measure`` with the config and the result as JSON text (Pyodide's entry)."""
    return json.dumps(measure(json.loads(config_text)))


def _main():
    # Descriptors beyond the four the host gave (0-2, and 3 for events) were inherited from whatever started
    # recode (a shell's open folder leads out of the box): closed before any code under test runs.
    os.closerange(4, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536)
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    text = json.dumps(measure(config))
    with os.fdopen(3, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    # Do not wait for threads the tests left running.
    os._exit(0)


if __name__ == "__main__":
    _main()
