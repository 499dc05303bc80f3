"""The web app's results page shows CheckList's INV and DIR failure rates in a table of their own, read back
from the job's files; the expected-label table and the failed-test counts keep to the expected-label tests."""

from __future__ import annotations

import re

from tests.capabilities.test_checklist import checklist_document
from tests.web.test_capabilities_pages import start_test, upload


def test_the_checklist_table_stands_apart_from_the_failure_table(app, client):
    upload(client, checklist_document())
    overview = client.get("/capabilities/files/1").text
    assert "2 INV and 0 DIR pairs" in overview and "A rde car." not in overview  # counted, not sampled as seeds
    response = start_test(client)
    assert response.status_code == 302, response.text
    job_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    page = client.get(f"/capabilities/jobs/{job_id}").text
    failures = page[page.index('id="failures"'):page.index("</table>", page.index('id="failures"'))]
    assert "INV" not in failures
    table = page[page.index('id="checklist-rates"'):page.index("</table>", page.index('id="checklist-rates"'))]
    rows = {}
    for row in table.split("<tr")[2:]:
        cells = [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        rows[cells[0]] = cells[2:6]
    # the keyword rule gives one label per text, so no DIR pair moves; two of three INV pairs change label
    assert rows["all"] == ["3", "3", "66.7", "0.0"] and rows["LC1"] == ["2", "0", "50.0", "-"]
    assert "INV fail % = share of (original, perturbed) pairs" in page
    classifiers = page[page.index('id="classifiers"'):]
    assert "8 / 16" in classifiers[:classifiers.index("</table>")]  # the expected-label tests only, as before
