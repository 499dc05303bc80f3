# %% [markdown]
# # linguagym in a notebook
#
# The bundled example suites scored by one language model, with every result as a pandas DataFrame, then the
# minicons-style scorer on sentences of our own. Open this file in Jupyter (jupytext) or VS Code: each `# %%`
# is a cell. Needs pandas: `pip install 'linguagym[notebook]'`.
#
# The model is `$LINGUAGYM_EXAMPLE_MODEL` (a named model, a hub id or a local directory), else the default
# model. Nothing is written to disk but the score cache: a second run computes nothing.

# %%
import os

import linguagym
from linguagym.evaluation.run import DEFAULT_MODEL
from linguagym.suites.examples import example_suite_paths

model = os.environ.get("LINGUAGYM_EXAMPLE_MODEL") or DEFAULT_MODEL
suites = example_suite_paths()
print(f"{len(suites)} example suites, model {model}")

# %% [markdown]
# ## One call: what `linguagym run` does
# `output_dir=...` would also write each model's CSV files and the HTML report; without it nothing is written.

# %%
results = linguagym.run(suites, model, bootstrap=200)
print(results)  # in Jupyter, `results` alone shows the table as HTML

# %% [markdown]
# ## Every result as a DataFrame
# `items`, `predictions` and `regions` hold the columns and values of the CSV files a run writes; `tokens`
# every token with its region and surprisal (bits); `suites` accuracy with its 95% interval.

# %%
items = results.to_pandas("items")
print(items.groupby("suite").mean(numeric_only=True).drop(columns="item"))

# %%
regions = results.to_pandas("regions")
critical = regions[regions["suite"] == "agreement_across_pp"]
print(critical.pivot_table(index="region_name", columns="condition", values="sum").round(2))

# %%
tokens = results.to_pandas("tokens")
print(tokens[["suite", "item", "condition", "region_name", "token", "surprisal"]].head(8))

# %%
suite_accuracy = results.to_pandas("suites")
print(suite_accuracy[["suite", "accuracy", "ci_low", "ci_high", "items"]])

# %% [markdown]
# ## The scorer, in minicons' terms
# `token_score`, `sequence_score`, `conditional_score` and `word_score` take one text or a list. Scores are
# natural-log probabilities unless `surprisal=True` / `base_two=True` / `prob=True`; they are cached like a
# run's.

# %%
scorer = linguagym.lm_scorer(model)
sentences = ["The keys to the cabinet are on the table.", "The keys to the cabinet is on the table."]
token_scores = scorer.token_score(sentences, surprisal=True, base_two=True)
print(token_scores[0][:6])

# %%
sequence_scores = scorer.sequence_score(sentences, reduction="sum")
for sentence, score in zip(sentences, sequence_scores, strict=True):
    print(f"{score:9.3f}  {sentence}")

# %%
# log P(continuation | prefix), summed over the continuation's tokens; prefix and continuation are joined by " "
prefixes = ["The keys to the cabinet"] * 2
conditional_scores = scorer.conditional_score(prefixes, ["are on the table.", "is on the table."], reduction="sum")
print(conditional_scores)

# %%
word_scores = scorer.word_score(sentences[0], surprisal=True, base_two=True)
print(word_scores[0])
print(scorer.word_score(sentences, surprisal=True, base_two=True, as_dataframe=True).head())
print(scorer.cache_stats)
