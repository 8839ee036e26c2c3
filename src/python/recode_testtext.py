"""What test.py's text says, read from its syntax tree alone, before it runs.

test.py imports the candidate, so code under test runs while test.py is made
and can change what it binds and defines. What the text says is read first,
and the harness holds test.py to it (``recode_testpy``) and tells the guard
what test.py changes itself (``TestFacts``): the classes it defines, the names
it binds and imports, the patches it makes, and whether its tests change its
own classes or module.
"""

from ast import PyCF_ONLY_AST as _AST_ONLY
from ast import AnnAssign as _ANN_ASSIGN
from ast import Assign as _ASSIGN
from ast import AsyncFunctionDef as _ASYNC_DEF
from ast import Attribute as _ATTRIBUTE
from ast import AugAssign as _AUG_ASSIGN
from ast import Call as _CALL
from ast import ClassDef as _CLASS_DEF
from ast import Constant as _CONSTANT
from ast import Delete as _DELETE
from ast import FunctionDef as _FUNCTION_DEF
from ast import Global as _GLOBAL
from ast import Import as _IMPORT
from ast import ImportFrom as _IMPORT_FROM
from ast import Lambda as _LAMBDA
from ast import MatchAs as _MATCH_AS
from ast import MatchMapping as _MATCH_MAPPING
from ast import MatchStar as _MATCH_STAR
from ast import Name as _NAME
from ast import NamedExpr as _NAMED_EXPR
from ast import Store as _STORE
from ast import alias as _ALIAS
from ast import excepthandler as _EXCEPT_HANDLER
from ast import iter_child_nodes as _children
from ast import walk as _ast_walk
from collections import namedtuple

# The name test.py's module is imported under.
TEST_MODULE = "recode_task_test"


def _module_names(tree):
    """The names a module's text binds at module level: assignments, imports
    (not a star import's: ``star_imports``), ``def`` and ``class`` (not what their
    bodies bind), loop, ``with`` and ``except`` targets, ``:=``, a ``match``
    statement's captures, and names a function declares ``global``."""
    names = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (_FUNCTION_DEF, _ASYNC_DEF, _CLASS_DEF):
            names.add(node.name)
            # Their decorators, bases and defaults run at module level; their bodies only bind their own
            # names, but for ``global``.
            stack.extend(n for n in _children(node) if n not in node.body)
            globals_ = [n for b in node.body for n in _walk_globals(b)]
            names.update(name for g in globals_ for name in g.names)
            continue
        if kind is _NAME and type(node.ctx) is _STORE:
            names.add(node.id)
        elif kind is _NAMED_EXPR:
            names.add(node.target.id)
        elif kind is _ALIAS:
            if node.name != "*":
                names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, _EXCEPT_HANDLER) and node.name:
            names.add(node.name)
        elif kind in (_MATCH_AS, _MATCH_STAR) and node.name:
            names.add(node.name)
        elif kind is _MATCH_MAPPING and node.rest:
            names.add(node.rest)
        if kind is not _LAMBDA:
            stack.extend(_children(node))
    return frozenset(names)


class _Body:
    def __init__(self, body):
        self.body = body


def _module_imports(tree):
    """(bound name, module, name imported or None) for each name a module's
    text binds by importing at module level, and by nothing else: ``import
    a.b`` binds ``a`` to module ``a``, ``import a.b as x`` binds ``x`` to
    ``a.b``, ``from m import n as x`` binds ``x`` to ``m``'s ``n`` (relative
    and star imports are left out)."""
    found = []
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is _IMPORT:
            for a in node.names:
                top = a.name.split(".")[0]
                found.append((a.asname, a.name, None) if a.asname else (top, top, None))
        elif kind is _IMPORT_FROM:
            if not node.level and node.module:
                found.extend((a.asname or a.name, node.module, a.name) for a in node.names if a.name != "*")
        elif kind not in (_FUNCTION_DEF, _ASYNC_DEF, _CLASS_DEF):
            stack.extend(_children(node))
    # A name the text also binds otherwise (an assignment, a def, an import inside a try) is left out.
    others = _module_names(_Body([s for s in tree.body if type(s) not in (_IMPORT, _IMPORT_FROM)]))
    bound = [b for b, _, _ in found]
    return [f for f in found if f[0] not in others and bound.count(f[0]) == 1]


def _walk_globals(node):
    """Every ``global`` statement in ``node`` (functions and classes inside it included)."""
    stack, out = [node], []
    while stack:
        n = stack.pop()
        if type(n) is _GLOBAL:
            out.append(n)
        stack.extend(_children(n))
    return out


def tests_patch_of(tree):
    """What test.py's text (its syntax ``tree``) says it changes and puts back itself
    (``Guard.watch_classes``'s ``tests_patch``): ``"modules"`` when it calls one of unittest.mock's patchers
    (``mock.patch``, ``patch.object``, ``patch.dict``), ``"builtins"`` when it names the built-ins
    (``import builtins``, ``builtins.input = ...``, ``__builtins__``), else ``""``. Read from the code, not
    the characters: a comment that says "dispatch" or "builtins" turned the counts off."""
    nodes = list(_ast_walk(tree))
    if any(type(n) is _CALL and _is_patch(n.func) for n in nodes):
        return "modules"
    names = any(
        (type(n) is _NAME and n.id in ("builtins", "__builtins__"))
        or (type(n) is _ATTRIBUTE and n.attr == "__builtins__")
        or (type(n) is _ALIAS and n.name.split(".")[0] == "builtins")
        or (type(n) is _IMPORT_FROM and n.module == "builtins")
        for n in nodes
    )
    return "builtins" if names else ""


# The fixtures that run between tests, outside the looks at a test's start and result: what they change of
# test.py's classes (``cls.model = ...`` in ``setUpClass``) is compared as data, not counted.
_BETWEEN_TESTS = frozenset(("setUpClass", "tearDownClass", "setUpModule", "tearDownModule"))


def tests_change_own(tree, class_names):
    """Whether test.py's text (its syntax ``tree``) changes, from inside its tests, its own classes
    (``cls.x = ...``, or through a classmethod's first parameter of any name, ``type(self).x = ...``,
    ``self.__class__.x = ...``, ``TestFoo.x = ...``, ``setattr``, ``delattr``, ``type.__setattr__(...)``) and
    its own module (a ``global`` statement, ``globals()``): (classes, module). What it changes itself is not
    counted against the run (``Guard.watch_classes``'s ``counted``)."""
    owners = frozenset(class_names) | {"cls", "__class__"} | _classmethod_firsts(tree)

    def is_own(of):
        """Whether the expression ``of`` names one of test.py's classes."""
        return (
            (type(of) is _NAME and of.id in owners)
            or (type(of) is _ATTRIBUTE and of.attr == "__class__")
            or (type(of) is _CALL and type(of.func) is _NAME and of.func.id == "type")
        )

    classes = module = False
    stack = [(node, False) for node in tree.body]
    while stack:
        node, inside = stack.pop()
        kind = type(node)
        if kind in (_FUNCTION_DEF, _ASYNC_DEF, _LAMBDA):
            inside = getattr(node, "name", "") not in _BETWEEN_TESTS
        elif inside and kind is _GLOBAL:
            module = True
        elif inside and kind in (_ASSIGN, _AUG_ASSIGN, _ANN_ASSIGN, _DELETE):
            targets = node.targets if kind in (_ASSIGN, _DELETE) else [node.target]
            classes = classes or any(type(t) is _ATTRIBUTE and is_own(t.value) for target in targets for t in _ast_walk(target))
        elif kind is _CALL and type(node.func) is _NAME and node.func.id in ("setattr", "delattr"):
            classes = True
        elif kind is _CALL and type(node.func) is _ATTRIBUTE and node.func.attr in ("__setattr__", "__delattr__"):
            classes = True
        elif inside and kind is _CALL and type(node.func) is _NAME and node.func.id == "globals":
            # (``globals()["memo"] = ...``, ``globals().update(...)``: its own module's names, as a ``global``
            # statement's.)
            module = True
        elif kind is _CALL and _is_patch(node.func) and node.args:
            # A patch of one of its classes (``patch.object(TestFoo, ...)``), or of a name in its own module
            # (``patch.dict(globals(), ...)``; ``patch(f"{__name__}.helper")`` finds only the module of fixtures,
            # test.py's being in no sys.modules, but says what is meant).
            first = node.args[0]
            classes = classes or is_own(first)
            module = (
                module
                or any(type(n) is _NAME and n.id == "__name__" for n in _ast_walk(first))
                or (type(first) is _CONSTANT and type(first.value) is str and first.value.startswith((TEST_MODULE, "__main__")))
                or (type(first) is _CALL and type(first.func) is _NAME and first.func.id == "globals")
            )
        stack.extend((child, inside) for child in _children(node))
    return classes, module


def _classmethod_firsts(tree):
    """The names of the first parameters of test.py's functions decorated with ``classmethod``, whatever
    they are (``def remember(klass, v): klass.last = v``)."""
    found = set()
    for node in _ast_walk(tree):
        if type(node) in (_FUNCTION_DEF, _ASYNC_DEF) and node.args.args:
            if any(type(d) is _NAME and d.id == "classmethod" for d in node.decorator_list):
                found.add(node.args.args[0].arg)
    return frozenset(found)


def _is_patch(func):
    """Whether a call's function is one of unittest.mock's patchers (``patch``, ``mock.patch``,
    ``patch.object``, ``patch.dict``, ``patch.multiple``)."""
    if type(func) is _NAME:
        return func.id == "patch"
    if type(func) is not _ATTRIBUTE:
        return False
    return func.attr == "patch" or (func.attr in ("object", "dict", "multiple") and _is_patch(func.value))


def star_imports(tree):
    """The modules a module's text star-imports at module level (``from m import *``), in order: the names
    such an import binds are the module's (its ``__all__``, or its public names) as it runs, not the text's."""
    found = []
    stack = list(tree.body)
    while stack:
        node = stack.pop(0)
        kind = type(node)
        if kind is _IMPORT_FROM and not node.level and node.module and any(a.name == "*" for a in node.names):
            found.append(node.module)
        elif kind not in (_FUNCTION_DEF, _ASYNC_DEF, _CLASS_DEF):
            stack.extend(_children(node))
    return tuple(found)


class TestFacts(namedtuple("TestFacts", "class_names bound_names imports tests_patch patch_targets changes_own star_imports")):
    """What test.py's text says, read from its syntax tree alone (immutable: a run may reach a cached one)."""

    __slots__ = ()

    @classmethod
    def of(cls, source, path):
        """The facts of test.py's ``source`` (bytes) at ``path``; SyntaxError when it does not parse."""
        tree = compile(source, path, "exec", _AST_ONLY)
        imports = tuple(_module_imports(tree))
        # The classes test.py defines (the test classes must be among them).
        class_names = frozenset(node.name for node in tree.body if type(node) is _CLASS_DEF)
        return cls(
            class_names,
            _module_names(tree),
            imports,
            tests_patch_of(tree),
            patch_targets(tree, imports),
            tests_change_own(tree, class_names),
            star_imports(tree),
        )


def patch_targets(tree, imports):
    """The (module, attribute) pairs test.py's text names as the target of a patch: the string of
    ``patch("module.attribute", ...)`` (however ``patch`` is reached: ``mock.patch``, ``unittest.mock.patch``),
    and ``patch.object(module, "attribute", ...)`` with a module test.py imports under that name. Only these
    may be accepted as test.py's own lasting patches (``Guard.patched``), and never in unittest, contextlib
    or the harness. ``imports``: the tree's ``_module_imports``."""
    imported = {bound: module for bound, module, name in imports if name is None}
    found = set()
    for node in _ast_walk(tree):
        if type(node) is not _CALL or not node.args:
            continue
        func = node.func
        name = func.attr if type(func) is _ATTRIBUTE else func.id if type(func) is _NAME else None
        first = node.args[0]
        if name == "patch" and type(first) is _CONSTANT and type(first.value) is str and "." in first.value:
            module, _, attr = first.value.rpartition(".")
            found.add((module, attr))
        elif (
            name == "object"
            and type(func) is _ATTRIBUTE
            and (getattr(func.value, "attr", None) == "patch" or getattr(func.value, "id", None) == "patch")
            and len(node.args) > 1
            and type(first) is _NAME
            and first.id in imported
            and type(node.args[1]) is _CONSTANT
            and type(node.args[1].value) is str
        ):
            found.add((imported[first.id], node.args[1].value))
    return frozenset((m, a) for m, a in found if not m.split(".")[0].startswith(("unittest", "contextlib", "recode_")))
