"""The prediction formula language: tokenizer, parser, expression tree, printer and evaluator.

Grammar, loosest binding first (reference/syntaxgym.md section 3; docs/suite-format.md)::

    formula := suite | or
    suite   := ('mean' | 'median') group CMP sum           # over items; the right side a number: mean(x) > 0
    or      := and ('|' and)*
    and     := compare ('&' compare)*
    compare := sum (('<' | '>' | '=' | '==' | '<=' | '>=' | '!=') sum)?   # a second comparison is an error
    sum     := scaled (('+' | '-') scaled)*
    scaled  := NUMBER '*' scaled | '-' scaled | atom    # number * expression only: the formula stays linear
    atom    := NUMBER | ref | '(' or ')' | '[' or ']' | 'abs' group | '!' group
    group   := '(' or ')' | '[' or ']'
    ref     := '(' regions ';' '%' condition '%' ')'
    regions := '*' | span (',' span)*                   # the regions of a range or list are summed
    span    := N | N '..' M                             # M > N

``*`` is the whole sentence. Comparisons and ``!`` yield truth values; ``+ - * abs`` take numbers; ``& | !`` take
truth values: a formula that mixes them up is rejected when parsed. ``a >= b`` is ``(a > b) | (a = b)``, ``a <= b``
likewise, ``a != b`` is ``!(a = b)``: ``=`` and these three use the tolerance and have no ties. ``(3..5;%c%)`` is
``(3;%c%) + (4;%c%) + (5;%c%)``, the sum of the regions' values in the metric (undefined where one of them is).
A ``suite`` formula is a suite-level prediction: the mean or median over a suite's items of a per-item expression,
compared with a number (``mean((2;%mismatch%) - (2;%match%)) > 0``); it is the whole formula, never part of one, and
is evaluated once per suite (``evaluation/suite_level.py``), not item by item. Nothing is ever passed to ``eval``.
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
class RegionSum:
    """``(3..5;%c%)`` or ``(3,5;%c%)``: the sum of several regions' values, as written (spans of regions, a span
    ``(n, n)`` being one region); always two regions or more, none twice (one region is a ``RegionRef``)."""

    spans: tuple[tuple[int, int], ...]
    condition: str

    @property
    def refs(self) -> tuple[RegionRef, ...]:
        return tuple(RegionRef(n, self.condition) for first, last in self.spans for n in range(first, last + 1))

    def __str__(self) -> str:
        spans = ",".join(str(first) if first == last else f"{first}..{last}" for first, last in self.spans)
        return f"({spans};%{self.condition}%)"


@dataclass(frozen=True)
class Negate:
    operand: Expr


@dataclass(frozen=True)
class Scale:
    """``2 * x``: a number (written first, never negative: ``-2 * x`` is ``Negate(Scale(2, x))``) times a numeric
    expression holding a region reference."""

    factor: float
    operand: Expr


@dataclass(frozen=True)
class Abs:
    operand: Expr


AGGREGATES = ("mean", "median")


@dataclass(frozen=True)
class Aggregate:
    """``mean(x)`` or ``median(x)``: a numeric expression ``x`` of one item, summarised over a suite's items; only
    ever the left side of a suite-level prediction's comparison (``suite_level``)."""

    function: Literal["mean", "median"]
    operand: Expr


@dataclass(frozen=True)
class Arithmetic:
    op: Literal["+", "-"]
    left: Expr
    right: Expr


COMPARISON_OPS = ("<", ">", "=", "<=", ">=", "!=")
Relation = Literal["<", ">", "=", "<=", ">=", "!="]


@dataclass(frozen=True)
class Comparison:
    op: Relation
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Not:
    operand: Expr  # a truth value


@dataclass(frozen=True)
class Logical:
    op: Literal["&", "|"]
    left: Expr
    right: Expr


Expr = Union[Number, RegionRef, RegionSum, Negate, Scale, Abs, Aggregate, Arithmetic, Comparison, Not,  # noqa: UP007
             Logical]


@dataclass(frozen=True)
class ParsedFormula:
    """A parsed formula and the normalisations the parser applied to its text."""

    tree: Expr
    used_brackets: bool = False  # '[ ]' grouping, read as '( )'
    used_double_equals: bool = False  # '==', read as '='


# ------------------------------------------------------------------------------------------ tokenizer

# A region reference, its regions checked apart (_regions) so that a bad range is pointed at, not misread. The
# regions part holds none of '( ) [ ] ; %', so no text that was anything but a reference matches.
_REF = re.compile(r"\(([^;()\[\]%]*);\s*%([^%]*)%\s*\)")  # (no nested quantifiers: linear time)
# ASCII digits only: \d would also take "١" and "²", which int() and float() read (or refuse) unlike JSON
_SPAN = re.compile(r"([0-9]+)(?:\s*\.\.\s*([0-9]+))?")
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SURROGATE = re.compile("[\ud800-\udfff]")

# Limits that keep every formula parseable, printable and comparable without deep recursion (the parser
# recurses once per '(' or '-', the printer and evaluator once per operator) and its messages short.
MAX_FORMULA_LENGTH = 10_000  # characters
MAX_NESTING = 50  # levels of '( )', '[ ]' and unary '-' inside one another
MAX_OPERATORS = 100  # '+ - * < > = <= >= != ! & |' and abs() in one formula
MAX_REGIONS = 1_000  # regions named in one formula, a range counting each of its regions
_MAX_REGION_DIGITS = 9  # a region number longer than this is no region of any suite
_SYMBOLS = ("==", "<=", ">=", "!=", "<", ">", "=", "!", "+", "-", "*", "&", "|", "(", ")", "[", "]")
# operators of other languages, with the one to write instead
_MISTAKES = {"=>": ">=", "=<": "<=", "<>": "!=", "&&": "&", "||": "|", "≥": ">=", "≤": "<=", "≠": "!=",
             "¬": "!", "−": "-", "×": "*", "·": "*"}


@dataclass(frozen=True)
class _Token:
    kind: str  # 'num', 'ref', 'abs', 'end', or the symbol itself
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
            yield _Token("ref", match.group(0), pos, _reference(text, match))
            pos = match.end()
            continue
        if match := _NUMBER.match(text, pos):
            value = float(match.group(0))
            if not math.isfinite(value):  # it would be printed as 'inf', which does not parse back
                raise FormulaError(text, pos, "number too large (the largest is about 1.8e308)")
            yield _Token("num", match.group(0), pos, value)
            pos = match.end()
            continue
        for mistake, meant in _MISTAKES.items():
            if text.startswith(mistake, pos):
                raise FormulaError(text, pos, f"{mistake!r} is not an operator here: write {meant!r}")
        if match := _WORD.match(text, pos):
            yield _word(text, match)
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


def _word(text: str, match: re.Match) -> _Token:
    """'abs', 'mean' and 'median', the names a formula knows; any other word is refused with what to write."""
    word = match.group(0)
    if word == "abs":
        return _Token("abs", word, match.start())
    if word in AGGREGATES:
        return _Token("agg", word, match.start())
    if word.lower() in ("abs", *AGGREGATES):
        raise FormulaError(text, match.start(), f"unknown name {word!r}: write {word.lower()} in lower case, "
                           f"{word.lower()}(...)")
    shown = word if len(word) <= 20 else f"{word[:20]}..."
    reason = f"unexpected character {word!r}" if len(word) == 1 else f"unknown name {shown!r}"
    raise FormulaError(text, match.start(), f"{reason}: the names a formula knows are abs(...), and mean(...) and "
                       "median(...) over items (a suite-level prediction); a region is written (N;%condition%)")


def _reference(text: str, match: re.Match) -> RegionRef | RegionSum:
    """The reference ``match`` found: one region, '*', or the regions of ranges and lists (a RegionSum)."""
    condition = match.group(2)
    spec, start = match.group(1), match.start(1)
    if spec.strip() == "*":
        return RegionRef(None, condition)
    if not spec.strip():
        raise FormulaError(text, start + len(spec), "a region reference names its region: (N;%condition%), or "
                           "(*;%condition%) for the whole sentence")
    spans: list[tuple[int, int]] = []
    seen: set[int] = set()
    offset = 0
    for part in spec.split(","):
        stripped = part.strip()
        where = start + offset + (len(part) - len(part.lstrip()))
        offset += len(part) + 1
        if stripped == "*":
            raise FormulaError(text, where, "'*' (the whole sentence) stands alone: (*;%condition%), not in a list")
        span = _SPAN.fullmatch(stripped)
        if span is None:
            ranged = re.fullmatch(r"([0-9]+)\s*(?:-|\.\.\.|:|to)\s*([0-9]+)", stripped)
            if ranged:  # another language's range: say how this one writes it
                raise FormulaError(text, where, f"a range of regions is written {ranged[1]}..{ranged[2]}")
            odd = re.search(r"[^0-9.\s]", stripped)
            if odd:
                where += odd.start()
            reason = f"unexpected character {odd.group()!r} in a region reference" if odd else \
                f"{_clip(stripped)!r} is not a region"
            raise FormulaError(text, where, f"{reason}: write a region N, a range N..M or a list N,M")
        first_text, last_text = span.group(1), span.group(2) or span.group(1)
        for number_text, number_at in ((first_text, where), (last_text, where + span.start(2 if span.group(2) else 1))):
            if len(number_text.lstrip("0")) > _MAX_REGION_DIGITS:
                raise FormulaError(text, number_at, f"region number {_clip(number_text)} is too large")
        first, last = int(first_text), int(last_text)
        if last < first:
            raise FormulaError(text, where, f"the range {first}..{last} runs downward: write {last}..{first}")
        if last == first and span.group(2):
            raise FormulaError(text, where, f"the range {first}..{last} holds one region: write {first}")
        if last - first >= MAX_REGIONS or len(seen) + last - first >= MAX_REGIONS:
            raise FormulaError(text, where, f"more than {MAX_REGIONS} regions in one reference")
        twice = next((n for n in range(first, last + 1) if n in seen), None)
        if twice is not None:
            raise FormulaError(text, where, f"region {twice} is named twice in this reference")
        seen.update(range(first, last + 1))
        spans.append((first, last))
    if len(spans) == 1 and spans[0][0] == spans[0][1]:
        return RegionRef(spans[0][0], condition)
    return RegionSum(tuple(spans), condition)


def _clip(text: str) -> str:
    return text if len(text) <= 20 else f"{text[:20]}..."


# --------------------------------------------------------------------------------------------- parser

_CLOSING = {"(": ")", "[": "]"}
_COMPARISON_TOKENS = ("<", ">", "=", "==", "<=", ">=", "!=")


@dataclass
class _Parser:
    text: str
    tokens: list[_Token]
    index: int = 0
    used_brackets: bool = False
    used_double_equals: bool = False
    depth: int = 0  # current nesting of groups and negations
    operators: int = 0
    regions: int = 0  # regions named so far (a range counts each of its regions)

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
        tree = self.parse_suite_level() if self.current.kind == "agg" else self.parse_or()
        if self.current.kind != "end":
            token = self.current
            if token.kind in (")", "]"):
                raise self.fail(token, f"unmatched {token.text!r}")
            raise self.fail(token, f"unexpected {token.text!r}: expected an operator or the end")
        if not _is_truth(tree):
            raise FormulaError(self.text, 0, "a formula must be a comparison (e.g. a < b), not a number")
        return tree

    def parse_suite_level(self) -> Expr:
        """``mean(x) OP NUMBER``: the whole formula (``parse`` checks that nothing follows)."""
        agg = self.advance()
        self.count_operator(agg)
        operand_start = self.current
        operand = self.parse_group(agg)
        if _is_truth(operand):
            raise self.fail(operand_start, f"{agg.text}() takes a number of each item; this operand is a comparison: "
                            f"write {agg.text}((3;%a%) - (3;%b%)) > 0")
        if not region_refs(operand):
            raise self.fail(operand_start, f"{agg.text}() of a number that names no region is that number: "
                            f"write {agg.text}() of an expression of regions, {agg.text}((3;%a%) - (3;%b%)) > 0")
        if self.current.kind not in _COMPARISON_TOKENS:
            where = self.current
            shown = "the end" if where.kind == "end" else repr(where.text)
            raise self.fail(where, f"a suite-level prediction compares {agg.text}(...) with a number; found "
                            f"{shown}: write {agg.text}(...) > 0")
        op_token = self.advance()
        self.count_operator(op_token)
        if op_token.kind == "==":
            self.used_double_equals = True
        if op_token.kind in ("<", ">") and self.current.kind == "=":
            raise self.fail(self.current, f"write {op_token.kind + '='!r} as one operator, without a space")
        right_start = self.current
        right = self.parse_sum()
        if constant_value(right) is None:
            raise self.fail(right_start, f"{agg.text}(...) is compared with a number (such as 0 or -0.5); write "
                            "any other term inside the parentheses: mean((3;%a%) - (3;%b%) - 1) > 0")
        if self.current.kind in _COMPARISON_TOKENS:
            raise self.fail(self.current, "chained comparison: a suite-level prediction is one comparison")
        if self.current.kind in ("&", "|"):
            raise self.fail(self.current, f"{self.current.text!r} cannot join a suite-level prediction: write "
                            "each comparison as a prediction of its own")
        op = "=" if op_token.kind == "==" else op_token.kind
        return Comparison(op, Aggregate(agg.text, operand), right)  # type: ignore[arg-type]

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
        if self.current.kind not in _COMPARISON_TOKENS:
            return left
        op_token = self.advance()
        self.count_operator(op_token)
        if op_token.kind == "==":
            self.used_double_equals = True
        if op_token.kind in ("<", ">") and self.current.kind == "=":  # '> =': one operator, split by a space
            raise self.fail(self.current, f"write {op_token.kind + '='!r} as one operator, without a space")
        right_start = self.current
        right = self.parse_sum()
        for node, where in ((left, start), (right, right_start)):
            if _is_truth(node):
                raise self.fail(where, f"{op_token.text!r} compares numbers; this operand is a comparison")
        if self.current.kind in _COMPARISON_TOKENS:
            raise self.fail(
                self.current,
                "chained comparison: write (a < b) & (b < c) instead of a < b < c",
            )
        op = "=" if op_token.kind == "==" else op_token.kind
        return Comparison(op, left, right)  # type: ignore[arg-type]

    def parse_sum(self) -> Expr:
        start = self.current
        left = self.parse_scaled()
        self._no_product()
        while self.current.kind in ("+", "-"):
            op_token = self.advance()
            self.count_operator(op_token)
            right_start = self.current
            right = self.parse_scaled()
            self._no_product()
            for node, where in ((left, start), (right, right_start)):
                if _is_truth(node):
                    raise self.fail(where, f"{op_token.text!r} adds numbers; this operand is a comparison")
            left = Arithmetic(op_token.kind, left, right)  # type: ignore[arg-type]
        return left

    def _no_product(self) -> None:
        """A '*' after an operand that is not a plain number: only a number may be written before '*'."""
        if self.current.kind == "*":
            raise self.fail(self.current, "'*' takes a number on its left: write 2 * (3;%c%), not (3;%c%) * 2; "
                            "two regions' values cannot be multiplied (a prediction stays linear)")

    def parse_scaled(self) -> Expr:
        token = self.current
        if token.kind == "-":
            self.advance()
            self.count_operator(token)
            self.enter(token)
            operand_start = self.current
            operand = self.parse_scaled()
            if _is_truth(operand):
                raise self.fail(operand_start, "'-' negates a number, but this operand is a comparison; "
                                "write !(a < b) to negate a comparison")
            self.depth -= 1
            return Negate(operand)
        if token.kind == "num" and self.tokens[self.index + 1].kind == "*":
            self.advance()
            star = self.advance()
            self.count_operator(star)
            operand_start = self.current
            if operand_start.kind == "end":
                raise self.fail(operand_start, "formula ends too early: expected what '*' multiplies")
            operand = self.parse_scaled()
            if _is_truth(operand):
                raise self.fail(operand_start, "'*' multiplies a number; this operand is a comparison")
            if not region_refs(operand):
                raise self.fail(star, f"'*' between numbers only: write the number itself, not "
                                f"{token.text} * {self.text[operand_start.pos:self.current.pos].strip()}")
            return Scale(token.value, operand)  # type: ignore[arg-type]
        return self.parse_atom()

    def parse_group(self, owner: _Token) -> Expr:
        """'( or )' or '[ or ]' after '!' or 'abs' (``owner``)."""
        token = self.current
        if token.kind not in _CLOSING:
            example = {"!": "!(a < b)", "abs": "abs((3;%a%) - (3;%b%))"}.get(
                owner.kind, f"{owner.text}((3;%a%) - (3;%b%)) > 0")
            raise self.fail(token, f"{owner.text!r} is followed by its operand in parentheses: write {example}")
        return self.parse_atom()

    def parse_atom(self) -> Expr:
        token = self.current
        if token.kind == "num":
            self.advance()
            return Number(token.value)  # type: ignore[arg-type]
        if token.kind == "ref":
            self.advance()
            ref = token.value
            self.regions += len(ref.refs) if isinstance(ref, RegionSum) else 1
            if self.regions > MAX_REGIONS:
                raise self.fail(token, f"more than {MAX_REGIONS} regions named; split the prediction into several")
            return ref  # type: ignore[return-value]
        if token.kind in ("!", "abs"):
            self.advance()
            self.count_operator(token)
            operand_start = self.current
            operand = self.parse_group(token)
            if token.kind == "!":
                if not _is_truth(operand):
                    raise self.fail(operand_start, "'!' negates a comparison; this operand is a number "
                                    "(write -x to negate a number)")
                return Not(operand)
            if _is_truth(operand):
                raise self.fail(operand_start, "abs() takes a number; this operand is a comparison")
            return Abs(operand)
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
        if token.kind == "agg":
            raise self.fail(token, f"{token.text}(...) summarises items and makes a suite-level prediction of its "
                            f"own, the whole formula: {token.text}(x) OP NUMBER, e.g. "
                            f"{token.text}((3;%a%) - (3;%b%)) > 0")
        if token.kind == "end":
            raise self.fail(token, "formula ends too early: expected a number, a region or '('")
        if token.kind == "*":
            raise self.fail(token, "'*' takes a number on its left: write 2 * (3;%c%)")
        raise self.fail(token, f"unexpected {token.text!r}: expected a number, a region or '('")


def _is_truth(node: Expr) -> bool:
    return isinstance(node, Comparison | Logical | Not)


def constant_value(node: Expr) -> float | None:
    """The value of a number, or of a negated one (``-0.5``); None for anything else."""
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Negate) and isinstance(node.operand, Number):
        return -node.operand.value
    return None


@dataclass(frozen=True)
class SuiteLevel:
    """A suite-level prediction's parts: ``function`` (mean or median) over items of ``expression``, ``op``,
    ``threshold``."""

    function: str
    expression: Expr
    op: str
    threshold: float


def suite_level(node: Expr) -> SuiteLevel | None:
    """The parts of a suite-level prediction's tree (``mean(x) OP NUMBER``); None for an item-level one."""
    if isinstance(node, Comparison) and isinstance(node.left, Aggregate):
        threshold = constant_value(node.right)
        if threshold is not None:
            return SuiteLevel(node.left.function, node.left.operand, node.op, threshold)
    return None


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
_PRECEDENCE: dict[type, int] = {Comparison: 3, Arithmetic: 4, Negate: 5, Scale: 5}
_LOGICAL_PRECEDENCE = {"|": 1, "&": 2}


def _precedence(node: Expr) -> int:
    if isinstance(node, Logical):
        return _LOGICAL_PRECEDENCE[node.op]
    return _PRECEDENCE.get(type(node), 6)


def _format_number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def format_formula(node: Expr) -> str:
    """Print a tree back as formula text, with the parentheses it needs and no more."""
    if isinstance(node, Number):
        return _format_number(node.value)
    if isinstance(node, RegionRef | RegionSum):
        return str(node)
    if isinstance(node, Not):
        return f"!({format_formula(node.operand)})"
    if isinstance(node, Abs):
        return f"abs({format_formula(node.operand)})"
    if isinstance(node, Aggregate):
        return f"{node.function}({format_formula(node.operand)})"
    if isinstance(node, Negate | Scale):
        inner = format_formula(node.operand)
        if _precedence(node.operand) < _precedence(node):
            inner = f"({inner})"
        if isinstance(node, Scale):
            return f"{_format_number(node.factor)} * {inner}"
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
    """Every region reference in the tree, in order of appearance (duplicates kept); a range or list gives each of
    its regions."""
    if isinstance(node, RegionRef):
        return (node,)
    if isinstance(node, RegionSum):
        return node.refs
    if isinstance(node, Number):
        return ()
    if isinstance(node, Negate | Scale | Abs | Not | Aggregate):
        return region_refs(node.operand)
    return region_refs(node.left) + region_refs(node.right)


def references(node: Expr) -> tuple[RegionRef | RegionSum, ...]:
    """Every reference in the tree as written (a range or list is one), in order of appearance."""
    if isinstance(node, RegionRef | RegionSum):
        return (node,)
    if isinstance(node, Number):
        return ()
    if isinstance(node, Negate | Scale | Abs | Not | Aggregate):
        return references(node.operand)
    return references(node.left) + references(node.right)


def operators(node: Expr) -> set[str]:
    """The operators and forms a tree uses: its comparison and logical operators, '+', '-' (negation too), '*',
    'abs', '!', 'mean', 'median', '..' (a range of regions) and ',' (a list of regions): what ``peers.py`` checks
    other tools read."""
    if isinstance(node, Number | RegionRef):
        return set()
    if isinstance(node, RegionSum):
        forms = {","} if len(node.spans) > 1 else set()
        return forms | ({".."} if any(first != last for first, last in node.spans) else set())
    if isinstance(node, Aggregate):
        return {node.function} | operators(node.operand)
    own = {Negate: "-", Scale: "*", Abs: "abs", Not: "!"}.get(type(node))
    if own is not None:
        return {own} | operators(node.operand)  # type: ignore[union-attr]
    return {node.op} | operators(node.left) | operators(node.right)  # type: ignore[union-attr]


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
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
                raise ConfigurationError(f"{name} must be a number of at least 0, not {value!r}",
                                         hint=f"e.g. {name}={getattr(Tolerance, name)} (the default)")
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
    # each comparison's (left, right) values in ``comparisons``' order, NaN where undefined: its effect is their
    # difference (evaluation/effects.py)
    sides: tuple[tuple[float, float], ...] = ()


def evaluate(
    node: Expr, lookup: Callable[[RegionRef], float], tolerance: Tolerance = Tolerance()
) -> Outcome:
    """Evaluate a truth-valued tree; a comparison involving an undefined (NaN) value is false (its negation
    ``!( )`` true: the caller counts a prediction naming an undefined value as undefined, ``Outcome.undefined``)."""
    undefined: list[RegionRef] = []
    ties: set[str] = set()
    sides: list[tuple[float, float]] = []

    def truth(n: Expr) -> bool:
        if isinstance(n, Logical):
            # both sides are always evaluated, so every undefined reference and every tie is reported
            a, b = truth(n.left), truth(n.right)
            return (a and b) if n.op == "&" else (a or b)
        if isinstance(n, Not):
            return not truth(n.operand)
        if isinstance(n, Comparison):
            x, y = _number(n.left, lookup, undefined), _number(n.right, lookup, undefined)
            sides.append((x, y))
            if kind := tie_kind(n.op, x, y, tolerance):
                ties.add(kind)
            return _compare(n.op, x, y, tolerance)
        raise TypeError(f"not a truth-valued node: {n!r}")

    holds = truth(node)
    return Outcome(holds, tuple(undefined), "exact" if "exact" in ties else ("near" if ties else ""), tuple(sides))


def tie_kind(op: str, a: float, b: float, tolerance: Tolerance = Tolerance()) -> str:
    """Whether ``a op b`` is a tie: "exact" (a == b), "near" (apart by no more than '=' allows), else ""; only
    '<' and '>' tie ('=', '<=', '>=' are meant to hold on equal sides, '!=' to fail: the tolerance decides them)."""
    if op not in ("<", ">") or math.isnan(a) or math.isnan(b):
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
    if isinstance(n, RegionSum):  # every region looked up, so that each undefined one is reported
        return sum((_number(ref, lookup, undefined) for ref in n.refs), 0.0)
    if isinstance(n, Negate):
        return -_number(n.operand, lookup, undefined)
    if isinstance(n, Scale):
        return n.factor * _number(n.operand, lookup, undefined)
    if isinstance(n, Abs):
        return abs(_number(n.operand, lookup, undefined))
    if isinstance(n, Arithmetic):
        a, b = _number(n.left, lookup, undefined), _number(n.right, lookup, undefined)
        return a + b if n.op == "+" else a - b
    if isinstance(n, Aggregate):
        raise ConfigurationError(f"{format_formula(n)} summarises a suite's items: it has no value on one item",
                                 hint="a suite-level prediction is evaluated by evaluation.suite_level")
    raise TypeError(f"not a numeric node: {n!r}")


def number_value(node: Expr, lookup: Callable[[RegionRef], float]) -> tuple[float, tuple[RegionRef, ...]]:
    """The value of a numeric tree on one item (NaN where a reference is undefined) and its undefined references."""
    undefined: list[RegionRef] = []
    return _number(node, lookup, undefined), tuple(undefined)


def compare(op: str, a: float, b: float, tolerance: Tolerance = Tolerance()) -> bool:
    """``a op b`` as a formula decides it: '=', '<=', '>=', '!=' within the tolerance, a tie of '<' or '>' by its
    rule, anything with NaN false."""
    return _compare(op, a, b, tolerance)


def _compare(op: str, a: float, b: float, tolerance: Tolerance) -> bool:
    if math.isnan(a) or math.isnan(b):
        return False
    if a == b and op in ("<", ">"):  # a tie: decided by the rule, not by the values
        return tolerance.ties == "lm-eval"
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a < b or _within(a, b, tolerance)
    if op == ">=":
        return a > b or _within(a, b, tolerance)
    if op == "!=":
        return not _within(a, b, tolerance)
    return _within(a, b, tolerance)


def _within(a: float, b: float, tolerance: Tolerance) -> bool:
    return abs(a - b) <= tolerance.atol + tolerance.rtol * abs(b)


def comparisons(node: Expr) -> Iterator[Comparison]:
    """The comparisons of a truth-valued tree, left to right as the formula is written (those under '!' too): the
    order ``explain`` gives their terms in, and effects are numbered in (0, 1, ...)."""
    if isinstance(node, Logical):
        yield from comparisons(node.left)
        yield from comparisons(node.right)
    elif isinstance(node, Not):
        yield from comparisons(node.operand)
    elif isinstance(node, Comparison):
        yield node


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

    outcome = evaluate(node, remembered, tolerance)
    terms = []
    for comparison in comparisons(node):
        a, b = _number(comparison.left, remembered, []), _number(comparison.right, remembered, [])
        op = comparison.op
        terms.append(ComparisonTerms(format_formula(comparison), op, a, b, _compare(op, a, b, tolerance),
                                     tie_kind(op, a, b, tolerance)))
    return Explanation(outcome, tuple(values.items()), tuple(terms))
