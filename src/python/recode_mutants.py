"""Mutants of a task's canonical solution, made with Python's own ``ast``.

Trusted tooling for ``recode tasks validate`` (the "mutation score" gate),
run with the author's python3. It only parses the source (nothing of it is
executed). Each mutant changes one place of the file, and everything else of
the text stays as it was (the change is spliced into the text at the
positions the parser gives), so a mutant reads like the canonical solution
with one edit. The operators (docs/tasks-gates.md):

- ``arithmetic``: ``+`` -> ``-``, ``-`` -> ``+``, ``*`` -> ``/``, ``/`` -> ``*``,
  ``//`` -> ``/``, ``%`` -> ``//``, ``**`` -> ``*`` (binary operators and
  augmented assignments)
- ``comparison``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``,
  ``is`` <-> ``is not``, ``in`` <-> ``not in``
- ``constant``: an integer literal ``n`` -> ``n + 1`` and ``n - 1`` (booleans
  excluded; a default value that is a plain number is left to ``default``)
- ``statement``: a simple statement inside a function (an assignment, an
  expression, ``return``, ``raise``, ``assert``, ``del``, ``break``,
  ``continue``) -> ``pass``
- ``arguments``: two neighbouring positional arguments of a call swapped
  (when their texts differ)
- ``default``: a parameter's default value changed: an integer ``n`` ->
  ``n + 1``, a float ``x`` -> ``2 * x`` (``0.0`` -> ``1.0``), a boolean
  negated, a string emptied (an empty one -> ``"x"``); ``None`` and other
  expressions stay

Annotations, f-strings and docstrings are never mutated. Mutants whose text
equals the original or another mutant, or that do not compile, are left out.

Input (standard input): ``{"source": text}``. Output (standard output):
``{"mutants": [{"operator", "line", "col", "description", "original",
"mutated", "source"}]}`` sorted by line, column, operator; ``line`` (1-based)
and ``original`` are the mutated place's line in the canonical text,
``mutated`` the same line in the mutant.
"""

import ast
import json
import re
import sys

ARITHMETIC = {
    ast.Add: (ast.Sub, "+", "-"),
    ast.Sub: (ast.Add, "-", "+"),
    ast.Mult: (ast.Div, "*", "/"),
    ast.Div: (ast.Mult, "/", "*"),
    ast.FloorDiv: (ast.Div, "//", "/"),
    ast.Mod: (ast.FloorDiv, "%", "//"),
    ast.Pow: (ast.Mult, "**", "*"),
}

# (pattern of the operator's text, replacement text)
COMPARISON = {
    ast.Lt: (r"<(?!=)", "<="),
    ast.LtE: (r"<=", "<"),
    ast.Gt: (r">(?!=)", ">="),
    ast.GtE: (r">=", ">"),
    ast.Eq: (r"==", "!="),
    ast.NotEq: (r"!=", "=="),
    ast.Is: (r"\bis\b", "is not"),
    ast.IsNot: (r"\bis\s+not\b", "is"),
    ast.In: (r"\bin\b", "not in"),
    ast.NotIn: (r"\bnot\s+in\b", "in"),
}

SIMPLE_STATEMENTS = (
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Expr,
    ast.Return,
    ast.Raise,
    ast.Assert,
    ast.Delete,
    ast.Break,
    ast.Continue,
)


class Text:
    """The source with conversions from the parser's (line, UTF-8 column) to string offsets."""

    def __init__(self, source):
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.starts = []
        at = 0
        for line in self.lines:
            self.starts.append(at)
            at += len(line)
        self.starts.append(at)

    def offset(self, line, col):
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        return self.starts[line - 1] + len(text.encode("utf-8")[:col].decode("utf-8", errors="replace"))

    def start(self, node):
        return self.offset(node.lineno, node.col_offset)

    def end(self, node):
        return self.offset(node.end_lineno, node.end_col_offset)

    def line_of(self, offset):
        lo, hi = 0, len(self.lines) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1


def _blank_comments(gap):
    """The text between two expressions with its comments blanked out (it holds no strings)."""
    return re.sub(r"#[^\n]*", lambda m: " " * len(m.group(0)), gap)


def _docstring_nodes(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first))
    return out


class Finder(ast.NodeVisitor):
    """Walks the tree and notes each edit: (start offset, end offset, replacement, operator, description, anchor offset)."""

    def __init__(self, text, tree):
        self.text = text
        self.edits = []
        self.docstrings = _docstring_nodes(tree)
        self.function_depth = 0
        self.defaults = set()

    def add(self, start, end, replacement, operator, description, anchor=None):
        self.edits.append((start, end, replacement, operator, description, start if anchor is None else anchor))

    # -- places never mutated ------------------------------------------
    def visit_JoinedStr(self, node):
        pass

    def visit_arg(self, node):
        pass  # annotations only

    def visit_AnnAssign(self, node):
        self._statement(node)
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    # -- functions and their defaults -----------------------------------
    def _function(self, decorators, args, body):
        for dec in decorators:
            self.visit(dec)
        for default in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.defaults.add(id(default))
            if isinstance(default, ast.UnaryOp):
                self.defaults.add(id(default.operand))
            self._default(default)
            self.visit(default)
        self.function_depth += 1
        for item in body:
            self.visit(item)
        self.function_depth -= 1

    def visit_FunctionDef(self, node):
        self._function(node.decorator_list, node.args, node.body)

    def visit_AsyncFunctionDef(self, node):
        self._function(node.decorator_list, node.args, node.body)

    def visit_Lambda(self, node):
        self._function([], node.args, [node.body])

    def _default(self, node):
        value, sign = node, 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand, ast.Constant):
            value, sign = node.operand, -1 if isinstance(node.op, ast.USub) else 1
        if not isinstance(value, ast.Constant):
            return
        v = value.value
        if isinstance(v, bool):
            new = not v
        elif isinstance(v, int):
            new = sign * v + 1
        elif isinstance(v, float):
            new = 2.0 * sign * v if v != 0.0 else 1.0
        elif isinstance(v, str):
            new = "" if v else "x"
        else:
            return
        start, end = self.text.start(node), self.text.end(node)
        self.add(start, end, repr(new), "default", f"default {self.text.source[start:end]} -> {new!r}")

    # -- statements ---------------------------------------------------
    def _statement(self, node):
        if self.function_depth == 0 or not isinstance(node, SIMPLE_STATEMENTS) or id(node) in self.docstrings:
            return
        start, end = self.text.start(node), self.text.end(node)
        first = self.text.source[start:end].split("\n")[0].strip()
        self.add(start, end, "pass", "statement", f"dropped `{first[:60]}`")

    def generic_visit(self, node):
        if isinstance(node, ast.stmt):
            self._statement(node)
        super().generic_visit(node)

    # -- operators -------------------------------------------------------
    def _swap_in_gap(self, left, right, pattern, replacement, operator, description):
        a, b = self.text.end(left), self.text.start(right)
        gap = _blank_comments(self.text.source[a:b])
        m = re.search(pattern, gap)
        if m:
            self.add(a + m.start(), a + m.end(), replacement, operator, description)

    def visit_BinOp(self, node):
        swap = ARITHMETIC.get(type(node.op))
        if swap:
            _new, old, new = swap
            # The text between the operands holds this operator and nothing else but brackets and comments.
            self._swap_in_gap(node.left, node.right, re.escape(old), new, "arithmetic", f"{old} -> {new}")
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._statement(node)
        swap = ARITHMETIC.get(type(node.op))
        if swap:
            _new, old, new = swap
            self._swap_in_gap(node.target, node.value, re.escape(old + "="), new + "=", "arithmetic", f"{old}= -> {new}=")
        self.visit(node.target)
        self.visit(node.value)

    def visit_Compare(self, node):
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            pattern, new = COMPARISON[type(op)]
            a, b = self.text.end(left), self.text.start(right)
            m = re.search(pattern, _blank_comments(self.text.source[a:b]))
            if m:
                old = re.sub(r"\s+", " ", m.group(0))
                self.add(a + m.start(), a + m.end(), new, "comparison", f"{old} -> {new}")
            left = right
        self.generic_visit(node)

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, int) and not isinstance(v, bool) and id(node) not in self.defaults:
            start, end = self.text.start(node), self.text.end(node)
            for new in (v + 1, v - 1):
                self.add(start, end, str(new), "constant", f"{v} -> {new}")

    def visit_Call(self, node):
        args = node.args
        for i in range(len(args) - 1):
            a, b = args[i], args[i + 1]
            if isinstance(a, ast.Starred) or isinstance(b, ast.Starred):
                continue
            src = self.text.source
            ta, tb = src[self.text.start(a) : self.text.end(a)], src[self.text.start(b) : self.text.end(b)]
            if ta == tb:
                continue
            start, end = self.text.start(a), self.text.end(b)
            middle = src[self.text.end(a) : self.text.start(b)]
            self.add(start, end, tb + middle + ta, "arguments", f"swapped arguments {i + 1} and {i + 2}", anchor=start)
        self.generic_visit(node)


def mutants(source):
    """Every mutant of ``source`` (see the module docstring), sorted by line, column, operator."""
    tree = ast.parse(source)
    text = Text(source)
    finder = Finder(text, tree)
    finder.visit(tree)
    seen = {source}
    out = []
    for start, end, replacement, operator, description, anchor in sorted(finder.edits, key=lambda e: (e[5], e[3], e[4])):
        mutated = source[:start] + replacement + source[end:]
        if mutated in seen:
            continue
        seen.add(mutated)
        try:
            compile(mutated, "<mutant>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        line = text.line_of(anchor)
        col = anchor - text.starts[line - 1]
        mutated_lines = mutated.splitlines()
        out.append(
            {
                "operator": operator,
                "line": line,
                "col": col,
                "description": description,
                "original": text.lines[line - 1].rstrip("\r\n"),
                "mutated": mutated_lines[line - 1] if line - 1 < len(mutated_lines) else "",
                "source": mutated,
            }
        )
    out.sort(key=lambda m: (m["line"], m["col"], m["operator"]))
    return out


def _main():
    request = json.loads(sys.stdin.read())
    json.dump({"mutants": mutants(request["source"])}, sys.stdout)


if __name__ == "__main__":
    _main()
