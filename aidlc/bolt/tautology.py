"""An assertion that cannot fail (`is_tautology`), read from one line: a literal that is always true (`assert True`,
`self.assertTrue(1)`, `expect(true).toBeTruthy()`, `assert!(true)`), one always false asserted false, or one
expression compared with itself (`assert x == x`, `self.assertEqual(5, 5)`, `expect(total).toBe(total)`,
`assert.strictEqual(a, a)`, `assert_eq!(v, v)`). The line is read with Python's parser, which also reads the
JavaScript, Java, Go and Rust assertions above; an expression holding a call is not taken as the same on both sides
(`assert next(it) == next(it)` may be a real test). A finding is a question for a person, never a verdict."""

from __future__ import annotations

import ast
import re

_RUST_MACRO = re.compile(r"^(assert\w*)!\(")
_LITERALS = {"True": True, "true": True, "False": False, "false": False, "None": False, "null": False,
             "undefined": False, "nil": False}
_TRUTHY = {"asserttrue", "assert", "ok", "istrue", "truthy", "failunless"}  # name, `assert` and `_` dropped
_FALSY = {"assertfalse", "isfalse", "assertisnone", "assertnull", "isnull", "falsy", "failif"}
_SAME = {"equal", "equals", "eq", "is", "same", "strictequal", "deepequal", "deepstrictequal", "listequal",
         "dictequal", "countequal", "sequenceequal", "setequal", "tupleequal", "multilineequal", "almostequal",
         "almostequals", "greaterequal", "lessequal", "greaterorequal", "lessorequal", "tobe", "toequal",
         "tostrictequal", "eql", "isequalto", "issameas", "tobegreaterthanorequal", "tobelessthanorequal"}
_EXPECT = {"expect", "assertthat"}


def is_tautology(line: str) -> bool:
    """Whether a one-line assertion cannot fail (see the module): a truthy literal asserted, a falsy one asserted
    false, or one expression compared with itself."""
    code = _RUST_MACRO.sub(r"\1(", line.strip().rstrip(";"))
    code = re.sub(r"^assert\.", "_assert.", code)  # Node's assert module: `assert.ok(...)`
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError):
        return False
    if len(body) != 1:
        return False
    node = body[0]
    if isinstance(node, ast.Assert):
        return _always(node.test) is True or _compares_itself(node.test)
    value = node.value if isinstance(node, ast.Expr) else None
    if isinstance(value, ast.Await):
        value = value.value
    if isinstance(value, ast.Call):
        return _call_cannot_fail(value)
    if isinstance(value, ast.Attribute):  # chai: expect(true).to.be.true
        subject = _expected(value)
        return subject is not None and value.attr in ("true", "ok") and _always(subject) is True
    return False


def _always(node: ast.expr) -> bool | None:
    """The truth of a literal (`True`, `1`, `"x"`, `null`, `not False`); None for anything else."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.Name) and node.id in _LITERALS:
        return _LITERALS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _always(node.operand)
        return None if inner is None else not inner
    return None


def _same(first: ast.expr, second: ast.expr) -> bool:
    """One expression on both sides, holding no call (a call may give another value the second time)."""
    return ast.dump(first) == ast.dump(second) and not any(isinstance(n, ast.Call) for n in ast.walk(first))


def _compares_itself(node: ast.expr) -> bool:
    return isinstance(node, ast.Compare) and len(node.ops) == 1 \
        and isinstance(node.ops[0], (ast.Eq, ast.Is, ast.LtE, ast.GtE)) and _same(node.left, node.comparators[0])


def _expected(node: ast.expr) -> ast.expr | None:
    """The subject of an `expect(X)...` or `assertThat(X)...` chain, else None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Call) and _name(node.func) in _EXPECT and len(node.args) == 1:
        return node.args[0]
    return None


def _name(func: ast.expr) -> str:
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name.replace("_", "").lower()


def _call_cannot_fail(call: ast.Call) -> bool:
    name = _name(call.func)
    args = list(call.args)
    subject = _expected(call.func.value) if isinstance(call.func, ast.Attribute) else None
    if subject is not None:  # expect(X).toBe(Y), assertThat(X).isEqualTo(Y), expect(X).toBeTruthy()
        return _expectation_cannot_fail(name, subject, args)
    if args and isinstance(args[0], ast.Name) and args[0].id == "t":  # Go's testify: assert.Equal(t, a, b)
        args = args[1:]
    if not args:
        return False
    short = name.removeprefix("assert") or name
    if name in _TRUTHY or short in _TRUTHY:
        return _always(args[0]) is True
    if name in _FALSY:
        return _always(args[0]) is False
    return short in _SAME and len(args) >= 2 and _same(args[0], args[1])


def _expectation_cannot_fail(name: str, subject: ast.expr, args: list[ast.expr]) -> bool:
    """`expect(subject).name(args)` (or assertThat): the same thing compared with itself, or a literal whose truth
    is what the matcher expects."""
    if args:
        return name in _SAME and _same(subject, args[0])
    truth = _always(subject)
    return (name in ("tobetruthy", "tobedefined") and truth is True) or \
        (name in ("tobefalsy", "tobenull", "tobeundefined") and truth is False)
