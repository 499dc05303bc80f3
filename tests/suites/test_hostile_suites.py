"""What ``validate`` accepts, ``run`` runs: hostile suite input is refused with a located problem (issue 17)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading

import pytest

from linguagym.errors import SuiteError
from linguagym.suites import load as load_module
from linguagym.suites import read_suite, save_suite, suite_to_json
from linguagym.suites.load import parse_suite_data, parse_suite_text
from linguagym.suites.model import SuiteMeta
from tests.conftest import minimal_suite
from tests.suites.hostile_suites import CASES


def rendered_problems(text_or_data, *, data: bool = False) -> list[str]:
    with pytest.raises(SuiteError) as caught:
        if data:
            parse_suite_data(text_or_data, source="s.json")
        else:
            parse_suite_text(text_or_data, source="s.json")
    return [problem.render("s.json") for problem in caught.value.problems]


@pytest.mark.parametrize(("text", "location", "message"), [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_hostile_suite_is_refused_where_it_goes_wrong(text, location, message):
    problems = rendered_problems(text)
    assert any(p.startswith(f"s.json:{location}") and message in p for p in problems), problems


def test_faults_in_data_decoded_elsewhere_are_found_with_their_paths():
    # the web app hands over JSON decoded by its own parser, which reads NaN and 1e999 as floats
    data = minimal_suite()
    data["meta"]["x"] = [math.inf, {"y": math.nan}]
    data["meta"]["big"] = -(10**150)
    data["items"][1]["conditions"][1]["regions"][2]["content"] = "to\ud83dday"
    deep: list = []
    for _ in range(5000):  # built without recursion, checked without recursion
        deep = [deep]
    data["meta"]["deep"] = deep
    problems = rendered_problems(data, data=True)
    assert "s.json:meta.x[0]: inf is not a finite number" in problems
    assert "s.json:meta.x[1].y: nan is not a finite number" in problems
    assert "s.json:meta.big: integers have at most 100 digits" in problems
    assert any(p.startswith("s.json:items[1].conditions[1].regions[2].content: holds a lone surrogate")
               for p in problems)
    assert any(p.startswith("s.json:meta.deep[0][0]") and "nest more than 64 levels" in p for p in problems)


def test_what_is_accepted_is_written_so_that_it_reads_back(tmp_path):
    # the largest and smallest floats, negative zero, a 99-digit integer, and nesting right at the limit
    text = json.dumps(minimal_suite()).replace(
        '"metric": "sum"', '"metric": "sum", "x": [1.7976931348623157e308, 5e-324, -0.0, ' + "9" * 99
        + '], "deep": ' + "[" * 62 + "]" * 62)
    suite = parse_suite_text(text).suite
    out = tmp_path / "again.json"
    save_suite(suite, out)

    def refuse(name):
        raise AssertionError(f"{name} written")

    written = json.loads(out.read_text(encoding="utf-8"), parse_constant=refuse)
    assert written["meta"]["x"] == [1.7976931348623157e308, 5e-324, -0.0, int("9" * 99)]
    assert read_suite(out).suite == suite
    # a suite built in Python with a non-finite value is not written at all (it could not be read back)
    bad = type(suite)(SuiteMeta("tiny", extra={"x": math.inf}), suite.region_names, suite.predictions,
                      suite.items)
    with pytest.raises(ValueError):
        suite_to_json(bad)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    outcome: list = []

    def read() -> None:
        try:
            read_suite(fifo)
        except SuiteError as error:
            outcome.append(str(error))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # unblock the reader so that the test run can end
        with open(fifo, "wb"):
            pass
        pytest.fail("reading a FIFO as a suite waited for a writer")
    assert outcome and "pipe.json: is a FIFO (named pipe), not a suite file" in outcome[0]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_device_files_are_refused(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    # in a child with 2 GiB of address space and a time limit: read as a file, /dev/zero never ends
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31))\n"
        "from linguagym.errors import SuiteError\n"
        "from linguagym.suites import read_suite\n"
        "try:\n"
        "    read_suite(sys.argv[1])\n"
        "except SuiteError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", script, device], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-500:]
    assert f"{device}: is a character device, not a suite file" in result.stdout


def test_a_directory_named_like_a_suite_and_an_oversized_file_are_refused(tmp_path, monkeypatch):
    folder = tmp_path / "x.json"
    folder.mkdir()
    with pytest.raises(SuiteError, match="x.json: is a directory, not a suite file"):
        read_suite(folder)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(minimal_suite()) + " " * 2048)
    monkeypatch.setattr(load_module, "MAX_SUITE_BYTES", 1024)
    with pytest.raises(SuiteError, match="big.json: is larger than"):
        read_suite(big)
