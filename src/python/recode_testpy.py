"""Whether test.py, once imported, is test.py's own.

test.py imports the candidate before it defines its test classes, so code
under test runs while test.py is made and can try to change what test.py
binds and defines. The harness looks right after test.py's import, before
any test object is made (a hook that made them would hold every test), and
ends the run as "not trusted" when any of these finds something:

- ``stray_names``: a name in test.py's namespace that its text does not bind
  (a ``ValueError`` set there, which every ``assertRaises(ValueError)`` then
  means; a ``load_tests`` that would make the tests);
- ``look_alike_imports``: a name test.py imports from a protected module that
  is not that module's (a look-alike module in ``sys.modules`` while test.py
  imported the candidate, whose ``check`` would get every test object);
- ``foreign_members``: anything in a test class, or in a class it is built on,
  that runs code and that test.py's text did not make: a function whose code
  is not test.py's (or unittest's, for its skip wrappers; a ``staticmethod``
  may hold any function: it is never given the test object), or another
  descriptor (an ``__init__`` given to a test class while it was made would
  get each test object as it is made), anything but test.py's own function
  under the name of one of unittest's (a class that does nothing as
  ``assertRaises``), or a metaclass test.py does not define;
- ``foreign_test_classes`` (after loading): a test of a class test.py does
  not define (unittest's ``FunctionTestCase``), or a test class built on a
  class that is neither protected nor defined by test.py.
"""

import builtins
import types
from operator import attrgetter
from operator import is_ as _is

_MISSING = object()
_FUNCTION = types.FunctionType
# The descriptors type() makes for a class's __dict__, __weakref__ and slots: they run no Python code.
_C_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)
_CODE = types.CodeType
_type_dict = type.__dict__["__dict__"].__get__
_type_mro = type.__dict__["__mro__"].__get__


def interpreters_name(key):
    """A dunder name (``__file__``, ``__warningregistry__``): the interpreter's, not the module text's."""
    return key.startswith("__") and key.endswith("__")


# The names the interpreter itself gives a module it imports (a module-level ``__getattr__`` is not one:
# it would answer the loader's look for ``load_tests`` and get every test).
_MODULE_DUNDERS = frozenset(
    (
        "__name__",
        "__doc__",
        "__package__",
        "__loader__",
        "__spec__",
        "__file__",
        "__cached__",
        "__builtins__",
        "__warningregistry__",
        "__annotations__",
        "__annotate__",
        "__conditional_annotations__",
    )
)


def stray_names(module, bound, given_builtins):
    """Names in a module's namespace that its text does not bind (``bound``)
    and that are not the interpreter's own (``__file__``, ...): put there from
    outside while it ran. Its ``__builtins__`` must be the one the harness gave
    it (``given_builtins``: a dictionary of one's own would give its functions
    another ``ValueError``)."""
    names = vars(module)
    found = sorted(k for k in list(names) if k not in bound and k not in _MODULE_DUNDERS)
    if names.get("__builtins__") is not given_builtins:
        found.append("__builtins__")
    return found


def look_alike_imports(module, imports, protected):
    """The names of ``module`` (test.py) bound by importing from a protected
    module (``imports``: (bound name, module, name or None), see the harness's
    ``_module_imports``; ``protected``: module name -> the module as noted
    before the run) that are not that module's own objects."""
    found = []
    for bound, mod, attr in imports:
        real = protected.get(mod)
        if real is None:
            continue
        want = real if attr is None else vars(real).get(attr, _MISSING)
        if want is not _MISSING and vars(module).get(bound, _MISSING) is not want:
            found.append(f"test.py's {bound} (not {mod}'s own: a look-alike module was imported)")
    return found


def nested_codes(code):
    """The code objects of a module's code and of every function and class body nested in it."""
    found, stack = [], [code]
    while stack:
        c = stack.pop()
        found.append(c)
        stack.extend(k for k in c.co_consts if type(k) is _CODE)
    return found


def is_descriptor(value):
    """Whether a value's class gives it ``__get__``, looked up in the class's dictionaries (no code runs)."""
    return any("__get__" in _type_dict(k) for k in _type_mro(type(value)))


def _made_by(value, codes, given_builtins):
    """Whether a class attribute runs only code whose code object is one of ``codes`` (ids), with the built-ins
    the harness gave test.py (``given_builtins``)."""
    kind = type(value)
    if kind is _FUNCTION:
        # (Its built-ins too: a function made while test.py's __builtins__ was another dictionary keeps it. The
        # framework's, its skip wrappers, have the interpreter's.)
        own = value.__builtins__
        return id(value.__code__) in codes and (own is given_builtins or own is vars(builtins))
    if kind is staticmethod:
        # Its function is called with the arguments test.py's code gives it, never with the test object or its
        # class: the code under test's own function, bound by test.py (``op = staticmethod(add)`` in a test
        # class a shared mixin reads), runs as it would when called by name.
        return True
    if kind is classmethod:
        return _made_by(value.__func__, codes, given_builtins)
    if kind is property:
        return all(f is None or _made_by(f, codes, given_builtins) for f in (value.fget, value.fset, value.fdel))
    return kind in _C_DESCRIPTORS or not is_descriptor(value)


def _framework_names():
    """The names of what unittest's TestCase calls or hands out (its methods, ``failureException``), read once."""
    import unittest

    case = unittest.TestCase
    return frozenset(k for k in dir(case) if callable(getattr(case, k, None)))


_FRAMEWORK_NAMES = _framework_names()
_METHODS = (_FUNCTION, staticmethod, classmethod)


def foreign_members(module, codes, protected_classes, given_builtins):
    """What, in the test classes of ``module`` (its TestCase subclasses) and the
    classes they are built on that are not protected, runs code test.py's text
    did not make (``codes``: ids of the code objects allowed, test.py's and
    unittest's), or stands under the name of one of unittest's callables and is
    not a function test.py's text made (a class that does nothing as
    ``assertRaises`` runs no code of its own). Each as "test class X's name (...)"."""
    import unittest

    found, seen = [], set()
    for value in list(vars(module).values()):
        if not (isinstance(value, type) and issubclass(value, unittest.TestCase)):
            continue
        for cls in _type_mro(value):
            if id(cls) in seen or cls is object or any(map(_is, protected_classes, [cls] * len(protected_classes))):
                continue
            seen.add(id(cls))
            meta = type(cls)
            if meta is not type and not all(_made_by(v, codes, given_builtins) for v in list(_type_dict(meta).values())):
                found.append(f"test class {cls.__qualname__}'s metaclass {meta.__qualname__} (not test.py's)")
            for name, member in list(_type_dict(cls).items()):
                if not _made_by(member, codes, given_builtins):
                    hint = ": a method gets each test object; wrap another's function in staticmethod" if type(member) is _FUNCTION else ""
                    found.append(f"test class {cls.__qualname__}'s {name} (code test.py does not define{hint})")
                elif name in _FRAMEWORK_NAMES and type(member) not in _METHODS:
                    found.append(f"test class {cls.__qualname__}'s {name} (not a function, under the name of one of unittest's)")
    return found


def foreign_test_classes(classes, module, names, protected_classes):
    """Why the test classes are not test.py's own (empty when they are):
    each test class must be one test.py defines, and every class from it
    up to unittest's must be a protected class, or one test.py defines (a name of ``names``, the classes of
    its text, bound to it in ``module``). A test class built on something
    else, such as a look-alike TestCase that code under test put where
    test.py looks for unittest while test.py imported it, is not."""
    own = vars(module)
    out = []
    for cls in sorted(classes, key=attrgetter("__qualname__")):
        if not (cls.__name__ in names and own.get(cls.__name__) is cls):
            # A test of a class test.py does not define at all, such as unittest's FunctionTestCase, which an
            # object of the candidate's that tells the loader it is a test class can hand it.
            out.append(f"the test class {cls.__module__}.{cls.__qualname__} (test.py does not define it; its tests come from its own classes only)")
            continue
        for c in cls.__mro__:
            if c is object or any(map(_is, protected_classes, [c] * len(protected_classes))):
                continue
            if c.__name__ in names and own.get(c.__name__) is c:
                continue
            out.append(
                f"the test class {cls.__qualname__} (built on {c.__module__}.{c.__qualname__}, which test.py does not"
                " define and keep bound under its own name at module level)"
            )
            break
    return out
