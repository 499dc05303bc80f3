"""What a run folder holds: its file names and the columns of its CSV files, in one place for the writer, the
readers and ``Results.to_pandas``.

A run's output folder ``DIR`` holds one folder per model (``DIR/<model>/``) and, beside them, the report
(``report.html`` and ``plots/``). A model's folder holds:

- ``predictions.csv``: one row per item and prediction; ``undefined``: it names an undefined value (so ``holds`` is
  FALSE); ``tie``: ``exact`` where a ``<`` or ``>`` of it had two equal sides (decided by the run's tie rule,
  ``settings.ties``), ``near`` where they were within the tolerance; ``comparisons``: how many comparisons its
  formula has; where it has one, ``left`` and ``right`` are the values of its two sides and ``effect`` is
  ``left - right`` (in the metric, bits; empty where undefined, and where it has several: ``effects.csv`` has them
  one by one);
- ``effects.csv``: one row per item, prediction and comparison (numbered 0, 1, ... left to right as the formula is
  written): the values of its two sides, ``effect`` = ``left - right``, empty where a side is undefined
  (``undefined_values`` names the references); ``evaluation/effects.py``;
- ``suite_predictions.csv``: one row per suite-level prediction (``mean(x) > 0``; the header alone where no suite
  has one): the statistic over items with its 95% bootstrap interval (``suite_level.py``); no part of item
  accuracy;
- ``items.csv``: one row per item, ``model,suite,item,correct,correct_all``: ``correct`` means what it means in the
  Hu et al. (2020) per-item results (the item's first prediction holds), ``correct_all`` that every one holds;
- ``regions.csv``: one row per item, condition and region, with every metric (empty where undefined) and
  ``crossing``: what a token covering several regions did to it (``alignment.region_crossings``), else empty;
- ``tokens.csv``: one row per item, condition and scored token: its region, the text it covers and its surprisal;
- ``long.csv`` (and ``long.parquet`` where pyarrow is installed, the ``parquet`` extra): the tidy long table for
  mixed-effects models, one row per item, condition and region: every metric, the value predictions use, tokens,
  crossing flag and the item's correctness;
- ``suites/<name>.json``: each suite with its surprisals, syntaxgym-core compatible (every region carries
  ``metric_value`` in bits and ``oovs``; ``meta.model`` names the model);
- ``results_<time>.json``: the results in lm-evaluation-harness's layout (``lm_eval_results``);
- ``run.json``: the run record (versions, model identity, settings, counts, accuracies), written last.

Every CSV column's type, unit and empty meaning: docs/data-dictionary.md (a test holds it to the columns here).
Logical columns are written ``TRUE``/``FALSE``, which R's ``read.csv`` and pandas both read as logical (earlier
versions wrote ``True``/``False``, which R reads as text; every reader here takes both: ``read_logical``).
"""

from __future__ import annotations

from linguagym.suites.metrics import METRIC_NAMES

RUN_RECORD = "run.json"
PREDICTIONS = "predictions.csv"
ITEMS = "items.csv"
REGIONS = "regions.csv"
TOKENS = "tokens.csv"
EFFECTS = "effects.csv"
SUITE_PREDICTIONS = "suite_predictions.csv"
LONG = "long.csv"
LONG_PARQUET = "long.parquet"  # only where pyarrow is installed
SCORED_SUITES = "suites"  # the folder of scored suites, one JSON file each
REPORT = "report.html"  # beside the model folders (names.RUN_LEVEL_NAMES keeps model folders off both names)
PLOTS = "plots"  # beside the model folders: the report's SVG figures

# the effect columns come last: the columns before them are what they always were
PREDICTION_COLUMNS = ("model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined", "tie",
                      "comparisons", "left", "right", "effect")
EFFECT_COLUMNS = ("model", "suite", "item", "prediction", "comparison", "formula", "comparison_formula", "op", "metric",
                  "left", "right", "effect", "undefined_values")
# the mean effect per model, suite, prediction and comparison (``Results.to_pandas("effect_sizes")``)
EFFECT_SIZE_COLUMNS = ("model", "suite", "prediction", "comparison", "formula", "comparison_formula", "op", "metric",
                       "mean_effect", "ci_low", "ci_high", "n", "left_out")
ITEM_COLUMNS = ("model", "suite", "item", "correct", "correct_all")
REGION_COLUMNS = ("model", "suite", "item", "condition", "region", "region_name", "content", "tokens",
                  "unknown_tokens", *METRIC_NAMES, "crossing")
TOKEN_COLUMNS = ("model", "suite", "item", "condition", "region", "region_name", "token_index", "token", "covered",
                 "start", "end", "surprisal", "unknown")
SUITE_PREDICTION_COLUMNS = ("model", "suite", "prediction", "formula", "metric", "statistic", "value", "ci_low",
                            "ci_high", "op", "threshold", "items", "undefined_items", "holds", "interval_holds")
# the tidy table: a region's row of regions.csv (unknown words counted, crossing as a flag) with the value predictions
# use and the item's outcome, so that one file feeds a mixed-effects model
LONG_COLUMNS = ("model", "suite", "item", "condition", "region", "region_name", "content", "tokens", "unknown_tokens",
                "metric", "value", *METRIC_NAMES, "crossed", "correct", "correct_all")
COLUMNS = {"predictions": PREDICTION_COLUMNS, "items": ITEM_COLUMNS, "regions": REGION_COLUMNS,
           "tokens": TOKEN_COLUMNS, "effects": EFFECT_COLUMNS, "suite_predictions": SUITE_PREDICTION_COLUMNS,
           "long": LONG_COLUMNS}
FILES = {"predictions": PREDICTIONS, "items": ITEMS, "regions": REGIONS, "tokens": TOKENS, "effects": EFFECTS,
         "suite_predictions": SUITE_PREDICTIONS, "long": LONG}

# each column's type, as a DataFrame holds it (``Results.to_pandas``, and reading the CSV files with pandas); text
# columns are text even where every value looks like a number ("1" as a suite or condition name)
INTEGER_COLUMNS = frozenset({"item", "prediction", "region", "tokens", "token_index", "start", "end", "unknown_tokens",
                             "items", "undefined_items", "comparison", "comparisons", "n", "left_out"})
BOOLEAN_COLUMNS = frozenset({"holds", "correct", "correct_all", "unknown", "undefined", "interval_holds", "crossed"})
FLOAT_COLUMNS = frozenset({*METRIC_NAMES, "surprisal", "value", "ci_low", "ci_high", "threshold", "left", "right",
                           "effect", "mean_effect"})
TEXT_COLUMNS = ("model", "suite", "condition", "region_name", "content", "formula", "metric", "tie", "crossing",
                "token", "covered", "collection", "policy", "kind", "name", "statistic", "op", "comparison_formula",
                "undefined_values")

# how logical cells are written, and every spelling read back (``True``/``False``: files of earlier versions)
TRUE, FALSE = "TRUE", "FALSE"
_LOGICAL = {"TRUE": True, "True": True, "true": True, "FALSE": False, "False": False, "false": False}


def is_true(cell: str) -> bool:
    """Whether a logical cell says true, in either spelling (anything else reads false, as it always did here)."""
    return _LOGICAL.get(cell, False)


def read_logical(cell: str) -> bool:
    """A logical cell of a run file: ``TRUE``/``FALSE`` as written now, ``True``/``False`` as earlier versions
    wrote them; anything else is a ``ValueError`` naming it."""
    try:
        return _LOGICAL[cell]
    except KeyError:
        raise ValueError(f"expected TRUE or FALSE, found {cell[:40]!r}") from None
