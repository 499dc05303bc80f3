"""The editor's guided prediction builder in a real headless Chromium: build a prediction with its selects (mouse
and keyboard) and save it; type a formula and see the builder follow it, or call it a custom formula; renamed and
removed conditions and regions carry the built prediction with them. Skipped without Debian's chromium (see
test_browser.py, whose browser and server fixtures this uses). With LINGUAGYM_WEB_SCREENSHOTS=DIR it saves
DIR/web-prediction-builder.png."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import minimal_suite
from tests.web.test_browser import browser, expect, server  # noqa: F401  (the browser fixtures)

SHOTS = os.environ.get("LINGUAGYM_WEB_SCREENSHOTS")
INVALID = re.compile(r"\binvalid\b")  # the class that marks a value the suite lacks


@pytest.fixture
def open_editor(browser, server, tmp_path):  # noqa: F811
    """Upload minimal_suite (regions subject, verb, rest; conditions match, mismatch) with the given predictions and
    open it in the editor, confirmation dialogs accepted (their texts kept in page.dialogs)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server)

    def open_with(*formulas: str):
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.dialogs = []
        page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.accept()))
        path = tmp_path / "builder_suite.json"
        path.write_text(json.dumps(minimal_suite(predictions=[{"type": "formula", "formula": f} for f in formulas])),
                        encoding="utf-8")
        page.goto("/suites")
        page.set_input_files('input[name="suite_file"]', str(path))
        page.click("button:has-text('Upload')")
        page.wait_for_url("**/suites/1")
        page.goto("/suites/1/edit")
        return page

    yield open_with
    context.close()


def select(page, label: str):
    return page.get_by_label(label, exact=True)


def formula(page, p: int):
    return page.locator(f'input.formula[data-p="{p}"]')


def test_build_a_prediction_with_the_builder_and_save_it(open_editor):
    page = open_editor()
    page.click("#add-prediction")  # a new prediction starts as a built one: second condition > first, region 1
    expect(formula(page, 0)).to_have_value("(1;%mismatch%) > (1;%match%)")
    expect(select(page, "prediction 0, left side: region")).to_have_value("1")
    expect(select(page, "prediction 0, left side: condition")).to_have_value("mismatch")
    expect(select(page, "prediction 0: relation")).to_have_value(">")
    expect(select(page, "prediction 0, right side: condition")).to_have_value("match")

    # keyboard: from the formula box, Tab passes the remove button and reaches the builder; arrows choose
    formula(page, 0).focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "prediction 0, left side: region"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (1;%match%)")
    select(page, "prediction 0: relation").select_option("<")
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) < (1;%match%)")
    select(page, "prediction 0: relation").select_option(">")
    select(page, "prediction 0, right side: condition").select_option("mismatch")
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (1;%mismatch%)")
    select(page, "prediction 0, right side: condition").select_option("match")
    select(page, "prediction 0, right side: region").select_option("3")

    # a sum of regions on one side, then back to one region
    page.get_by_label("prediction 0, left side: add a region to the sum").click()
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) + (1;%mismatch%) > (3;%match%)")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == \
        "prediction 0, left side: region 2 of the sum"
    select(page, "prediction 0, left side: region 2 of the sum").select_option("*")
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) + (*;%mismatch%) > (3;%match%)")
    page.get_by_label("prediction 0, left side: region 2 of the sum: remove it from the sum").click()
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (3;%match%)")
    # the server's live check agrees: the built text is the canonical form
    expect(page.locator('.formula-status[data-p="0"]')).to_have_text("✓ (3;%mismatch%) > (3;%match%)")

    # "+ and": a second comparison that must hold too, a copy of the last to change; × takes it out again
    page.get_by_label("prediction 0: add a comparison (and)").click()
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (3;%match%) & (3;%mismatch%) > (3;%match%)")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == \
        "prediction 0, comparison 2, left side: region"
    select(page, "prediction 0, comparison 2, left side: region").select_option("2")
    select(page, "prediction 0, comparison 2, right side: region").select_option("2")
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (3;%match%) & (2;%mismatch%) > (2;%match%)")
    expect(page.locator('.formula-status[data-p="0"]')).to_have_text(
        "✓ (3;%mismatch%) > (3;%match%) & (2;%mismatch%) > (2;%match%)")
    page.get_by_label("prediction 0, comparison 2: remove this comparison").click()
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (3;%match%)")
    expect(select(page, "prediction 0, left side: region")).to_be_focused()

    page.click("#save")
    page.wait_for_url("**/suites/1")
    stored = json.loads(page.request.get("/suites/1/download?version=2").text())
    assert stored["predictions"] == [{"type": "formula", "formula": "(3;%mismatch%) > (3;%match%)"}]


def test_a_typed_formula_moves_the_builder_or_is_a_custom_formula(open_editor):
    page = open_editor("(2;%mismatch%) > (2;%match%)", "(2;%match%) + (3;%match%) < (2;%mismatch%) + (3;%mismatch%)",
                       "((2;%mismatch%) > (2;%match%)) & ((3;%mismatch%) = (3;%match%))",
                       "((2;%mismatch%) - (2;%match%)) > 0 | (3;%mismatch%) > (3;%match%)")  # "|": custom
    expect(select(page, "prediction 0, left side: region")).to_have_value("2")
    expect(select(page, "prediction 1, right side: region 2 of the sum")).to_have_value("3")
    expect(select(page, "prediction 2, comparison 2: relation")).to_have_value("=")
    expect(select(page, "prediction 2, comparison 2, right side: condition")).to_have_value("match")
    expect(page.locator('.formula-status[data-p="3"]')).to_contain_text("✓")
    if SHOTS:  # one region, a sum, two comparisons, a custom formula; the sticky save bar hidden so that it covers none
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.locator(".save-bar").evaluate("bar => { bar.style.visibility = 'hidden'; }")
        page.locator("#predictions").locator("..").screenshot(path=str(Path(SHOTS) / "web-prediction-builder.png"))
        page.locator(".save-bar").evaluate("bar => { bar.style.visibility = ''; }")
    formula(page, 0).fill("( (2;%match%) + [(03;%match%)] ) == (2;%mismatch%)")  # spacing, brackets, "==", "03"
    expect(select(page, "prediction 0, left side: region 1 of the sum")).to_have_value("2")
    expect(select(page, "prediction 0, left side: region 2 of the sum")).to_have_value("3")
    expect(select(page, "prediction 0, left side: condition")).to_have_value("match")
    expect(select(page, "prediction 0: relation")).to_have_value("=")
    expect(select(page, "prediction 0, right side: region")).to_have_value("2")
    expect(select(page, "prediction 0, right side: condition")).to_have_value("mismatch")
    expect(formula(page, 0)).to_have_value("( (2;%match%) + [(03;%match%)] ) == (2;%mismatch%)")  # left as typed
    expect(page.locator('.formula-status[data-p="0"]')).to_have_text(
        "✓ (2;%match%) + (3;%match%) = (2;%mismatch%)")

    formula(page, 0).fill("(2;%mismatch%) > (2;%nomatch%)")  # a condition the suite lacks: shown, marked
    right = select(page, "prediction 0, right side: condition")
    expect(right).to_have_value("nomatch")
    expect(right).to_have_class(INVALID)
    expect(right.locator("option:checked")).to_have_text("nomatch (not in this suite)")
    expect(page.locator('.formula-status[data-p="0"]')).to_contain_text('names condition "nomatch"')
    right.select_option("match")
    expect(formula(page, 0)).to_have_value("(2;%mismatch%) > (2;%match%)")
    expect(right).not_to_have_class(INVALID)

    # a formula the builder cannot show: the builder says so and leaves it alone
    builder = page.locator('.builder[data-p="3"]')
    expect(builder.locator(".b-comparison")).to_have_count(0)
    expect(builder.locator(".b-custom")).to_contain_text("Custom formula")
    formula(page, 1).fill("(2;%mismatch%) > (2;%match%) | (3;%mismatch%) > (3;%match%)")  # built, then custom
    expect(page.locator('.builder[data-p="1"] .b-comparison')).to_have_count(0)
    expect(page.locator('.builder[data-p="1"] .b-custom')).to_be_visible()
    expect(page.locator('.builder[data-p="1"] .b-and')).to_be_hidden()
    page.get_by_label("prediction 3: replace it with a built one").click()
    assert "Replace prediction 3" in page.dialogs[-1]
    expect(formula(page, 3)).to_have_value("(1;%mismatch%) > (1;%match%)")
    expect(builder.locator(".b-comparison")).to_have_count(1)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "prediction 3, left side: region"
    page.click("#undo")  # replacing is a structural change: Undo brings the custom formula back (stored canonical)
    expect(formula(page, 3)).to_have_value("(2;%mismatch%) - (2;%match%) > 0 | (3;%mismatch%) > (3;%match%)")
    expect(page.locator('.builder[data-p="3"] .b-custom')).to_be_visible()


def test_a_built_prediction_follows_renamed_and_removed_conditions_and_regions(open_editor):
    page = open_editor()
    page.click("#add-prediction")
    select(page, "prediction 0, left side: region").select_option("3")
    select(page, "prediction 0, right side: region").select_option("3")
    expect(formula(page, 0)).to_have_value("(3;%mismatch%) > (3;%match%)")

    page.locator('input.cond-name[data-c="1"]').first.fill("mismatched")  # the formula and the builder follow
    expect(formula(page, 0)).to_have_value("(3;%mismatched%) > (3;%match%)")
    left = select(page, "prediction 0, left side: condition")
    expect(left).to_have_value("mismatched")
    expect(left.locator("option")).to_have_text(["match", "mismatched"])
    page.fill('input.region-name[data-r="2"]', "ending")  # region names in the lists follow the grid
    expect(select(page, "prediction 0, left side: region").locator("option:checked")).to_have_text("3 ending")

    page.click('button[aria-label="remove region 1"]')  # region 3 is now region 2
    expect(formula(page, 0)).to_have_value("(2;%mismatched%) > (2;%match%)")
    expect(select(page, "prediction 0, left side: region")).to_have_value("2")
    page.click('button[aria-label="remove region 2"]')  # the region it tested is gone: flagged in the builder too
    expect(formula(page, 0)).to_have_value("(?;%mismatched%) > (?;%match%)")
    region = select(page, "prediction 0, left side: region")
    expect(region.locator("option:checked")).to_have_text("? removed region")
    expect(region).to_have_class(INVALID)
    expect(page.locator('.formula-status[data-p="0"]')).to_contain_text("region that was removed")
    region.select_option("1")  # fixed with the builder, one side at a time
    select(page, "prediction 0, right side: region").select_option("1")
    expect(formula(page, 0)).to_have_value("(1;%mismatched%) > (1;%match%)")
    expect(page.locator('.formula-status[data-p="0"]')).to_have_text("✓ (1;%mismatched%) > (1;%match%)")

    page.click('button[aria-label="remove condition 2"]')  # a removed condition stays selected, marked
    expect(left.locator("option:checked")).to_have_text("mismatched (not in this suite)")
    expect(left).to_have_class(INVALID)
    page.click("#undo")
    expect(left).not_to_have_class(INVALID)
    expect(formula(page, 0)).to_have_value("(1;%mismatched%) > (1;%match%)")


def test_the_builder_writes_the_new_operators_and_each_formula_validates(open_editor):
    """>=, <=, !=, not, a number times a side, a difference, its absolute value, a number, a range of regions and a
    prediction's own tolerance, each chosen with the builder: the formula written, the server's live check agreeing
    (its canonical form is the text), the note that SyntaxGym's own tools could not read it, and the saved JSON."""
    page = open_editor()
    page.click("#add-prediction")
    status = page.locator('.formula-status[data-p="0"]')

    def built(text: str) -> None:
        expect(formula(page, 0)).to_have_value(text)
        expect(status.locator("code")).to_have_text(text)  # the server parsed it to exactly this canonical text
        expect(status).to_contain_text("✓")

    select(page, "prediction 0: relation").select_option(">=")
    built("(1;%mismatch%) >= (1;%match%)")
    expect(status.locator(".peer-note")).to_contain_text("uses '>=': syntaxgym-core and the syntaxgym.org website "
                                                         "could not read this suite")
    select(page, "prediction 0: not (the comparison must not hold)").check()
    built("!((1;%mismatch%) >= (1;%match%))")
    select(page, "prediction 0: not (the comparison must not hold)").uncheck()
    select(page, "prediction 0, right side: form").select_option("scaled")
    built("(1;%mismatch%) >= 2 * (1;%match%)")
    select(page, "prediction 0, right side: times (a number)").fill("0.50")
    built("(1;%mismatch%) >= 0.5 * (1;%match%)")
    expect(select(page, "prediction 0, right side: times (a number)")).to_have_value("0.50")  # left as typed
    select(page, "prediction 0, right side: times (a number)").fill("x")  # not a number: marked, formula kept
    expect(select(page, "prediction 0, right side: times (a number)")).to_have_class(INVALID)
    built("(1;%mismatch%) >= 0.5 * (1;%match%)")
    select(page, "prediction 0, left side: form").select_option("difference")
    built("(1;%mismatch%) - (1;%match%) >= 0.5 * (1;%match%)")
    expect(select(page, "prediction 0, left side, subtracted: condition")).to_have_value("match")
    select(page, "prediction 0, right side: form").select_option("number")
    built("(1;%mismatch%) - (1;%match%) >= 0")
    select(page, "prediction 0, right side: number").fill("-1.5")
    built("(1;%mismatch%) - (1;%match%) >= -1.5")
    select(page, "prediction 0, left side: form").select_option("abs")
    select(page, "prediction 0: relation").select_option("<=")
    built("abs((1;%mismatch%) - (1;%match%)) <= -1.5")
    select(page, "prediction 0, right side: number").fill("0.25")
    page.get_by_label("prediction 0, left side: add a region to the sum").click()
    select(page, "prediction 0, left side: region 2 of the sum").select_option("3")
    built("abs((1;%mismatch%) + (3;%mismatch%) - (1;%match%)) <= 0.25")
    page.get_by_label("prediction 0, left side, subtracted: add a region to the sum").click()
    select(page, "prediction 0, left side, subtracted: region 2 of the sum").select_option("2")
    built("abs((1;%mismatch%) + (3;%mismatch%) - ((1;%match%) + (2;%match%))) <= 0.25")
    page.get_by_label("prediction 0, left side, subtracted: as one reference (N..M)").check()
    built("abs((1;%mismatch%) + (3;%mismatch%) - (1..2;%match%)) <= 0.25")
    page.get_by_label("prediction 0, left side: as one reference (N..M)").check()
    built("abs((1,3;%mismatch%) - (1..2;%match%)) <= 0.25")
    expect(status.locator(".peer-note")).to_contain_text("uses '<=', 'abs( )', a region range 'N..M', "
                                                         "a region list 'N,M'")
    select(page, "prediction 0: relation").select_option("!=")
    built("abs((1,3;%mismatch%) - (1..2;%match%)) != 0.25")

    page.get_by_label("prediction 0: own atol (bits)").fill("-1")  # refused on Save, with where
    page.click("#save")
    expect(page.locator("#problems")).to_contain_text("atol is a number of at least 0")
    expect(page.get_by_label("prediction 0: own atol (bits)")).to_have_class(INVALID)
    page.get_by_label("prediction 0: own atol (bits)").fill("0.05")
    page.get_by_label("prediction 0: own rtol (× |right side|)").fill("0")
    expect(status.locator(".peer-note").last).to_contain_text("has its own atol and rtol")
    page.click("#save")
    page.wait_for_url("**/suites/1")
    stored = json.loads(page.request.get("/suites/1/download?version=2").text())
    assert stored["predictions"] == [{"type": "formula", "formula": "abs((1,3;%mismatch%) - (1..2;%match%)) != 0.25",
                                      "atol": 0.05, "rtol": 0}]


def test_a_typed_formula_with_the_new_operators_moves_the_builder(open_editor):
    page = open_editor("!((2;%mismatch%) < 2 * (2;%match%)) & (2..3;%mismatch%) != (2,3;%match%)",
                       "((3;%mismatch%) - (3;%match%)) > ((2;%mismatch%) - (2;%match%))")
    expect(select(page, "prediction 0, comparison 1: not (the comparison must not hold)")).to_be_checked()
    expect(select(page, "prediction 0, comparison 1, right side: form")).to_have_value("scaled")
    expect(select(page, "prediction 0, comparison 1, right side: times (a number)")).to_have_value("2")
    expect(select(page, "prediction 0, comparison 2: relation")).to_have_value("!=")
    expect(select(page, "prediction 0, comparison 2, left side: as one reference (N..M)")).to_be_checked()
    expect(select(page, "prediction 0, comparison 2, right side: region 2 of the sum")).to_have_value("3")
    expect(select(page, "prediction 1, left side: form")).to_have_value("difference")  # as mvrr's third comparison
    expect(select(page, "prediction 1, right side, subtracted: condition")).to_have_value("match")
    expect(page.locator('.formula-status[data-p="1"]')).to_have_text(
        "✓ (3;%mismatch%) - (3;%match%) > (2;%mismatch%) - (2;%match%)")
    expect(page.locator('.formula-status[data-p="1"] .peer-note')).to_have_count(0)  # SyntaxGym reads this one
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.locator(".save-bar").evaluate("bar => { bar.style.visibility = 'hidden'; }")
        page.locator("#predictions").locator("..").screenshot(
            path=str(Path(SHOTS) / "web-prediction-builder-operators.png"))
