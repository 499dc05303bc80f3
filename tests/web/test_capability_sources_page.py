"""The web app's results page shows each classifier's source accuracy and its failure rates given a correctly
classified source, read back from the job's files like every other number there."""

from __future__ import annotations

import re

from tests.capabilities.source_fixture import source_document
from tests.web.test_capabilities_pages import KEYWORDS, start_test, upload


def test_the_failure_table_has_the_source_columns_and_their_definition(app, client):
    upload(client, source_document())
    response = start_test(client)
    assert response.status_code == 302, response.text
    job_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    page = client.get(f"/capabilities/jobs/{job_id}").text
    table = page[page.index('id="failures"'):page.index("</table>", page.index('id="failures"'))]
    assert f'<th colspan="6" class="group">{KEYWORDS}</th>' in table and "source acc. %" in table
    cells = {}
    for row in table.split("<tr")[3:]:
        found = [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        cells[found[0]] = found[-3:]
    assert cells == {"LC2": ["66.7", "0.0", "-"], "LC6": ["33.3", "100.0", "50.0"], "all": ["40.0", "33.3", "50.0"]}
    assert 'title="2 of 5 source sentences"' in table
    assert "Source accuracy = share of distinct source sentences" in page
