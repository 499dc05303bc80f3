"""What a run folder holds: its file names and the columns of its CSV files, in one place for the writer, the
readers and ``Results.to_pandas``.

A run's output folder ``DIR`` holds one folder per model (``DIR/<model>/``) and, beside them, the report
(``report.html`` and ``plots/``). A model's folder holds:

- ``predictions.csv``: one row per item and prediction; ``tie``: ``exact`` where a ``<`` or ``>`` of it had two
  equal sides (decided by the run's tie rule, ``settings.ties``), ``near`` where they were within the tolerance;
  ``comparisons``: how many comparisons its formula has; where it has one, ``left`` and ``right`` are the values of
  its two sides and ``effect`` is ``left - right`` (in the metric, bits; empty where undefined, and where it has
  several: ``effects.csv`` has them one by one);
- ``effects.csv``: one row per item, prediction and comparison (numbered 0, 1, ... left to right as the formula is
  written): the values of its two sides, ``effect`` = ``left - right``, empty where a side is undefined (``undefined``
  names the references); ``evaluation/effects.py``;
- ``items.csv``: one row per item, ``model,suite,item,correct,correct_all``: ``correct`` means what it means in the
  Hu et al. (2020) per-item results (the item's first prediction holds), ``correct_all`` that every one holds;
- ``regions.csv``: one row per item, condition and region, with every metric (empty where undefined) and
  ``crossing``: what a token covering several regions did to it (``alignment.region_crossings``), else empty;
- ``tokens.csv``: one row per item, condition and scored token: its region, the text it covers and its surprisal;
- ``suites/<name>.json``: each suite with its surprisals, syntaxgym-core compatible (every region carries
  ``metric_value`` in bits and ``oovs``; ``meta.model`` names the model);
- ``results_<time>.json``: the results in lm-evaluation-harness's layout (``lm_eval_results``);
- ``run.json``: the run record (versions, model identity, settings, counts, accuracies), written last.
"""

from __future__ import annotations

from linguagym.suites.metrics import METRIC_NAMES

RUN_RECORD = "run.json"
PREDICTIONS = "predictions.csv"
ITEMS = "items.csv"
REGIONS = "regions.csv"
TOKENS = "tokens.csv"
EFFECTS = "effects.csv"
SCORED_SUITES = "suites"  # the folder of scored suites, one JSON file each
REPORT = "report.html"  # beside the model folders (names.RUN_LEVEL_NAMES keeps model folders off both names)
PLOTS = "plots"  # beside the model folders: the report's SVG figures

# the effect columns come last: the columns before them are what they always were
PREDICTION_COLUMNS = ("model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined", "tie",
                      "comparisons", "left", "right", "effect")
EFFECT_COLUMNS = ("model", "suite", "item", "prediction", "comparison", "formula", "comparison_formula", "op", "metric",
                  "left", "right", "effect", "undefined")
# the mean effect per model, suite, prediction and comparison (``Results.to_pandas("effect_sizes")``)
EFFECT_SIZE_COLUMNS = ("model", "suite", "prediction", "comparison", "formula", "comparison_formula", "op", "metric",
                       "mean_effect", "ci_low", "ci_high", "n", "left_out")
ITEM_COLUMNS = ("model", "suite", "item", "correct", "correct_all")
REGION_COLUMNS = ("model", "suite", "item", "condition", "region", "region_name", "content", "tokens",
                  "unknown_tokens", *METRIC_NAMES, "crossing")
TOKEN_COLUMNS = ("model", "suite", "item", "condition", "region", "region_name", "token_index", "token", "covered",
                 "start", "end", "surprisal", "unknown")
COLUMNS = {"predictions": PREDICTION_COLUMNS, "items": ITEM_COLUMNS, "regions": REGION_COLUMNS,
           "tokens": TOKEN_COLUMNS, "effects": EFFECT_COLUMNS}
FILES = {"predictions": PREDICTIONS, "items": ITEMS, "regions": REGIONS, "tokens": TOKENS, "effects": EFFECTS}

# each column's type, as a DataFrame holds it (``Results.to_pandas``, and reading the CSV files with pandas); text
# columns are text even where every value looks like a number ("1" as a suite or condition name)
INTEGER_COLUMNS = frozenset({"item", "prediction", "region", "tokens", "token_index", "start", "end",
                             "comparison", "comparisons", "n", "left_out"})
BOOLEAN_COLUMNS = frozenset({"holds", "correct", "correct_all", "unknown"})
FLOAT_COLUMNS = frozenset({*METRIC_NAMES, "surprisal", "left", "right", "effect", "mean_effect", "ci_low", "ci_high"})
TEXT_COLUMNS = ("model", "suite", "condition", "region_name", "content", "formula", "metric", "undefined", "tie",
                "unknown_tokens", "crossing", "token", "covered", "collection", "policy", "kind", "name",
                "comparison_formula", "op")
