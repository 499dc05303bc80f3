"""What the importers share: reading an input file (every message names the file and the line), the one-region
minimal-pair suite, checking a built suite as a suite file is checked, and writing suites into a folder."""

from __future__ import annotations

import csv
import io
import json
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from linguagym.destinations import check_folder
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.names import safe_name
from linguagym.printable import printable
from linguagym.strict_json import data_problems, decode_json
from linguagym.suites.formula import parse_formula
from linguagym.suites.load import parse_suite_data
from linguagym.suites.model import Condition, Item, Prediction, Region, Suite, SuiteMeta
from linguagym.suites.save import save_suite, suite_to_dict
from linguagym.userfiles import RefusedFile, read_regular

MAX_INPUT_BYTES = 512 * 2**20  # all of BLiMP is 33 MiB; a larger file is almost surely the wrong one
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson", ".json")
TABLE_DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
PAIR_FORMULA = "(1;%good%) < (1;%bad%)"  # the acceptable sentence is the less surprising one


def input_error(path: str | Path, line: int | None, what: str, hint: str | None = None,
                settings: Sequence[str] = ()) -> ConfigurationError:
    where = f"{printable(str(path))}:{line}" if line else printable(str(path))
    return ConfigurationError(f"{where}: {what}", hint=hint, settings=settings)


def read_text(path: str | Path) -> str:
    """A regular file's text, UTF-8 (a byte-order mark is dropped); a bad byte is reported with its line."""
    path = Path(path)
    try:  # a FIFO would block, a device never end: only a regular file of bounded size, read in blocks
        raw = read_regular(path, limit=MAX_INPUT_BYTES)
    except RefusedFile as refused:
        problem = "does not exist" if refused.missing else refused.problem
        raise input_error(path, None, problem, hint=refused.hint or "pass the path of a data file") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise input_error(path, line, f"not UTF-8 text (byte {error.start})", hint="save the file as UTF-8") from None


def json_lines(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Each non-blank line of a JSON Lines file as an object, with its line number."""
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = decode_json(line)
        except (json.JSONDecodeError, RecursionError) as error:
            column = f" (column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
            message = error.msg if isinstance(error, json.JSONDecodeError) else "nested too deeply"
            raise input_error(path, number, f"invalid JSON{column}: {message}",
                              hint="each line of a .jsonl file is one JSON object") from None
        if problems := data_problems(record):
            raise input_error(path, number, f"{problems[0].location}: {problems[0].message}".lstrip(": "))
        if not isinstance(record, dict):
            raise input_error(path, number, f"a JSON {type(record).__name__}, not an object",
                              hint="each line of a .jsonl file is one JSON object, e.g. {\"good\": ..., \"bad\": ...}")
        yield number, record


def table_rows(path: str | Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """A CSV (``.csv``) or TSV (``.tsv``, ``.tab``) file: its header and each row with its line number. A row with
    more or fewer values than the header has columns is an error naming its line."""
    path = Path(path)
    delimiter = TABLE_DELIMITERS.get(path.suffix.lower())
    if delimiter is None:
        raise input_error(path, None, "is not a .csv, .tsv or .tab file", hint="name the file for its format")
    reader = csv.reader(io.StringIO(read_text(path), newline=""), delimiter=delimiter)
    try:
        header = [column.strip() for column in next(reader, [])]
        if not any(header):
            raise input_error(path, 1, "no header row", hint="the first row names the columns")
        duplicated = sorted(c for c, n in Counter(header).items() if n > 1)  # (header.count per column: quadratic)
        if duplicated:
            raise input_error(path, 1, f"column {duplicated[0]!r} is named twice")
        rows = []
        for values in reader:
            if not any(v.strip() for v in values):
                continue  # blank line
            if len(values) != len(header):
                raise input_error(path, reader.line_num, f"{len(values)} values, but the header has {len(header)} "
                                  "columns", hint="quote values that hold the delimiter; give every column a value")
            rows.append((reader.line_num, dict(zip(header, values, strict=True))))
    except csv.Error as error:
        raise input_error(path, reader.line_num, f"not a readable table ({error})") from None
    return header, rows


def records(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Rows of a table or objects of a JSON Lines file, by the file's suffix, each with its line number."""
    path = Path(path)
    if path.suffix.lower() in JSON_LINES_SUFFIXES:
        yield from json_lines(path)
    elif path.suffix.lower() in TABLE_DELIMITERS:
        yield from table_rows(path)[1]
    else:
        raise input_error(path, None, "has an unknown format",
                          hint="use .jsonl (one JSON object a line), .csv or .tsv")


def pick_column(record: dict, names: Sequence[str]) -> str | None:
    """The first of ``names`` the record has."""
    return next((name for name in names if name in record), None)


def text_field(path: str | Path, line: int, record: dict, names: Sequence[str]) -> str:
    """A non-empty text value under the first of ``names`` present (a sentence, a condition name)."""
    key = pick_column(record, names)
    if key is None:
        raise input_error(path, line, f"no {' or '.join(repr(n) for n in names)} field",
                          hint=f"every row needs {names[0]!r}; the fields found are {', '.join(map(repr, record))}")
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise input_error(path, line, f"{key!r} is {'empty' if isinstance(value, str) else 'not text'}",
                          hint="give a sentence")
    return value.strip()


def whole_number(value: object) -> int | None:
    """``value`` as an item number when it is a whole number (``3``, ``"3"``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) <= 15:
        return int(value.strip())
    return None


class IdenticalPairsWarning(UserWarning):
    """A minimal-pair suite holds pairs whose two sentences are the same text (BLiMP has 7): their prediction is a
    tie, scored by the run's tie rule (``--ties``), so the importer names them."""


def warn_identical_pairs(name: str, pairs: Sequence[tuple[int, str, str]]) -> list[int]:
    """Warn (``IdenticalPairsWarning``) about the items whose good and bad sentences are one text; returns them."""
    same = [number for number, good, bad in pairs if good == bad]
    if same:
        shown = ", ".join(map(str, same[:20])) + (", ..." if len(same) > 20 else "")
        warnings.warn(
            f"{printable(name)}: {len(same)} pair{'s' if len(same) != 1 else ''} with two identical sentences "
            f"(item{'s' if len(same) != 1 else ''} {shown}): a tie, counted as incorrect under the tie rule "
            "strict (the default) and as correct under the tie rule lm-eval (lm-evaluation-harness's argmax)",
            IdenticalPairsWarning, stacklevel=3)
    return same


def pair_suite(name: str, pairs: Sequence[tuple[int, str, str]], extra: dict) -> Suite:
    """The minimal-pair suite: an item per ``(number, good, bad)``, conditions ``good`` and ``bad``, one region
    (the whole sentence) and one prediction, that the good sentence is the less surprising. Pairs of two identical
    sentences are kept (they are part of the data, BLiMP's among them) and named in an ``IdenticalPairsWarning``."""
    warn_identical_pairs(name, pairs)
    items = tuple(
        Item(number, (Condition("good", (Region(1, good),)), Condition("bad", (Region(1, bad),))))
        for number, good, bad in pairs
    )
    prediction = Prediction(parse_formula(PAIR_FORMULA).tree)
    return Suite(SuiteMeta(name, "sum", extra), ("sentence",), (prediction,), items)


def checked(suite: Suite, source: str) -> Suite:
    """The suite as it will load from its file: every check a suite file gets (names, regions, formulas)."""
    return parse_suite_data(suite_to_dict(suite), source=source).suite


def suite_name(path: str | Path, name: str | None) -> str:
    """A suite's name: ``name`` when given, else the file's name without its suffix."""
    return name if name is not None else Path(path).stem


def write_suites(suites: Sequence[Suite], out_dir: str | Path) -> list[Path]:
    """Each suite into ``out_dir/NAME.json`` (the name a collection's ``--suites-dir`` looks for), each file
    written whole. The folder is checked and every file name decided before the first file is written."""
    out = Path(out_dir)
    check_folder(out)
    paths: dict[str, Path] = {}
    for suite in suites:
        file_name = safe_name(suite.name, "suite") + ".json"
        if file_name.casefold() in paths:
            raise LinguagymError(f"two imported suites would both be written to {out / file_name}",
                                 hint="give each input its own name (`name`, or distinct files)", settings=["name"])
        paths[file_name.casefold()] = out / file_name
    written = []
    for suite, path in zip(suites, paths.values(), strict=True):
        save_suite(suite, path)
        written.append(path)
    return written
