"""The prediction formula language: tokenizer, parser, expression tree, printer and evaluator.

Grammar, loosest binding first (reference/syntaxgym.md section 3)::

    or      := and ('|' and)*
    and     := compare ('&' compare)*
    compare := sum (('<' | '>' | '=' | '==') sum)?        # a second comparison is an error
    sum     := unary (('+' | '-') unary)*
    unary   := '-' unary | atom
    atom    := NUMBER | '(' N ';' '%' condition '%' ')' | '(' or ')' | '[' or ']'

``N`` is a region number or ``*`` (the whole sentence). Comparisons yield truth values; ``+ -`` take
numbers; ``& |`` take truth values: a formula that mixes them up is rejected when parsed.
Nothing is ever passed to ``eval``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal, Union

from linguagym.errors import ConfigurationError, FormulaError

# ---------------------------------------------------------------------------------------------- tree


@dataclass(frozen=True)
class Number:
    value: float


@dataclass(frozen=True)
class RegionRef:
    region: int | None  # None means '*': the whole sentence
    condition: str

    def __str__(self) -> str:
        return f"({'*' if self.region is None else self.region};%{self.condition}%)"


@dataclass(frozen=True)
class Negate:
    operand: Expr


@dataclass(frozen=True)
class Arithmetic:
    op: Literal["+", "-"]
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Comparison:
    op: Literal["<", ">", "="]
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Logical:
    op: Literal["&", "|"]
    left: Expr
    right: Expr


Expr = Union[Number, RegionRef, Negate, Arithmetic, Comparison, Logical]  # noqa: UP007 (forward refs)


@dataclass(frozen=True)
class ParsedFormula:
    """A parsed formula and the normalisations the parser applied to its text."""

    tree: Expr
    used_brackets: bool = False  # '[ ]' grouping, read as '( )'
    used_double_equals: bool = False  # '==', read as '='


# ------------------------------------------------------------------------------------------ tokenizer

# ASCII digits only: \d would also take "١" and "²", which int() and float() read (or refuse) unlike JSON
_REF = re.compile(r"\(\s*([0-9]+|\*)\s*;\s*%([^%]*)%\s*\)")
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SURROGATE = re.compile("[\ud800-\udfff]")

# Limits that keep every formula parseable, printable and comparable without deep recursion (the parser
# recurses once per '(' or '-', the printer and evaluator once per operator) and its messages short.
MAX_FORMULA_LENGTH = 10_000  # characters
MAX_NESTING = 50  # levels of '( )', '[ ]' and unary '-' inside one another
MAX_OPERATORS = 100  # '+ - < > = & |' in one formula
_MAX_REGION_DIGITS = 9  # a region number longer than this is no region of any suite
_SYMBOLS = ("==", "<", ">", "=", "+", "-", "&", "|", "(", ")", "[", "]")


@dataclass(frozen=True)
class _Token:
    kind: str  # 'num', 'ref', 'end', or the symbol itself
    text: str
    pos: int
    value: object = None


def _tokenize(text: str) -> Iterator[_Token]:
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace():
            pos += 1
            continue
        if char == "(" and (match := _REF.match(text, pos)):
            number, condition = match.groups()
            if len(number.lstrip("0")) > _MAX_REGION_DIGITS:
                shown = number if len(number) <= 20 else f"{number[:20]}..."
                raise FormulaError(text, match.start(1), f"region number {shown} is too large")
            region = None if number == "*" else int(number)
            yield _Token("ref", match.group(0), pos, RegionRef(region, condition))
            pos = match.end()
            continue
        if match := _NUMBER.match(text, pos):
            value = float(match.group(0))
            if not math.isfinite(value):  # it would be printed as 'inf', which does not parse back
                raise FormulaError(text, pos, "number too large (the largest is about 1.8e308)")
            yield _Token("num", match.group(0), pos, value)
            pos = match.end()
            continue
        for symbol in _SYMBOLS:
            if text.startswith(symbol, pos):
                yield _Token(symbol, symbol, pos)
                pos += len(symbol)
                break
        else:
            if char == "%" or char == ";":
                raise FormulaError(
                    text, pos, f"unexpected {char!r}: a region reference is written (N;%condition%)"
                )
            raise FormulaError(text, pos, f"unexpected character {char!r}")
    yield _Token("end", "", len(text))


# --------------------------------------------------------------------------------------------- parser

_CLOSING = {"(": ")", "[": "]"}


@dataclass
class _Parser:
    text: str
    tokens: list[_Token]
    index: int = 0
    used_brackets: bool = False
    used_double_equals: bool = False
    depth: int = 0  # current nesting of groups and negations
    operators: int = 0

    @property
    def current(self) -> _Token:
        return self.tokens[self.index]

    def advance(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def fail(self, token: _Token, reason: str) -> FormulaError:
        return FormulaError(self.text, token.pos, reason)

    def count_operator(self, token: _Token) -> None:
        self.operators += 1
        if self.operators > MAX_OPERATORS:
            raise self.fail(token, f"more than {MAX_OPERATORS} operators; split the prediction into several")

    def enter(self, token: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.fail(token, f"nested more than {MAX_NESTING} levels deep")

    def parse(self) -> Expr:
        if self.current.kind == "end":
            raise self.fail(self.current, "empty formula")
        tree = self.parse_or()
        if self.current.kind != "end":
            token = self.current
            if token.kind in (")", "]"):
                raise self.fail(token, f"unmatched {token.text!r}")
            raise self.fail(token, f"unexpected {token.text!r}: expected an operator or the end")
        if not _is_truth(tree):
            raise FormulaError(self.text, 0, "a formula must be a comparison (e.g. a < b), not a number")
        return tree

    def parse_or(self) -> Expr:
        return self._logical("|", self.parse_and)

    def parse_and(self) -> Expr:
        return self._logical("&", self.parse_compare)

    def _logical(self, op: Literal["&", "|"], operand: Callable[[], Expr]) -> Expr:
        start = self.current
        left = operand()
        while self.current.kind == op:
            op_token = self.advance()
            self.count_operator(op_token)
            right_start = self.current
            right = operand()
            self._require_truth(left, start, op_token)
            self._require_truth(right, right_start, op_token)
            left = Logical(op, left, right)
        return left

    def _require_truth(self, node: Expr, start: _Token, op_token: _Token) -> None:
        if not _is_truth(node):
            raise self.fail(
                start, f"{op_token.text!r} joins comparisons, but this operand is a number"
            )

    def parse_compare(self) -> Expr:
        start = self.current
        left = self.parse_sum()
        if self.current.kind not in ("<", ">", "=", "=="):
            return left
        op_token = self.advance()
        self.count_operator(op_token)
        if op_token.kind == "==":
            self.used_double_equals = True
        right_start = self.current
        right = self.parse_sum()
        for node, where in ((left, start), (right, right_start)):
            if _is_truth(node):
                raise self.fail(where, f"{op_token.text!r} compares numbers; this operand is a comparison")
        if self.current.kind in ("<", ">", "=", "=="):
            raise self.fail(
                self.current,
                "chained comparison: write (a < b) & (b < c) instead of a < b < c",
            )
        op = "=" if op_token.kind == "==" else op_token.kind
        return Comparison(op, left, right)  # type: ignore[arg-type]

    def parse_sum(self) -> Expr:
        start = self.current
        left = self.parse_unary()
        while self.current.kind in ("+", "-"):
            op_token = self.advance()
            self.count_operator(op_token)
            right_start = self.current
            right = self.parse_unary()
            for node, where in ((left, start), (right, right_start)):
                if _is_truth(node):
                    raise self.fail(where, f"{op_token.text!r} adds numbers; this operand is a comparison")
            left = Arithmetic(op_token.kind, left, right)  # type: ignore[arg-type]
        return left

    def parse_unary(self) -> Expr:
        if self.current.kind == "-":
            op_token = self.advance()
            self.count_operator(op_token)
            self.enter(op_token)
            operand_start = self.current
            operand = self.parse_unary()
            if _is_truth(operand):
                raise self.fail(operand_start, "'-' negates a number, but this operand is a comparison")
            self.depth -= 1
            return Negate(operand)
        return self.parse_atom()

    def parse_atom(self) -> Expr:
        token = self.current
        if token.kind == "num":
            self.advance()
            return Number(token.value)  # type: ignore[arg-type]
        if token.kind == "ref":
            self.advance()
            return token.value  # type: ignore[arg-type]
        if token.kind in _CLOSING:
            self.advance()
            self.enter(token)
            if token.kind == "[":
                self.used_brackets = True
            if self.current.kind == _CLOSING[token.kind] or self.current.kind == "end":
                raise self.fail(self.current, "expected an expression")
            inner = self.parse_or()
            if self.current.kind == "end":
                raise self.fail(token, f"{token.text!r} is never closed")
            if self.current.kind != _CLOSING[token.kind]:
                closing = _CLOSING[token.kind]
                raise self.fail(self.current, f"expected {closing!r} to close the {token.text!r}")
            self.advance()
            self.depth -= 1
            return inner
        if token.kind == "end":
            raise self.fail(token, "formula ends too early: expected a number, a region or '('")
        raise self.fail(token, f"unexpected {token.text!r}: expected a number, a region or '('")


def _is_truth(node: Expr) -> bool:
    return isinstance(node, Comparison | Logical)


def parse_formula(text: str) -> ParsedFormula:
    """Parse a formula's text; raises FormulaError pointing at the offending character."""
    if len(text) > MAX_FORMULA_LENGTH:
        raise FormulaError(text, MAX_FORMULA_LENGTH, f"longer than {MAX_FORMULA_LENGTH} characters")
    if surrogate := _SURROGATE.search(text):  # it could be neither printed nor saved as UTF-8
        raise FormulaError(text, surrogate.start(), "a lone surrogate (half of a UTF-16 pair) is no character")
    tokens = list(_tokenize(text))
    parser = _Parser(text, tokens)
    tree = parser.parse()
    return ParsedFormula(tree, parser.used_brackets, parser.used_double_equals)


# -------------------------------------------------------------------------------------------- printer

# Binding strength: higher binds tighter.
_PRECEDENCE = {Logical: {"|": 1, "&": 2}, Comparison: 3, Arithmetic: 4, Negate: 5}


def _precedence(node: Expr) -> int:
    if isinstance(node, Logical):
        return _PRECEDENCE[Logical][node.op]
    return _PRECEDENCE.get(type(node), 6)  # type: ignore[return-value]


def _format_number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def format_formula(node: Expr) -> str:
    """Print a tree back as formula text, with the parentheses it needs and no more."""
    if isinstance(node, Number):
        return _format_number(node.value)
    if isinstance(node, RegionRef):
        return str(node)
    if isinstance(node, Negate):
        inner = format_formula(node.operand)
        if _precedence(node.operand) < _precedence(node):
            inner = f"({inner})"
        # nested negation as '- -x', not '-(-x)': the printed formula must nest no deeper than the one read
        return f"- {inner}" if isinstance(node.operand, Negate) else f"-{inner}"
    mine = _precedence(node)
    left = format_formula(node.left)
    right = format_formula(node.right)
    if _precedence(node.left) < mine or (isinstance(node, Comparison) and _precedence(node.left) == mine):
        left = f"({left})"
    # left-associative operators: an equal-precedence right operand needs parentheses
    if _precedence(node.right) <= mine:
        right = f"({right})"
    return f"{left} {node.op} {right}"


def region_refs(node: Expr) -> tuple[RegionRef, ...]:
    """Every region reference in the tree, in order of appearance (duplicates kept)."""
    if isinstance(node, RegionRef):
        return (node,)
    if isinstance(node, Number):
        return ()
    if isinstance(node, Negate):
        return region_refs(node.operand)
    return region_refs(node.left) + region_refs(node.right)


# ------------------------------------------------------------------------------------------ evaluator


# How '<' and '>' decide two equal sides (docs/scoring.md, "Ties"): "strict", a tie fails (a < b is false when
# a == b); "lm-eval", a tie holds, as lm-evaluation-harness's argmax over [good, bad] log-likelihoods picks the
# first (good) choice on a tie, so a BLiMP pair with two identical sentences is correct there.
TIE_RULES = ("strict", "lm-eval")
# What a tied comparison was: its two sides equal ("exact": decided by the tie rule), or apart by no more than the
# tolerance '=' uses ("near": decided by the values, a difference below the precision the scores are stated to)
TIE_KINDS = ("exact", "near")


@dataclass(frozen=True)
class Tolerance:
    """'=' holds when |a - b| <= atol + rtol * |b|; ``ties``: how '<' and '>' decide two equal sides (TIE_RULES).
    A '<' or '>' whose sides are that close is a tie, and is reported (``Outcome.tie``)."""

    atol: float = 1e-3
    rtol: float = 1e-5
    ties: str = "strict"

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise ConfigurationError(f"unknown tie rule {self.ties!r}", hint="use one of " + ", ".join(TIE_RULES))


@dataclass(frozen=True)
class Outcome:
    """The truth of a formula for one item, the references whose value was undefined (NaN), and whether a '<' or
    '>' of it was a tie: "exact" (two equal sides, decided by the tie rule), "near" (sides within the tolerance,
    none equal) or "" (no tie)."""

    holds: bool
    undefined: tuple[RegionRef, ...] = ()
    tie: str = ""


def evaluate(
    node: Expr, lookup: Callable[[RegionRef], float], tolerance: Tolerance = Tolerance()
) -> Outcome:
    """Evaluate a truth-valued tree; a comparison involving an undefined (NaN) value is false."""
    undefined: list[RegionRef] = []
    ties: set[str] = set()

    def truth(n: Expr) -> bool:
        if isinstance(n, Logical):
            # both sides are always evaluated, so every undefined reference and every tie is reported
            a, b = truth(n.left), truth(n.right)
            return (a and b) if n.op == "&" else (a or b)
        if isinstance(n, Comparison):
            a, b = _number(n.left, lookup, undefined), _number(n.right, lookup, undefined)
            if kind := tie_kind(n.op, a, b, tolerance):
                ties.add(kind)
            return _compare(n.op, a, b, tolerance)
        raise TypeError(f"not a truth-valued node: {n!r}")

    holds = truth(node)
    return Outcome(holds, tuple(undefined), "exact" if "exact" in ties else ("near" if ties else ""))


def tie_kind(op: str, a: float, b: float, tolerance: Tolerance = Tolerance()) -> str:
    """Whether ``a op b`` is a tie: "exact" (a == b), "near" (apart by no more than '=' allows), else ""; only
    '<' and '>' tie ('=' is meant to hold on equal sides)."""
    if op == "=" or math.isnan(a) or math.isnan(b):
        return ""
    if a == b:
        return "exact"
    return "near" if _within(a, b, tolerance) else ""


def _number(n: Expr, lookup: Callable[[RegionRef], float], undefined: list[RegionRef]) -> float:
    """The value of a numeric tree; references whose value is NaN are added to ``undefined``."""
    if isinstance(n, Number):
        return n.value
    if isinstance(n, RegionRef):
        value = float(lookup(n))
        if math.isnan(value) and n not in undefined:
            undefined.append(n)
        return value
    if isinstance(n, Negate):
        return -_number(n.operand, lookup, undefined)
    if isinstance(n, Arithmetic):
        a, b = _number(n.left, lookup, undefined), _number(n.right, lookup, undefined)
        return a + b if n.op == "+" else a - b
    raise TypeError(f"not a numeric node: {n!r}")


def _compare(op: str, a: float, b: float, tolerance: Tolerance) -> bool:
    if math.isnan(a) or math.isnan(b):
        return False
    if a == b and op != "=":  # a tie: decided by the rule, not by the values
        return tolerance.ties == "lm-eval"
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    return _within(a, b, tolerance)


def _within(a: float, b: float, tolerance: Tolerance) -> bool:
    return abs(a - b) <= tolerance.atol + tolerance.rtol * abs(b)


@dataclass(frozen=True)
class ComparisonTerms:
    """One comparison of a formula with the values of its two sides (NaN where a side is undefined)."""

    text: str  # the comparison as ``format_formula`` prints it
    op: str
    left: float
    right: float
    holds: bool
    tie: str = ""  # "exact", "near" or "" (tie_kind)


@dataclass(frozen=True)
class Explanation:
    """A formula evaluated with its working shown: the outcome, each region reference's value (each reference once,
    in order of appearance) and each comparison's two sides, left to right."""

    outcome: Outcome
    references: tuple[tuple[RegionRef, float], ...]
    comparisons: tuple[ComparisonTerms, ...]


def explain(node: Expr, lookup: Callable[[RegionRef], float], tolerance: Tolerance = Tolerance()) -> Explanation:
    """``evaluate`` with the value of every term: what a reader needs to see why a prediction holds or not."""
    values: dict[RegionRef, float] = {}

    def remembered(ref: RegionRef) -> float:
        if ref not in values:
            values[ref] = float(lookup(ref))
        return values[ref]

    def comparisons(n: Expr) -> Iterator[Comparison]:
        if isinstance(n, Logical):
            yield from comparisons(n.left)
            yield from comparisons(n.right)
        elif isinstance(n, Comparison):
            yield n

    outcome = evaluate(node, remembered, tolerance)
    terms = []
    for comparison in comparisons(node):
        a, b = _number(comparison.left, remembered, []), _number(comparison.right, remembered, [])
        op = comparison.op
        terms.append(ComparisonTerms(format_formula(comparison), op, a, b, _compare(op, a, b, tolerance),
                                     tie_kind(op, a, b, tolerance)))
    return Explanation(outcome, tuple(values.items()), tuple(terms))
