"""Files named by the user are read only when they are regular files of bounded size (userfiles.read_regular),
and every reader of a dataset, TSV, models file, collection, spec or test file goes through it: a FIFO, /dev/zero
or a directory is refused at once with a located error, never read (a FIFO blocked forever, /dev/zero filled
memory until the kernel killed the server)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from linguagym.capabilities.data import datasets as datasets_module
from linguagym.capabilities.data.catalog import load_dataset
from linguagym.capabilities.errors import CapabilityError
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.evaluation.aggregate import read_item_outcomes
from linguagym.evaluation.collections import load_collection
from linguagym.evaluation.models_file import read_models_file
from linguagym.importers.common import read_text
from linguagym.scoring.precomputed import PrecomputedScorer
from linguagym.userfiles import RefusedFile, read_regular, read_regular_text

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def finishes(call: Callable[[], object], fifo: Path | None = None, seconds: float = 10) -> BaseException | None:
    """The exception ``call`` ends with, or a test failure when it has not ended within ``seconds`` (a writer is
    then opened on ``fifo`` so that a blocked reader, and the test run, can end)."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome.append(error)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    if worker.is_alive():
        if fifo is not None:
            with open(fifo, "wb"):
                pass
        pytest.fail(f"still reading after {seconds} s")
    return outcome[0]


def test_regular_files_are_read_whole_and_others_refused(tmp_path):
    data = tmp_path / "d.csv"
    data.write_bytes(b"\xef\xbb\xbftext,label\n")
    assert read_regular(data, limit=100) == b"\xef\xbb\xbftext,label\n"
    assert read_regular_text(data, limit=100) == "text,label\n"
    with pytest.raises(RefusedFile, match="is a directory, not a dataset file"):
        read_regular(tmp_path, limit=100, what="dataset file")
    with pytest.raises(RefusedFile, match="no such file") as refused:
        read_regular(tmp_path / "missing.csv", limit=100)
    assert refused.value.missing
    with pytest.raises(RefusedFile, match="is larger than 5 bytes, the most a data file may hold"):
        read_regular(data, limit=5)
    (tmp_path / "latin.txt").write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(RefusedFile, match="line 2, byte 6: not UTF-8"):
        read_regular_text(tmp_path / "latin.txt", limit=100)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_refused_before_a_byte_is_read():
    with pytest.raises(RefusedFile, match="is a character device, not a dataset file"):
        read_regular("/dev/zero", limit=2**40, what="dataset file")


def _fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


@needs_fifo
@pytest.mark.parametrize("reader", [
    lambda p: load_dataset(f"csv:{p}"),
    lambda p: load_dataset(str(p)),
    lambda p: read_models_file(p),
    lambda p: load_collection(p),
    lambda p: read_item_outcomes(p),
    lambda p: PrecomputedScorer(p),
    lambda p: read_text(p),
], ids=["csv:FIFO", "FIFO.csv", "models file", "collection", "results file", "surprisal file", "importer input"])
def test_every_reader_refuses_a_fifo_at_once(tmp_path, reader):
    fifo = _fifo(tmp_path, "pipe.csv")
    error = finishes(lambda: reader(fifo), fifo)
    assert isinstance(error, LinguagymError), error
    assert "FIFO (named pipe)" in str(error) and "pipe.csv" in str(error)


def test_a_dataset_over_the_bound_is_refused_with_the_bound(tmp_path, monkeypatch):
    data = tmp_path / "big.csv"
    data.write_text("text,label\n" + "Good.,positive\n" * 100)
    monkeypatch.setattr(datasets_module, "MAX_DATASET_BYTES", 1000)
    with pytest.raises(CapabilityError, match=r"big.csv is larger than 1000 bytes, the most a dataset file may hold"):
        load_dataset(f"csv:{data}")


def test_dataset_sha256_is_of_the_bytes_read(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("text,label\nGood.,positive\n")
    import hashlib

    assert load_dataset(str(data)).sha256 == hashlib.sha256(data.read_bytes()).hexdigest()


def test_a_models_file_that_is_a_directory_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigurationError, match="is a directory, not a models file"):
        read_models_file(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform == "win32", reason="no /dev/zero here")
@pytest.mark.parametrize("dataset", ["/dev/zero", "csv:{tmp}/zero.csv"])
def test_lct_generate_refuses_dev_zero_within_bounds(tmp_path, dataset):
    """Was `internal error: MemoryError` after reading gigabytes; now exit 1 at once, in 3 GiB of address space.
    ``zero.csv`` is a link to /dev/zero: the check is of what the name opens, not of the name."""
    (tmp_path / "zero.csv").symlink_to("/dev/zero")
    dataset = dataset.format(tmp=tmp_path)
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2**30 * 3, 2**30 * 3))\n"
        "from linguagym.cli.entry import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script, "lct", "generate", "--dataset", dataset, "-o",
                             str(tmp_path / "t.json")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr[-800:]
    assert "is a character device, not a dataset file" in result.stderr + result.stdout
    assert "internal error" not in result.stderr + result.stdout


@needs_fifo
def test_a_reference_corpus_that_is_a_fifo_is_refused_at_once(tmp_path):
    from linguagym.capabilities.syntax.grammar import load_reference_grammar

    fifo = _fifo(tmp_path, "corpus.txt")
    error = finishes(lambda: load_reference_grammar(str(fifo), cache_dir=tmp_path / "cache"), fifo)
    assert isinstance(error, CapabilityError) and "is a FIFO (named pipe), not a reference corpus file" in str(error)
