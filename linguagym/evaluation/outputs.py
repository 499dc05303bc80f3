"""The files a run writes; each is written whole or not at all, and the run record last.

- ``predictions.csv``: one row per item and prediction; ``tie``: ``exact`` where a ``<`` or ``>`` of it had two
  equal sides (decided by the run's tie rule, ``settings.ties``), ``near`` where they were within the tolerance;
- ``items.csv``: one row per item, ``model,suite,item,correct,correct_all``: ``correct`` means what it means in the
  Hu et al. (2020) per-item results (the item's first prediction holds), ``correct_all`` that every one holds;
- ``regions.csv``: one row per item, condition and region, with every metric (empty where undefined) and
  ``crossing``: what a token covering several regions did to it (``alignment.region_crossings``), else empty;
- ``tokens.csv``: one row per item, condition and scored token: its region, the text it covers and its surprisal;
- ``suites/<name>.json``: each suite with its surprisals, syntaxgym-core compatible (every region carries
  ``metric_value`` in bits and ``oovs``; ``meta.model`` names the model);
- ``run.json``: the run record (versions, model identity, settings, counts, accuracies).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path

from linguagym.atomic import atomic_directory, atomic_open, atomic_write_text
from linguagym.destinations import check_folder, check_replaceable
from linguagym.evaluation.aggregate import ItemOutcome
from linguagym.evaluation.alignment import region_crossings
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.scored_suites import scored_suite_dict
from linguagym.names import safe_name, short_model_name, suite_file_name
from linguagym.suites.metrics import METRIC_NAMES


def _value(x: float) -> float | str:
    return "" if math.isnan(x) else x


def _write_csv(path: Path, header: list[str], rows) -> None:
    with atomic_open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def model_label(result: RunResult) -> str:
    """The model's name in tables: the run's own label where a command gave one (``model_labels``), else a
    named model or hub id as given, a local path by its last part."""
    return result.label or short_model_name(result.settings.model)


def write_predictions(result: RunResult, path: Path) -> None:
    model = model_label(result)

    def rows():
        for suite_result in result.suites:
            suite = suite_result.suite
            for p in suite_result.predictions:
                yield [model, suite.name, p.item, p.prediction, suite.predictions[p.prediction].formula,
                       suite_result.metric, p.holds, " ".join(map(str, p.undefined)), p.tie]

    _write_csv(path, ["model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined", "tie"],
               rows())


def item_outcomes(result: RunResult) -> list[ItemOutcome]:
    """Each item's outcome under both policies, as ``items.csv`` holds it (and ``read_item_outcomes`` reads it)."""
    model = model_label(result)
    outcomes = []
    for suite_result in result.suites:
        first = suite_result.item_correct("first")
        for item, all_hold in suite_result.item_correct("all").items():
            outcomes.append(ItemOutcome(model, suite_result.suite.name, item, correct_all=all_hold,
                                        correct_first=first[item]))
    return outcomes


def write_items(result: RunResult, path: Path) -> None:
    # "correct" as the paper's per-item files mean it (policy first), so the two kinds of file cannot be misread
    rows = ([o.model, o.suite, o.item, o.correct_first, o.correct_all] for o in item_outcomes(result))
    _write_csv(path, ["model", "suite", "item", "correct", "correct_all"], rows)


def write_regions(result: RunResult, path: Path) -> None:
    model = model_label(result)

    def rows():  # (the names are looked up once a suite or a sentence: a run writes 24,000 rows per model)
        for suite_result in result.suites:
            suite_name, region_names = suite_result.suite.name, suite_result.suite.region_names
            for scored in suite_result.conditions:
                text, spans, values = scored.sentence.text, scored.sentence.spans, scored.values
                crossed = region_crossings(scored.alignment) if scored.alignment.crossings else {}
                for region in scored.alignment.regions:
                    number, tokens = region.number, region.tokens
                    start, end = spans[number - 1]
                    metric = values[number]
                    yield [model, suite_name, scored.item, scored.condition, number, region_names[number - 1],
                           text[start:end], len(tokens), " ".join([t.token for t in tokens if t.unknown]),
                           *["" if (v := metric[m]) != v else v for m in METRIC_NAMES],  # NaN: empty
                           crossed.get(number, "")]

    header = ["model", "suite", "item", "condition", "region", "region_name", "content", "tokens",
              "unknown_tokens", *METRIC_NAMES, "crossing"]
    _write_csv(path, header, rows())


TOKEN_COLUMNS = ("model", "suite", "item", "condition", "region", "region_name", "token_index", "token", "covered",
                 "start", "end", "surprisal", "unknown")


def token_rows(results: list[RunResult]) -> Iterator[tuple]:
    """Every scored token of every sentence, in its region (assigned as the region values were: by the region of
    its first non-space character; under ``--crossing split`` a crossing token is one row per region it covers,
    each with its share); ``covered``: the text it covers, ``start``/``end`` its character offsets in the sentence;
    ``surprisal`` in bits."""
    for result in results:
        model = model_label(result)
        for suite_result in result.suites:
            names = suite_result.suite.region_names
            for scored in suite_result.conditions:
                index = 0
                for region in scored.alignment.regions:
                    for token in region.tokens:
                        yield (model, suite_result.suite.name, scored.item, scored.condition, region.number,
                               names[region.number - 1], index, token.token,
                               scored.sentence.text[token.start:token.end], token.start, token.end,
                               token.surprisal, token.unknown)
                        index += 1


def write_tokens(result: RunResult, path: Path) -> None:
    # what the web app's item page shows on demand; regions.csv holds the values predictions are evaluated on
    rows = (row[:11] + (_value(row[11]), row[12]) for row in token_rows([result]))
    _write_csv(path, list(TOKEN_COLUMNS), rows)


def write_run(result: RunResult, out_dir: str | Path) -> Path:
    """Write every output file of a run into ``out_dir``, whole: into a fresh hidden folder beside it, which then
    takes the place of an earlier run's folder (so no stale file of that run stays); returns the run record's
    path. A folder that is not a run's is never replaced."""
    out = Path(out_dir)
    check_run_folder(out)
    with atomic_directory(out) as work:
        _write_run_files(result, work)
    return out / "run.json"


def _write_run_files(result: RunResult, out: Path) -> None:
    write_predictions(result, out / "predictions.csv")
    write_items(result, out / "items.csv")
    write_regions(result, out / "regions.csv")
    write_tokens(result, out / "tokens.csv")
    used: set[str] = set()
    for suite_result in result.suites:
        data = scored_suite_dict(suite_result, model_label(result))  # syntaxgym-core reads it
        atomic_write_text(out / "suites" / suite_file_name(suite_result.suite.name, used), scored_suite_json(data))
    data = {"label": model_label(result), **result.record()}
    atomic_write_text(out / "run.json", json.dumps(data, indent=2, allow_nan=False) + "\n")


def scored_suite_json(data: dict) -> str:
    """A scored suite as JSON text: each top-level entry on a line of its own, and each item of ``items`` too.

    Readable and greppable item by item, and written by the json module's C encoder: an indented dump goes through
    its pure-Python one, 0.56 s against 0.10 s for the 34 suites, once for every model (checkpoint) of a run."""

    def dumped(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    lines = []
    for key, value in data.items():
        if key == "items" and isinstance(value, list) and value:
            items = ",\n  ".join(dumped(item) for item in value)
            lines.append(f" {dumped(key)}: [\n  {items}\n ]")
        else:
            lines.append(f" {dumped(key)}: {dumped(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def scored_suite_files(run_dir: str | Path, record: dict) -> dict[str, Path]:
    """Suite name -> its ``suites/NAME.json`` in a model's folder, named as ``_write_run_files`` named them (in the
    order of the run record's suites; of two suites with one name, the first)."""
    used: set[str] = set()
    files: dict[str, Path] = {}
    for suite in record.get("suites", []):
        files.setdefault(suite["name"], Path(run_dir) / "suites" / suite_file_name(suite["name"], used))
    return files


def check_run_folder(path: Path) -> None:
    """``path`` can take a run's files: its parent can be written into, and it is absent, empty or an earlier
    run's folder (which is replaced whole)."""
    check_folder(path.parent)
    _check_replaceable(path)


def check_run_destination(out_dir: str | Path, folders: Iterable[str]) -> None:
    """Before any scoring: ``out_dir`` can be written into, and each model folder in it can take a run's files."""
    out = Path(out_dir)
    check_folder(out)
    for folder in folders:
        _check_replaceable(out / folder)


def _check_replaceable(path: Path) -> None:
    check_replaceable(path, lambda folder: "is not a linguagym run folder (it holds no run.json)"
                      if not (folder / "run.json").is_file() and any(folder.iterdir()) else None, "a run's results")


def model_directory(out_dir: str | Path, model: str) -> Path:
    """Where a run of ``model`` goes inside ``out_dir``: a folder named after the model (paths shortened to
    their last part, unsafe characters replaced)."""
    return Path(out_dir) / safe_name(short_model_name(model), "model")
