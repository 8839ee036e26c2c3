"""test.py's module fixtures and module cleanups, run by unittest's suite alone.

unittest's suite finds ``setUpModule`` and ``tearDownModule`` by the module's
name in ``sys.modules``, and unittest keeps module cleanups
(``addModuleCleanup``, ``enterModuleContext``) in a list of ``unittest.case``'s:
code under test reaches both. test.py's own functions there led to its
namespace (``__globals__``, a bound method's ``__self__``, the arguments kept
beside them); its ``tearDownModule``, or its cleanups, called by code under
test during a test emptied the data a later test loops over; and the list,
emptied in place, dropped a check test.py made in a cleanup. Here:

- ``hold_module_cleanups``: unittest's ``addModuleCleanup`` (which its
  ``enterModuleContext`` calls) keeps each cleanup as a call of the harness's
  in a list that no code under test can reach; ``doModuleCleanups`` called
  during a run is refused. The suite runs the cleanups through the run's
  ``ModuleSteps``, which only the run holds.
- ``module_fixture``: what the module of fixtures holds in place of test.py's
  function: a call of it that runs only when the suite calls it, at its step.
- ``handle_module_fixture``, ``handle_module_teardown``: unittest's suite's own
  steps (``TestSuite._handleModuleFixture`` and ``_handleModuleTearDown``, the
  same from CPython 3.11 to 3.14), the cleanups run through the run's steps.
"""

import sys
import unittest
from unittest.suite import _call_if_exists, _DebugResult


class ModuleSteps:
    """What the run holds, and code under test cannot reach, to run test.py's module fixtures and cleanups:
    ``at`` (a one-item list: the fixture the suite is about to call, ``"setUpModule"`` or ``"tearDownModule"``,
    or None), ``run_cleanups()`` (every module cleanup, the last added first; raises the first error, as
    ``unittest.doModuleCleanups`` does) and ``pending()`` (whether any cleanup is left)."""

    __slots__ = ("at", "run_cleanups", "pending")

    def __init__(self, run_cleanups, pending):
        self.at = [None]
        self.run_cleanups, self.pending = run_cleanups, pending


def hold_module_cleanups():
    """Give unittest (``unittest`` and ``unittest.case``) an ``addModuleCleanup`` and a ``doModuleCleanups`` of
    the harness's. Returns ``began()``, which the harness calls once per run, before any code under test runs:
    it gives the run's ``ModuleSteps``; from then on ``doModuleCleanups`` raises ``RuntimeError`` (unittest's
    suite runs the cleanups, after ``tearDownModule`` or after a ``setUpModule`` that raised), and a second
    call of ``began`` raises ``RuntimeError``. Call before the guard notes unittest's modules.

    A cleanup is kept as a function of the harness's that makes the call, its function and arguments in the
    closure (which code under test cannot read: ``recode_guard.seal_closures``). What is put straight into
    ``unittest.case._module_cleanups`` runs too, after those."""
    case = unittest.case
    held = []
    begun = []

    def addModuleCleanup(function, /, *args, **kwargs):
        def cleanup():
            function(*args, **kwargs)

        held.append(cleanup)

    def doModuleCleanups():
        if begun:
            raise RuntimeError(
                "unittest's suite runs the module cleanups (after tearDownModule, or after a setUpModule that raised): "
                "doModuleCleanups cannot be called during a run"
            )
        run_cleanups()

    def run_cleanups():
        exceptions = []
        while held or case._module_cleanups:
            if held:
                function, args, kwargs = held.pop(), (), {}
            else:
                function, args, kwargs = case._module_cleanups.pop()
            try:
                function(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - as unittest: every cleanup runs, the first error is raised
                exceptions.append(exc)
        if exceptions:
            raise exceptions[0]

    def pending():
        return bool(held or case._module_cleanups)

    def began():
        if begun:
            raise RuntimeError("the run's module steps were given already")
        begun.append(True)
        return ModuleSteps(run_cleanups, pending)

    for mine, own in ((addModuleCleanup, case.addModuleCleanup), (doModuleCleanups, case.doModuleCleanups)):
        mine.__doc__, mine.__module__, mine.__qualname__ = own.__doc__, own.__module__, own.__qualname__
    case.addModuleCleanup = unittest.addModuleCleanup = addModuleCleanup
    case.doModuleCleanups = unittest.doModuleCleanups = doModuleCleanups
    return began


def module_fixture(fixture, name, steps):
    """A function that calls test.py's module fixture ``fixture`` (its ``name``, ``setUpModule`` or
    ``tearDownModule``), for the module where unittest's suite looks them up. It holds test.py's function in
    its closure, which code under test cannot read, and its globals are the harness's; it calls it only when the
    suite is about to (``steps.at``), once, and raises ``RuntimeError`` when anything else calls it. What the
    fixture returns is dropped, as the suite drops it."""

    def call():
        if steps.at[0] != name:
            raise RuntimeError(f"test.py's {name} is called by unittest's suite alone")
        steps.at[0] = None
        fixture()

    return call


def _call_fixture(steps, module, name):
    """Call ``module``'s fixture ``name`` (when it has one not None) at its step."""
    fixture = getattr(module, name, None)
    if fixture is None:
        return
    steps.at[0] = name
    try:
        fixture()
    finally:
        steps.at[0] = None


def _reported(suite, result, call, fixture_name, module_name):
    """Call ``call()``; an ``Exception`` it raises is reported as an error of the module's ``fixture_name``, as
    unittest's suite reports one (raised again for a debug result)."""
    try:
        call()
    except Exception as e:
        if isinstance(result, _DebugResult):
            raise
        suite._createClassOrModuleLevelException(result, e, fixture_name, module_name)


def handle_module_fixture(suite, test, result, steps):
    """unittest's ``TestSuite._handleModuleFixture`` (``suite`` the suite, ``test`` the next test), with the
    module cleanups after a ``setUpModule`` that raised run through ``steps``."""
    previous = suite._get_previous_module(result)
    current = test.__class__.__module__
    if current == previous:
        return
    suite._handleModuleTearDown(result)
    result._moduleSetUpFailed = False
    try:
        module = sys.modules[current]
    except KeyError:
        return
    if getattr(module, "setUpModule", None) is None:
        return
    _call_if_exists(result, "_setupStdout")
    try:
        try:
            _call_fixture(steps, module, "setUpModule")
        except Exception as e:
            if isinstance(result, _DebugResult):
                raise
            result._moduleSetUpFailed = True
            suite._createClassOrModuleLevelException(result, e, "setUpModule", current)
        if result._moduleSetUpFailed:
            _reported(suite, result, steps.run_cleanups, "setUpModule", current)
    finally:
        _call_if_exists(result, "_restoreStdout")


def handle_module_teardown(suite, result, steps):
    """unittest's ``TestSuite._handleModuleTearDown``, with the module cleanups run through ``steps``."""
    previous = suite._get_previous_module(result)
    if previous is None or result._moduleSetUpFailed:
        return
    try:
        module = sys.modules[previous]
    except KeyError:
        return
    _call_if_exists(result, "_setupStdout")
    try:
        _reported(suite, result, lambda: _call_fixture(steps, module, "tearDownModule"), "tearDownModule", previous)
        _reported(suite, result, steps.run_cleanups, "tearDownModule", previous)
    finally:
        _call_if_exists(result, "_restoreStdout")
