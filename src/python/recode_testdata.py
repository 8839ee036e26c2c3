"""test.py's data that only its own text reads, and whether it is still what the text made.

test.py's module is in ``sys.modules`` (its tests may patch their own module
by name), so code under test can reach the values test.py binds and change
them in place, with no name rebound: a list of bad inputs its tests loop over,
emptied, passed a test of input checks the candidate does not have. A list,
dict or set that test.py binds at module level or in a class body, and that
its text only reads (``read_only_data``), must hold the same items from the
end of test.py's import to the end of the run (compared by identity, as the
guard compares dictionaries); one whose text is a literal must hold what the
literal says when test.py has been made (``literal_differs``), since code
under test runs while test.py is made too.

A value test.py's text changes, or hands to a function (the candidate's, or
any but the built-ins that read or copy it and the assertions that compare it)
is left alone: code under test may change what it is given, as under CPython.
Only the container's own items are compared, not what they hold (an inner list
handed to the candidate is its to change), and numpy's arrays are not (their
rows and slices are views).
"""

from ast import AnnAssign as _ANN_ASSIGN
from ast import Assign as _ASSIGN
from ast import Attribute as _ATTRIBUTE
from ast import BinOp as _BIN_OP
from ast import Call as _CALL
from ast import ClassDef as _CLASS_DEF
from ast import Compare as _COMPARE
from ast import Constant as _CONSTANT
from ast import Dict as _DICT
from ast import For as _FOR
from ast import FormattedValue as _FORMATTED
from ast import List as _LIST
from ast import Load as _LOAD
from ast import Name as _NAME
from ast import Set as _SET
from ast import Starred as _STARRED
from ast import Subscript as _SUBSCRIPT
from ast import Tuple as _TUPLE
from ast import UAdd as _UADD
from ast import UnaryOp as _UNARY_OP
from ast import USub as _USUB
from ast import comprehension as _COMPREHENSION
from ast import iter_child_nodes as _children
from ast import keyword as _KEYWORD

# Calls whose result holds nothing of an argument (a count, a copy, a text): an argument is only read.
_READING_CALLS = frozenset(
    (
        "len", "list", "tuple", "sorted", "sum", "min", "max", "any", "all", "set", "frozenset", "dict",
        "isinstance", "repr", "str", "float", "int", "abs", "round", "print", "bool", "hash", "format", "check",
    )
)  # fmt: skip
# The same, reached through their module.
_READING_FUNCTIONS = frozenset((("math", "fsum"), ("copy", "copy"), ("copy", "deepcopy")))
# Calls whose result keeps a reference to an argument (an iterator's ``__reduce__`` hands it out): read only
# when that result is.
_WRAPPING_CALLS = frozenset(("iter", "enumerate", "zip", "reversed", "map", "filter"))
# The assertions that call what they are given (a callable and its arguments), or hand a logger out.
_CALLING_ASSERTIONS = ("assertRaises", "assertWarns", "assertLogs", "assertNoLogs")
# Methods of a list, dict or set that read it (``items()`` gives a view whose ``mapping`` is read-only).
_READING_METHODS = frozenset(("get", "keys", "values", "items", "copy", "count", "index", "issubset", "issuperset"))
_CONTAINERS = (list, dict, set)


def _parents(tree):
    """id(node) -> its parent node."""
    out, stack = {}, [tree]
    while stack:
        node = stack.pop()
        for child in _children(node):
            out[id(child)] = node
            stack.append(child)
    return out


def _only_read(node, parents):
    """Whether the value ``node`` (a load of test.py's name, or an expression made of one) is only read where
    it stands: iterated, indexed, compared, formatted, combined into a new value, passed to a call that reads
    it or to an assertion that compares it."""
    parent = parents.get(id(node))
    kind = type(parent)
    if kind in (_FOR, _COMPREHENSION):
        return node is parent.iter
    if kind is _SUBSCRIPT:
        return node is parent.value and type(parent.ctx) is _LOAD
    if kind in (_COMPARE, _FORMATTED, _BIN_OP, _STARRED):
        # (A new value; an item each, for a starred argument.)
        return True
    if kind is _ATTRIBUTE:
        return parent.attr in _READING_METHODS and type(parents.get(id(parent))) is _CALL
    if kind is _CALL and node is not parent.func:
        func = parent.func
        if type(func) is _NAME:
            # (A built-in, or the check helper, by its plain name.)
            if func.id in _READING_CALLS:
                return True
            return func.id in _WRAPPING_CALLS and _only_read(parent, parents)
        if type(func) is not _ATTRIBUTE:
            return False
        if type(func.value) is _NAME and (func.value.id, func.attr) in _READING_FUNCTIONS:
            return True
        # (A test's own assertion, ``self.assertEqual``: it compares what it is given.)
        return func.attr.startswith(("assert", "fail")) and not func.attr.startswith(_CALLING_ASSERTIONS)
    if kind is _KEYWORD:
        call = parents.get(id(parent))
        return type(call) is _CALL and type(call.func) is _ATTRIBUTE and call.func.attr == "subTest"
    return False


def _bindings(body):
    """name -> the value node of each name bound exactly once in ``body`` by a plain assignment."""
    seen, out = set(), {}
    for stmt in body:
        if type(stmt) is _ASSIGN and len(stmt.targets) == 1 and type(stmt.targets[0]) is _NAME:
            name, value = stmt.targets[0].id, stmt.value
        elif type(stmt) is _ANN_ASSIGN and type(stmt.target) is _NAME and stmt.value is not None:
            name, value = stmt.target.id, stmt.value
        else:
            continue
        if name in seen:
            out.pop(name, None)
        else:
            out[name] = value
        seen.add(name)
    return out


def _literal(node):
    """The value of a literal's node (numbers, strings, ``float("nan")``, lists, tuples, dicts and sets of
    them, a sign), or ``_NOT_LITERAL``."""
    kind = type(node)
    if kind is _CONSTANT:
        return node.value
    if kind is _UNARY_OP and type(node.op) in (_USUB, _UADD) and type(node.operand) is _CONSTANT:
        value = node.operand.value
        if type(value) in (int, float, complex):
            return -value if type(node.op) is _USUB else +value
    if kind in (_LIST, _TUPLE, _SET):
        items = [_literal(n) for n in node.elts]
        if any(i is _NOT_LITERAL for i in items):
            return _NOT_LITERAL
        return {_LIST: list, _TUPLE: tuple, _SET: set}[kind](items) if kind is not _SET or all(map(_hashable, items)) else _NOT_LITERAL
    if kind is _DICT and None not in node.keys:
        keys, values = [_literal(n) for n in node.keys], [_literal(n) for n in node.values]
        if _NOT_LITERAL in keys or any(v is _NOT_LITERAL for v in values) or not all(map(_hashable, keys)):
            return _NOT_LITERAL
        return dict(zip(keys, values))
    if kind is _CALL and type(node.func) is _NAME and node.func.id == "float" and len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        if type(arg) is _CONSTANT and type(arg.value) is str and arg.value.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            return float(arg.value)
    return _NOT_LITERAL


class _NotLiteral:
    __slots__ = ()

    def __repr__(self):
        return "<not a literal>"


_NOT_LITERAL = _NotLiteral()


def _hashable(v):
    return type(v) in (int, float, complex, str, bytes, bool, type(None), tuple) and (type(v) is not tuple or all(map(_hashable, v)))


def read_only_data(tree):
    """(class name or None, name, literal value or None) for each name test.py's text (its syntax ``tree``)
    binds once, by a plain assignment at module level or in a class body at module level, and only reads
    (``_only_read``) wherever it names it: ``NAME`` for a module-level name, ``anything.NAME`` for a
    class-level one. A name stored or deleted anywhere else (a ``global`` rebinding, a local of the same name)
    is left out."""
    parents = _parents(tree)
    module = _bindings(tree.body)
    classes = [(node, _bindings(node.body)) for node in tree.body if type(node) is _CLASS_DEF]
    targets = {id(parents[id(v)]) for v in module.values()}
    class_targets = {id(parents[id(v)]) for _, b in classes for v in b.values()}
    left_out = set()
    for node in _walk(tree):
        kind = type(node)
        if kind is _NAME:
            stmt = parents.get(id(node))
            if type(node.ctx) is not _LOAD:
                if id(stmt) not in targets and id(stmt) not in class_targets:
                    left_out.add(node.id)
            elif node.id in module and not _only_read(node, parents):
                left_out.add(node.id)
        elif kind is _ATTRIBUTE and (type(node.ctx) is not _LOAD or not _only_read(node, parents)):
            left_out.add(("attribute", node.attr))
    out = [(None, name, _literal_or_none(value)) for name, value in module.items() if name not in left_out]
    out += [
        (cls.name, name, _literal_or_none(value))
        for cls, bindings in classes
        for name, value in bindings.items()
        if ("attribute", name) not in left_out and name not in left_out
    ]
    return tuple(out)


def _literal_or_none(node):
    lit = _literal(node)
    return None if lit is _NOT_LITERAL else lit


def _walk(tree):
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children(node))


def literal_differs(value, literal):
    """Whether ``value`` is not what ``literal`` (from ``_literal``) says: another type anywhere, another
    number (a NaN is a NaN), another length or key. Read in C where it can: no ``__eq__`` of a subclass runs
    (types are compared first, and only exact built-in types are walked)."""
    if type(value) is not type(literal):
        return True
    if type(value) is float:
        return not (value == literal or (value != value and literal != literal))
    if type(value) in (int, complex, str, bytes, bool, type(None)):
        return value != literal
    if type(value) in (list, tuple):
        return len(value) != len(literal) or any(map(literal_differs, value, literal))
    if type(value) is dict:
        return len(value) != len(literal) or any(k not in literal or literal_differs(v, literal[k]) for k, v in value.items())
    if type(value) is set:
        return value != literal
    return True


def data_containers(facts_data, module, classes):
    """(label, container) for each read-only value (``read_only_data``) that is a list, dict or set, found in
    test.py's ``module`` and its ``classes`` (name -> class); and the labels of those whose literal it does
    not hold (changed while test.py was made)."""
    found, differs = [], []
    for owner, name, literal in facts_data:
        holder = vars(module) if owner is None else vars(classes[owner]) if owner in classes else None
        value = holder.get(name) if holder is not None else None
        if type(value) not in _CONTAINERS:
            continue
        label = f"test.py's {name}" if owner is None else f"test.py's {owner}.{name}"
        found.append((label, value))
        if literal is not None and literal_differs(value, literal):
            differs.append(label)
    return found, differs
