"""A reader and an mpmath interpreter for FPCore, the language the FPBench and Herbie benchmarks are written in.

Enough of FPCore 2.0 (https://fpbench.org/spec/fpcore-2.0.html) to give the exact value of a benchmark's
body and of its precondition: numbers (decimal, rational ``p/q``, hexadecimal), the constants (``PI``, ``E``,
...), arithmetic, the C math functions, comparisons (chained, as FPCore's are n-ary), ``and``/``or``/``not``,
``if``, ``let`` and ``let*``; and the properties of an ``FPCore`` form (``:name``, ``:pre``, ...).

As FPCore specifies for a binary64 computation, every literal and constant is rounded to binary64 before
it is used (``0.1`` is the double nearest 0.1), and then every operation is exact: :func:`evaluate` computes
in mpmath at the working precision (``mp.workprec``), so the value is the exact value of the expression
a PyTensor graph with float64 constants spells.  A value outside the reals (``(sqrt -1)``) is NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath as mp

__all__ = ["FPCore", "OPERATIONS", "evaluate", "operators", "parse", "read_all"]

Expr = Any  # str (a symbol or a number's text) | list of Expr


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == ";":  # a comment, to the end of the line
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("#|", i):  # a block comment
            i = text.index("|#", i) + 2
        elif c.isspace():
            i += 1
        elif c in "()[]":
            out.append("(" if c in "([" else ")")
            i += 1
        elif c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()[];":
                j += 1
            out.append(text[i:j])
            i = j
    return out


def _read(tokens: list[str], at: int) -> tuple[Expr, int]:
    tok = tokens[at]
    if tok == "(":
        items: list[Expr] = []
        at += 1
        while tokens[at] != ")":
            item, at = _read(tokens, at)
            items.append(item)
        return items, at + 1
    if tok == ")":
        raise ValueError("text: an unbalanced ')'")
    return tok, at + 1


def read_all(text: str) -> list[Expr]:
    """Every s-expression of ``text`` (lists of lists and atoms; strings keep their quotes)."""
    tokens = _tokens(text)
    out, at = [], 0
    while at < len(tokens):
        e, at = _read(tokens, at)
        out.append(e)
    return out


@dataclass(frozen=True)
class FPCore:
    """One ``FPCore`` form: its arguments, its properties (``:name``, ``:pre``, ...) and its body."""

    args: tuple[str, ...]
    props: tuple[tuple[str, Expr], ...]
    body: Expr
    ident: str | None = None

    @property
    def name(self) -> str:
        """The ``:name`` property, unquoted (the identifier when there is none)."""
        raw = self.prop(":name")
        return raw[1:-1] if isinstance(raw, str) else (self.ident or "")

    def prop(self, key: str) -> Expr | None:
        """The first value of the property ``key`` (``":pre"``), or ``None``."""
        return next((v for k, v in self.props if k == key), None)

    @property
    def pre(self) -> Expr:
        """The precondition (``"TRUE"`` when there is none)."""
        p = self.prop(":pre")
        return "TRUE" if p is None else p


def _arg_name(a: Expr) -> str:
    if isinstance(a, str):
        return a
    if a and a[0] == "!":  # (! :precision binary64 x): annotated
        return _arg_name(a[-1])
    raise ValueError(f"FPCore: an array argument is not elementwise: {a}")


def parse(text: str) -> list[FPCore]:
    """The ``FPCore`` forms of ``text``."""
    out = []
    for form in read_all(text):
        if not (isinstance(form, list) and form and form[0] == "FPCore"):
            continue
        rest = form[1:]
        ident = None
        if isinstance(rest[0], str):  # (FPCore name (args) ...)
            ident, rest = rest[0], rest[1:]
        args = tuple(_arg_name(a) for a in rest[0])
        rest = rest[1:]
        props = []
        while len(rest) > 1 and isinstance(rest[0], str) and rest[0].startswith(":"):
            props.append((rest[0], rest[1]))
            rest = rest[2:]
        if len(rest) != 1:
            raise ValueError(f"FPCore: no single body in {form}")
        out.append(FPCore(args, tuple(props), rest[0], ident))
    return out


def operators(e: Expr) -> set[str]:
    """The operator symbols (heads of lists) ``e`` uses, ``let``/``if``/... included."""
    if isinstance(e, str):
        return set()
    if not e:
        return set()
    out = {e[0]} if isinstance(e[0], str) else set()
    if e[0] in ("let", "let*", "while", "while*", "for", "for*"):
        for b in e[1]:
            out |= set().union(*(operators(x) for x in b[1:]))
        return out | set().union(*(operators(x) for x in e[2:]))
    for x in e[1:]:
        out |= operators(x)
    return out


def _double(x: Any) -> Any:
    """``x`` rounded to binary64 (FPCore's literals and constants in a binary64 computation)."""
    return mp.mpf(float(x))


def _number(tok: str) -> Any | None:
    try:
        if "/" in tok and not tok.startswith("/"):
            p, q = tok.split("/")
            return _double(mp.mpf(int(p)) / int(q))
        if tok.lower().startswith(("0x", "-0x", "+0x")):
            return _double(float.fromhex(tok))
        return _double(mp.mpf(tok))
    except (ValueError, ZeroDivisionError):
        return None


def _real(f: Callable[..., Any]) -> Callable[..., Any]:
    def g(*a: Any) -> Any:
        if any(isinstance(v, mp.mpf) and mp.isnan(v) for v in a):
            return mp.nan
        try:
            r = f(*a)
        except (ValueError, ZeroDivisionError):
            return mp.nan
        if isinstance(r, mp.mpc):
            return r.real if r.imag == 0 else mp.nan
        return r

    return g


def _div(a: Any, b: Any) -> Any:
    if b == 0:
        return mp.nan if a == 0 else mp.inf * mp.sign(a)
    return a / b


def _log(x: Any) -> Any:
    return mp.nan if x < 0 else (-mp.inf if x == 0 else mp.log(x))


def _pow(a: Any, b: Any) -> Any:
    if a < 0 and b != mp.floor(b):
        return mp.nan
    if a == 0 and b < 0:
        return mp.inf
    return mp.power(a, b)


def _sub(*a: Any) -> Any:
    return -a[0] if len(a) == 1 else a[0] - mp.fsum(a[1:])


def _chain(op: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    return lambda *a: all(op(x, y) for x, y in zip(a, a[1:], strict=False))


#: The real meaning of each FPCore operator (mpmath numbers in, an mpmath number or a bool out).
OPERATIONS: dict[str, Callable[..., Any]] = {
    "+": lambda *a: mp.fsum(a), "-": _sub, "*": lambda *a: mp.fprod(a), "/": _div,
    "fabs": abs, "fma": lambda a, b, c: a * b + c, "exp": mp.exp, "exp2": lambda x: mp.power(2, x),
    "expm1": mp.expm1, "log": _log, "log10": lambda x: _log(x) / mp.log(10), "log2": lambda x: _log(x) / mp.log(2),
    "log1p": lambda x: _log(1 + x) if x <= -1 else mp.log1p(x), "pow": _pow, "sqrt": mp.sqrt, "cbrt": mp.cbrt,
    "hypot": mp.hypot, "sin": mp.sin, "cos": mp.cos, "tan": mp.tan, "asin": mp.asin, "acos": mp.acos,
    "atan": mp.atan, "atan2": mp.atan2, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh, "asinh": mp.asinh,
    "acosh": mp.acosh, "atanh": mp.atanh, "erf": mp.erf, "erfc": mp.erfc, "tgamma": mp.gamma,
    "lgamma": lambda x: mp.log(abs(mp.gamma(x))), "ceil": mp.ceil, "floor": mp.floor,
    "fmin": lambda a, b: min(a, b), "fmax": lambda a, b: max(a, b), "fdim": lambda a, b: max(a - b, 0),
    "copysign": lambda a, b: abs(a) * (1 if b >= 0 else -1), "trunc": lambda x: mp.mpf(int(x)),
}
_PREDICATES: dict[str, Callable[..., bool]] = {
    "<": _chain(lambda a, b: a < b), ">": _chain(lambda a, b: a > b), "<=": _chain(lambda a, b: a <= b),
    ">=": _chain(lambda a, b: a >= b), "==": _chain(lambda a, b: a == b),
    "!=": lambda *a: all(x != y for i, x in enumerate(a) for y in a[i + 1 :]),
}
_CONSTANTS: dict[str, Any] = {
    "PI": math.pi, "E": math.e, "PI_2": math.pi / 2, "PI_4": math.pi / 4, "M_1_PI": 1 / math.pi,
    "M_2_PI": 2 / math.pi, "SQRT2": math.sqrt(2), "SQRT1_2": math.sqrt(0.5), "LN2": math.log(2),
    "LN10": math.log(10), "LOG2E": 1 / math.log(2), "LOG10E": 1 / math.log(10), "INFINITY": math.inf,
    "NAN": math.nan,
}


def evaluate(e: Expr, env: Mapping[str, Any]) -> Any:
    """The exact value of the FPCore expression ``e`` with the variables of ``env`` (mpmath numbers), at
    mpmath's working precision; a comparison or a connective gives a bool.  Raises ``KeyError`` naming an
    unknown operator or variable."""
    if isinstance(e, str):
        if e in env:
            return env[e]
        if e in ("TRUE", "FALSE"):
            return e == "TRUE"
        if e in _CONSTANTS:
            return _double(_CONSTANTS[e])
        n = _number(e)
        if n is None:
            raise KeyError(f"FPCore: unknown variable {e!r}")
        return n
    head, rest = e[0], e[1:]
    if head == "and":
        return all(evaluate(x, env) for x in rest)
    if head == "or":
        return any(evaluate(x, env) for x in rest)
    if head == "not":
        return not evaluate(rest[0], env)
    if head == "if":
        return evaluate(rest[1] if evaluate(rest[0], env) else rest[2], env)
    if head == "let":
        inner = dict(env)
        inner.update({b[0]: evaluate(b[1], env) for b in rest[0]})
        return evaluate(rest[1], inner)
    if head == "let*":
        inner = dict(env)
        for b in rest[0]:
            inner[b[0]] = evaluate(b[1], inner)
        return evaluate(rest[1], inner)
    if head == "!":  # (! :precision binary64 e): an annotation
        return evaluate(rest[-1], env)
    args = [evaluate(x, env) for x in rest]
    if head in _PREDICATES:
        return _PREDICATES[head](*args)
    if head not in OPERATIONS:
        raise KeyError(f"FPCore: unknown operator {head!r}")
    return _real(OPERATIONS[head])(*args)
