"""What a submission must not change while its tests run, and how a change is seen.

The test framework, the value checks, the harness and the modules they rely on
are protected. ``Guard`` notes them before a run; ``Guard.changes()`` (called
at every test's start, and when the run ends) says which of them the
run changed: a function or class of a protected module replaced or removed, a
method of one of their classes, an existing built-in, or the code of one of
their functions (``__code__`` rewritten). A change makes the run's results
untrusted; a rewritten ``__code__`` cannot be undone by restoring dictionaries,
so the interpreter must then be replaced (see ``damaged_code``).
"""

import builtins
import sys

PROTECTED_MODULES = (
    "unittest",
    "unittest.case",
    "unittest.result",
    "unittest.suite",
    "unittest.loader",
    "unittest.util",
    "recode_check",
    "recode_harness",
    "recode_guard",
    "recode_sandbox",
    "math",
    "json",
    "json.encoder",
    "traceback",
    "io",
)

_MISSING = object()
_METHOD_TYPES = (type(lambda: None), staticmethod, classmethod)


def is_heap_class(v):
    """A class defined in Python (its attributes can be changed), not a built-in type."""
    return isinstance(v, type) and bool(v.__flags__ & (1 << 9))


def _protected_objects():
    """(label, object, kind) for every protected module, its own classes, and
    the objects it holds at module level that carry attributes (such as
    ``json._default_encoder`` or ``unittest.defaultTestLoader``)."""
    out = []
    for name in PROTECTED_MODULES:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        out.append((name, mod, "module"))
        for k, v in list(vars(mod).items()):
            if is_heap_class(v) and getattr(v, "__module__", None) == name:
                out.append((f"{name}.{k}", v, "class"))
            elif not isinstance(v, (type, type(sys))) and not callable(v) and isinstance(getattr(v, "__dict__", None), dict):
                out.append((f"{name}.{k}", v, "object"))
    out.append(("builtins", builtins, "builtins"))
    return out


def _hooks():
    """Interpreter-wide hooks that see or steer every call: tracing, profiling,
    sys.monitoring tools, the SIGINT handler. The harness sets none of them."""
    import signal

    state = {"trace": sys.gettrace(), "profile": sys.getprofile()}
    mon = getattr(sys, "monitoring", None)
    if mon is not None:
        for tool in range(6):
            try:
                state[f"monitoring tool {tool}"] = mon.get_tool(tool)
            except Exception:  # noqa: BLE001 - an unknown tool id
                pass
    try:
        state["SIGINT handler"] = signal.getsignal(signal.SIGINT)
    except (AttributeError, ValueError):
        pass
    return state


def dict_changed(cur, saved):
    """Whether a dict differs from its snapshot. Dict equality runs in C and
    checks identity first; values whose ``==`` raises (arrays) fall back to
    identity."""
    try:
        return cur != saved
    except Exception:  # noqa: BLE001 - a value's __eq__ failed; compare identities
        return cur.keys() != saved.keys() or any(cur.get(k, _MISSING) is not v for k, v in saved.items())


def code_fingerprint(objects=None):
    """Identity of the code of every protected function and method (of
    ``objects``, as ``_protected_objects()`` gives them; default: found now)."""
    prints = {}
    for label, obj, kind in objects if objects is not None else _protected_objects():
        if kind == "builtins":
            continue
        for k, v in list(vars(obj).items()):
            code = getattr(v, "__code__", None)
            if code is not None:
                prints[f"{label}.{k}"] = id(code)
    return prints


class Guard:
    """Notes the protected objects before a run and says which of them the run changed."""

    def __init__(self):
        self.saved = []
        self.objects = _protected_objects()
        for label, obj, kind in self.objects:
            self._note(label, obj, kind)
        # (label, function, its code): a rewritten __code__ is seen by identity, without building strings.
        self.code = [
            (f"{label}.{k}", v, v.__code__)
            for label, obj, kind in self.objects
            if kind != "builtins"
            for k, v in list(vars(obj).items())
            if getattr(v, "__code__", None) is not None
        ]
        self.hooks = _hooks()

    def _note(self, label, obj, kind):
        d = vars(obj)
        if kind in ("class", "object"):
            snap = dict(d)
        elif kind == "methods":
            snap = {k: v for k, v in d.items() if isinstance(v, _METHOD_TYPES)}
        else:
            snap = {k: v for k, v in d.items() if callable(v) or isinstance(v, type(sys))}
        self.saved.append((label, obj, kind, snap))

    def watch_classes(self, classes):
        """Also watch the methods of these classes (the test module's, once its
        tests are loaded): their fixtures may set data attributes, but a method
        replaced or removed during the run is tampering."""
        for cls in classes:
            self._note(f"test class {cls.__name__}", cls, "methods")

    def changes(self):
        """Labels of the protected objects changed since the guard was made (empty when none)."""
        changed = sorted({label.rsplit(".", 1)[0] for label, fn, code in self.code if getattr(fn, "__code__", None) is not code})
        hooks = _hooks()
        changed += [k for k, v in self.hooks.items() if hooks.get(k, _MISSING) is not v]
        for label, obj, kind, snap in self.saved:
            if label in changed:
                continue
            d = vars(obj)
            if kind in ("class", "object"):
                if dict_changed(d, snap):
                    changed.append(label)
            elif any(d.get(k, _MISSING) is not v for k, v in snap.items()):
                changed.append(label)
            elif kind == "methods" and any(k not in snap and isinstance(v, _METHOD_TYPES) for k, v in d.items()):
                changed.append(label)
        return changed


# Fingerprint of the protected code as first imported.
_TRUSTED_CODE = None


def note_trusted_code():
    """Remember the protected code as it is now (called once the harness is loaded)."""
    global _TRUSTED_CODE
    _TRUSTED_CODE = code_fingerprint()


def damaged_code():
    """Protected functions whose code differs from when the harness was loaded."""
    if _TRUSTED_CODE is None:
        return []
    now = code_fingerprint()
    return sorted(k for k, v in _TRUSTED_CODE.items() if now.get(k) != v)
