"""linguagym's own decoders, with transformers' arithmetic and without importing it: Llama (``llama``) and Gemma 3
(``gemma3``) text checkpoints, which checkpoints they take and their weights (``load``), tokenizer.json read where
transformers would tokenise the same (``json_tokenizer``), and float32 CPU products through oneDNN (``onednn``)."""
