"""The scoring engine every scorer shares: prefix trees and their passes (``prefix``), the word-boundary set
(``word_starts``), token ids and trees shared across checkpoints (``shared_work``), scoring order and chunks
(``order``), devices, dtypes and CPU threads (``device``, ``cpu_load``)."""
