"""Conditions in a real headless Chromium: a condition's colour follows its name, not its row (items list their
conditions in any order, as SyntaxGym's number_prep does); the grid's screen-reader labels follow a rename at once;
condition-name boxes show typical names whole. Skipped without Debian's chromium (see test_browser.py, whose
browser, server and page fixtures this uses)."""

from __future__ import annotations

import json

from tests.conftest import minimal_suite
from tests.web.test_browser import browser, expect, page, server  # noqa: F401  (the browser fixtures)

CONDITIONS = ("match_sing", "mismatch_sing", "match_plural", "mismatch_plural")


def reordered_suite() -> dict:
    """Two items with the same four conditions, item 2 listing them in another order (as number_prep's items do)."""
    def condition(name: str) -> dict:
        verb = "swims" if name.endswith("sing") == name.startswith("match") else "swim"
        return {"condition_name": name, "regions": [{"region_number": 1, "content": "The boy"},
                                                    {"region_number": 2, "content": verb},
                                                    {"region_number": 3, "content": "today."}]}
    orders = (CONDITIONS, ("mismatch_plural", "match_plural", "mismatch_sing", "match_sing"))
    return minimal_suite(meta={"name": "number_order", "metric": "sum"},
                         predictions=[{"type": "formula", "formula": "(2;%mismatch_plural%) > (2;%match_plural%)"}],
                         items=[{"item_number": n, "conditions": [condition(name) for name in order]}
                                for n, order in enumerate(orders, start=1)])


def upload(page, tmp_path, data: dict) -> None:  # noqa: F811
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page.goto("/suites")
    page.set_input_files('input[name="suite_file"]', str(path))
    page.click("button:has-text('Upload')")
    page.wait_for_url("**/suites/1")


def test_a_conditions_colour_on_the_suite_page_follows_its_name_not_its_row(page, tmp_path):  # noqa: F811
    upload(page, tmp_path, reordered_suite())
    for name in CONDITIONS:
        cells = page.locator(f'table.suite-table td.cond[data-condition="{name}"]')
        expect(cells).to_have_count(2)  # one per item, in different rows
        classes = {cells.nth(k).get_attribute("class") for k in range(2)}
        colours = {cells.nth(k).evaluate("cell => getComputedStyle(cell).color") for k in range(2)}
        assert len(classes) == 1 and len(colours) == 1, f"{name}: {classes} {colours}"
    rows = page.locator("table.suite-table tbody.item").nth(1).locator("td.cond")
    assert rows.first.inner_text() == "mismatch_plural"  # item 2 does list them in another order
    first_colour = page.locator('td.cond[data-condition="match_sing"]').first.evaluate(
        "cell => getComputedStyle(cell).color")
    assert rows.first.evaluate("cell => getComputedStyle(cell).color") != first_colour


def test_grid_labels_follow_a_rename_at_once(page, tmp_path):  # noqa: F811
    upload(page, tmp_path, minimal_suite())
    page.goto("/suites/1/edit")
    cell = page.locator('input.cell[data-i="1"][data-c="0"][data-r="1"]')
    expect(cell).to_have_attribute("aria-label", "item 2, match, region 2: verb")
    page.locator('input.cond-name[data-c="0"]').first.fill("grammatical")  # no structural edit follows
    expect(cell).to_have_attribute("aria-label", "item 2, grammatical, region 2: verb")
    expect(page.get_by_label("item 1, grammatical, region 3: rest", exact=True)).to_have_value("today.")
    page.locator('input.region-name[data-r="1"]').fill("main verb")
    expect(cell).to_have_attribute("aria-label", "item 2, grammatical, region 2: main verb")
    page.locator('input.item-number[data-i="1"]').fill("7")
    expect(cell).to_have_attribute("aria-label", "item 7, grammatical, region 2: main verb")
    expect(page.locator('button.remove[data-i="1"]')).to_have_attribute("aria-label", "remove item 7")


def test_condition_name_boxes_show_typical_names_whole(page, tmp_path):  # noqa: F811
    upload(page, tmp_path, reordered_suite())
    page.goto("/suites/1/edit")
    boxes = page.locator("input.cond-name")
    expect(boxes).to_have_count(8)
    for k in range(8):
        box = boxes.nth(k)
        scroll, client = box.evaluate("box => [box.scrollWidth, box.clientWidth]")
        assert scroll <= client, f"{box.input_value()!r} is cut: {scroll} px of text in a {client} px box"
    boxes.first.fill("mismatch_plural_with_a_longer_name")  # typing a longer name widens every box
    scroll, client = boxes.first.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert scroll <= client
