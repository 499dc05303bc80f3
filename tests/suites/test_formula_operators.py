"""The operators added to SyntaxGym's prediction language (#37): '>=', '<=', '!=', '!( )', 'number * x', 'abs( )' and
region ranges and lists; each parsed, printed and evaluated on values checked by hand, and the still-invalid forms
refused with a caret and the fix."""

import math

import pytest

from linguagym.errors import FormulaError
from linguagym.suites.formula import (
    Abs,
    Comparison,
    Logical,
    Negate,
    Not,
    Number,
    RegionRef,
    RegionSum,
    Scale,
    Tolerance,
    evaluate,
    explain,
    format_formula,
    operators,
    parse_formula,
    region_refs,
)

A, B = RegionRef(2, "a"), RegionRef(2, "b")


def tree(text: str):
    return parse_formula(text).tree


@pytest.mark.parametrize(
    "text, expected, canonical",
    [
        ("(2;%a%)>=(2;%b%)", Comparison(">=", A, B), "(2;%a%) >= (2;%b%)"),
        ("(2;%a%) <= 0", Comparison("<=", A, Number(0.0)), "(2;%a%) <= 0"),
        ("(2;%a%) != (2;%b%)", Comparison("!=", A, B), "(2;%a%) != (2;%b%)"),
        ("!((2;%a%) > (2;%b%))", Not(Comparison(">", A, B)), "!((2;%a%) > (2;%b%))"),
        ("![(2;%a%) > 0]", Not(Comparison(">", A, Number(0.0))), "!((2;%a%) > 0)"),
        ("!((2;%a%) > 0) & (2;%b%) > 0", Logical("&", Not(Comparison(">", A, Number(0.0))),
                                                 Comparison(">", B, Number(0.0))), "!((2;%a%) > 0) & (2;%b%) > 0"),
        ("2*(2;%a%) > (2;%b%)", Comparison(">", Scale(2.0, A), B), "2 * (2;%a%) > (2;%b%)"),
        ("-2 * (2;%a%) < 0", Comparison("<", Negate(Scale(2.0, A)), Number(0.0)), "-2 * (2;%a%) < 0"),
        ("0.5 * ((2;%a%) - (2;%b%)) > 1", Comparison(">", Scale(0.5, parse_formula("(2;%a%) - (2;%b%) > 0")
                                                              .tree.left), Number(1.0)),
         "0.5 * ((2;%a%) - (2;%b%)) > 1"),
        ("abs((2;%a%) - (2;%b%)) < 1", Comparison("<", Abs(parse_formula("(2;%a%) - (2;%b%) > 0").tree.left),
                                                  Number(1.0)), "abs((2;%a%) - (2;%b%)) < 1"),
        ("(3..5;%c%) > 0", Comparison(">", RegionSum(((3, 5),), "c"), Number(0.0)), "(3..5;%c%) > 0"),
        ("( 3 , 5 ;%c%) > 0", Comparison(">", RegionSum(((3, 3), (5, 5)), "c"), Number(0.0)), "(3,5;%c%) > 0"),
        ("(7, 1 .. 3;%c%) > 0", Comparison(">", RegionSum(((7, 7), (1, 3)), "c"), Number(0.0)), "(7,1..3;%c%) > 0"),
    ],
)
def test_new_operators_parse_and_print_canonically(text, expected, canonical):
    assert tree(text) == expected
    assert format_formula(expected) == canonical
    assert tree(canonical) == expected


def test_a_range_or_list_names_each_of_its_regions():
    assert region_refs(tree("(3..5,7;%c%) > (1;%d%)")) == (
        RegionRef(3, "c"), RegionRef(4, "c"), RegionRef(5, "c"), RegionRef(7, "c"), RegionRef(1, "d"))


@pytest.mark.parametrize(
    "text, position, words",
    [
        ("(2;%a%) => (2;%b%)", 8, "'=>' is not an operator here: write '>='"),
        ("(2;%a%) =< (2;%b%)", 8, "write '<='"),
        ("(2;%a%) <> (2;%b%)", 8, "write '!='"),
        ("(2;%a%) ≥ (2;%b%)", 8, "write '>='"),
        ("(2;%a%) > = (2;%b%)", 10, "write '>=' as one operator"),
        ("2 * 3 > (2;%a%)", 2, "'*' between numbers only: write the number itself, not 2 * 3"),
        ("(2;%a%) * 2 > 0", 8, "'*' takes a number on its left: write 2 * (3;%c%)"),
        ("(2;%a%) * (2;%b%) > 0", 8, "cannot be multiplied"),
        ("2 * ((2;%a%) > 0) > 0", 4, "'*' multiplies a number; this operand is a comparison"),
        ("(3..1;%c%) > 0", 1, "the range 3..1 runs downward: write 1..3"),
        ("(3..3;%c%) > 0", 1, "the range 3..3 holds one region: write 3"),
        ("(3..5,4;%c%) > 0", 6, "region 4 is named twice"),
        ("(3-5;%c%) > 0", 1, "a range of regions is written 3..5"),
        ("(3 + 1;%c%) > 0", 3, "unexpected character '+' in a region reference"),
        ("(*,3;%c%) > 0", 1, "'*' (the whole sentence) stands alone"),
        ("( ;%c%) > 0", 2, "a region reference names its region"),
        ("(1..2000;%c%) > 0", 1, "more than 1000 regions in one reference"),
        ("!(2;%a%) > 0", 1, "'!' is followed by its operand in parentheses: write !(a < b)"),
        ("!((2;%a%)) > 0", 1, "'!' negates a comparison; this operand is a number"),
        ("-((2;%a%) > 0) < 1", 1, "write !(a < b) to negate a comparison"),
        ("!((2;%a%) > 0) > 0", 0, "'>' compares numbers; this operand is a comparison"),
        ("abs((2;%a%) > 0) > 0", 3, "abs() takes a number; this operand is a comparison"),
        ("abs (2;%a%) > 0", 4, "'abs' is followed by its operand in parentheses"),
        ("Abs((2;%a%)) > 0", 0, "write abs in lower case"),
        ("max((2;%a%)) > 0", 0, "unknown name 'max': the names a formula knows are abs(...), and mean(...)"),
        # mean( ) and median( ) make a whole formula of their own (a suite-level prediction), nothing else
        ("(2;%a%) > mean((2;%b%))", 10, "mean(...) summarises items and makes a suite-level prediction of its own"),
        ("mean((2;%a%)) > (2;%b%)", 16, "mean(...) is compared with a number (such as 0 or -0.5)"),
        ("mean((2;%a%) > 0) > 0", 4, "mean() takes a number of each item; this operand is a comparison"),
        ("median(2) > 0", 6, "median() of a number that names no region is that number"),
        ("mean((2;%a%))", 13, "a suite-level prediction compares mean(...) with a number; found the end"),
        ("mean((2;%a%)) > 0 | (2;%a%) > 0", 18, "'|' cannot join a suite-level prediction"),
        ("Median((2;%a%)) > 0", 0, "write median in lower case"),
        ("(2;%a%) > 2 *", 13, "formula ends too early: expected what '*' multiplies"),
    ],
)
def test_invalid_forms_are_refused_at_the_character_with_the_fix(text, position, words):
    with pytest.raises(FormulaError) as caught:
        parse_formula(text)
    assert words in caught.value.reason
    assert caught.value.position == position
    assert caught.value.pointer().splitlines()[1] == " " * position + "^"


# ------------------------------------------------------------------------- values checked by hand

VALUES = {RegionRef(2, "a"): 5.0, RegionRef(2, "b"): 3.0, RegionRef(3, "c"): 1.0, RegionRef(4, "c"): 2.5,
          RegionRef(5, "c"): -0.5, RegionRef(6, "c"): math.nan}


def holds(text: str, tolerance: Tolerance | None = None) -> bool:
    return evaluate(tree(text), VALUES.__getitem__, tolerance or Tolerance()).holds


@pytest.mark.parametrize(
    "text, expected",
    [
        # a = 5, b = 3
        ("(2;%a%) >= (2;%b%)", True), ("(2;%b%) >= (2;%a%)", False), ("(2;%a%) >= 5", True),
        ("(2;%a%) <= 5", True), ("(2;%a%) <= 4.9", False), ("(2;%b%) <= (2;%a%)", True),
        ("(2;%a%) != (2;%b%)", True), ("(2;%a%) != 5", False),
        # within the default tolerance (atol 1e-3 + rtol 1e-5 * 5): equal for '=', '<=', '>=', '!='
        ("(2;%a%) >= 5.0005", True), ("(2;%a%) <= 4.9995", True), ("(2;%a%) != 5.0005", False),
        ("(2;%a%) >= 5.002", False), ("(2;%a%) != 5.002", True),
        ("!((2;%a%) > (2;%b%))", False), ("!((2;%a%) < (2;%b%))", True), ("!(!((2;%a%) > 0))", True),
        ("!((2;%a%) > 4 & (2;%b%) > 4)", True),
        # 2 * 5 = 10 > 3 * 3 = 9; -2 * 5 = -10 < -9
        ("2 * (2;%a%) > 3 * (2;%b%)", True), ("-2 * (2;%a%) > -3 * (2;%b%)", False),
        ("0.5 * ((2;%a%) - (2;%b%)) = 1", True),
        # |3 - 5| = 2
        ("abs((2;%b%) - (2;%a%)) = 2", True), ("abs((2;%b%) - (2;%a%)) < 1.5", False),
        # 1 + 2.5 - 0.5 = 3 = b; 1 + (-0.5) = 0.5
        ("(3..5;%c%) = (2;%b%)", True), ("(3,5;%c%) = 0.5", True), ("(5,3;%c%) < (4;%c%)", True),
        ("(3..4;%c%) > (2;%b%)", True),
    ],
)
def test_each_new_operator_on_values_checked_by_hand(text, expected):
    assert holds(text) is expected


def test_a_tolerance_decides_the_new_comparisons():
    # 5 and 5.05: apart by 0.05, more than the default tolerance, within atol 0.1
    assert not holds("(2;%a%) >= 5.05") and holds("(2;%a%) >= 5.05", Tolerance(atol=0.1))
    assert holds("(2;%a%) != 5.05") and not holds("(2;%a%) != 5.05", Tolerance(atol=0.1))
    # rtol: 0.01 * |5.05| = 0.0505 >= 0.05
    assert holds("(2;%a%) >= 5.05", Tolerance(atol=0, rtol=0.01))


def test_an_undefined_region_in_a_range_makes_it_undefined_and_is_reported():
    outcome = evaluate(tree("(4..6;%c%) > 0"), VALUES.__getitem__)
    assert not outcome.holds and outcome.undefined == (RegionRef(6, "c"),)
    # negation does not make an undefined comparison defined: the outcome names it (the run counts it undefined)
    negated = evaluate(tree("!((4..6;%c%) > 0)"), VALUES.__getitem__)
    assert negated.undefined == (RegionRef(6, "c"),)
    assert evaluate(tree("abs((6;%c%)) >= 0"), VALUES.__getitem__).undefined == (RegionRef(6, "c"),)
    assert evaluate(tree("0 * (6;%c%) = 0"), VALUES.__getitem__).undefined == (RegionRef(6, "c"),)


@pytest.mark.parametrize("op", ["<=", ">=", "!=", "="])
def test_only_less_and_greater_are_ties(op):
    """'<=', '>=', '!=' like '=' are meant for equal sides: the tolerance decides them, no tie is counted."""
    for right in ("5", "5.0005"):
        assert evaluate(tree(f"(2;%a%) {op} {right}"), VALUES.__getitem__).tie == ""


def test_ties_of_less_and_greater_are_marked_as_before_inside_the_new_forms():
    assert evaluate(tree("(2;%a%) > 5"), VALUES.__getitem__).tie == "exact"
    assert evaluate(tree("!((2;%a%) > 5)"), VALUES.__getitem__).tie == "exact"
    assert evaluate(tree("2 * (2;%a%) < 10.0005"), VALUES.__getitem__).tie == "near"
    assert evaluate(tree("(3..5;%c%) < (2;%b%)"), VALUES.__getitem__).tie == "exact"
    # the tie rule decides an exact tie of '<' and '>', not of '>='
    assert holds("!((2;%a%) > 5)") and not holds("!((2;%a%) > 5)", Tolerance(ties="lm-eval"))
    assert holds("(2;%a%) >= 5", Tolerance(ties="strict")) and holds("(2;%a%) >= 5", Tolerance(ties="lm-eval"))


def test_explain_shows_the_comparisons_under_a_negation_and_each_region_of_a_range():
    shown = explain(tree("!((3..4;%c%) >= 2 * (2;%b%))"), VALUES.__getitem__)
    assert shown.outcome.holds  # 3.5 >= 6 is false
    assert [(c.text, c.left, c.right, c.holds) for c in shown.comparisons] == [
        ("(3..4;%c%) >= 2 * (2;%b%)", 3.5, 6.0, False)]
    assert [ref for ref, _ in shown.references] == [RegionRef(3, "c"), RegionRef(4, "c"), RegionRef(2, "b")]


def test_operators_lists_the_forms_a_formula_uses():
    assert operators(tree("(2;%a%) > (2;%b%) & -(2;%a%) < 1")) == {">", "&", "<", "-"}
    assert operators(tree("!(abs(2 * (3..5,7;%c%)) >= 1)")) == {"!", "abs", "*", "..", ",", ">="}
    assert operators(tree("(3,5;%c%) != 1")) == {",", "!="}


@pytest.mark.parametrize("atol", [-1.0, math.inf, math.nan, "0.1", True])
def test_a_tolerance_must_be_a_number_of_at_least_zero(atol):
    from linguagym.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="atol must be a number of at least 0"):
        Tolerance(atol=atol)
