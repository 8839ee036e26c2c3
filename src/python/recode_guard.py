"""What a submission must not change while its tests run, and how a change is seen.

The test framework, the value checks, the harness and the modules they rely on
are protected. ``Guard`` notes them before a run; ``Guard.changes()`` (called
at every test's start and end, and when the run ends) says which of them the
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


def is_heap_class(v):
    """A class defined in Python (its attributes can be changed), not a built-in type."""
    return isinstance(v, type) and bool(v.__flags__ & (1 << 9))


def _protected_objects():
    """(label, object, kind) for every protected module and its own classes."""
    out = []
    for name in PROTECTED_MODULES:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        out.append((name, mod, "module"))
        for k, v in list(vars(mod).items()):
            if is_heap_class(v) and getattr(v, "__module__", None) == name:
                out.append((f"{name}.{k}", v, "class"))
    out.append(("builtins", builtins, "builtins"))
    return out


def dict_changed(cur, saved):
    """Whether a dict differs from its snapshot. Dict equality runs in C and
    checks identity first; values whose ``==`` raises (arrays) fall back to
    identity."""
    try:
        return cur != saved
    except Exception:  # noqa: BLE001 - a value's __eq__ failed; compare identities
        return cur.keys() != saved.keys() or any(cur.get(k, _MISSING) is not v for k, v in saved.items())


def code_fingerprint():
    """Identity of the code of every protected function and method."""
    prints = {}
    for label, obj, kind in _protected_objects():
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
        for label, obj, kind in _protected_objects():
            d = vars(obj)
            if kind == "class":
                snap = dict(d)
            else:
                snap = {k: v for k, v in d.items() if callable(v) or isinstance(v, type(sys))}
            self.saved.append((label, obj, kind, snap))
        self.code = code_fingerprint()

    def changes(self):
        """Labels of the protected objects changed since the guard was made (empty when none)."""
        now = code_fingerprint()
        changed = sorted({k.rsplit(".", 1)[0] for k, v in self.code.items() if now.get(k) != v})
        for label, obj, kind, snap in self.saved:
            if label in changed:
                continue
            d = vars(obj)
            if kind == "class":
                if dict_changed(dict(d), snap):
                    changed.append(label)
            elif any(d.get(k, _MISSING) is not v for k, v in snap.items()):
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
