"""The Hugging Face adapters: hub ids, revisions and snapshots (``hub``), where a model's files come from
(``sources``), the one causal-LM handle (``causal_lm``), the scorers' shared base (``base``), the causal and masked
(PLL) scorers (``causal``, ``masked``) and the memory a model needs (``memory``)."""
