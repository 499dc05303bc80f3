"""The next-token distribution after many left contexts at once, by the scoring engine's prefix trees.

The masks of one seed sentence have left contexts that are prefixes of each other ("The", "The film", "The film
is"), and the beams of a two-mask fill share everything up to their first word. Packed into prefix trees
(``scoring.prefix.pack``), every distinct token prefix goes through the model once, at its own depth, with no
padding; the distribution is read at the last token of each context. Up to float rounding it is the one a plain
pass over that context alone gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from linguagym.scoring.engine.prefix import Projection, batches, decoder_of, pack, tree_mask

LN2 = math.log(2.0)


def tree_next_logprobs(model: Any, device: Any, sequences: Sequence[Sequence[int]], columns: Any, *,
                       row_tokens: int = 256, batch_tokens: int = 4096) -> Any:
    """log2 p(token | sequence) for each sequence (non-empty) and each vocabulary id in ``columns`` (a 1-D long
    tensor): a float32 tensor of shape (len(sequences), len(columns)), on the CPU."""
    import numpy as np
    import torch

    rows, paths = pack(sequences, max(row_tokens, max(len(s) for s in sequences)))
    base = decoder_of(model)
    projection = Projection(model, device)
    dtype = next(model.parameters()).dtype
    out = torch.empty((len(sequences), len(columns)), dtype=torch.float32)
    ends: dict[int, list[tuple[int, int]]] = {}  # row -> (sequence, node of its last token)
    for i, (r, path) in enumerate(paths):
        ends.setdefault(r, []).append((i, path[-1]))
    # Every node is computed here (a leaf's distribution is what is wanted), so a row's length is its node count.
    for group in batches([len(row.tokens) for row in rows], batch_tokens):
        width = max(len(rows[r].tokens) for r in group)
        ids = np.zeros((len(group), width), dtype=np.int64)
        positions = np.zeros((len(group), width), dtype=np.int64)
        up = np.tile(np.arange(width, dtype=np.int64), (len(group), 1))  # each column's parent; roots, padding own
        for b, r in enumerate(group):
            row = rows[r]
            n = len(row.tokens)
            ids[b, :n] = row.tokens
            positions[b, :n] = row.depths
            parents = np.asarray(row.parents, dtype=np.int64)
            up[b, :n] = np.where(parents >= 0, parents, np.arange(n))
        wanted = [(i, b * width + node) for b, r in enumerate(group) for i, node in ends[r]]
        with torch.inference_mode():
            hidden = base(input_ids=torch.from_numpy(ids).to(device),
                          attention_mask=tree_mask(up, int(positions.max(initial=0)), dtype, device),
                          position_ids=torch.from_numpy(positions).to(device), use_cache=False).last_hidden_state
            hidden = hidden.reshape(-1, hidden.shape[-1])[torch.tensor([flat for _, flat in wanted]).to(device)]
            logp = (torch.log_softmax(projection.logits(hidden), dim=-1)[:, columns.to(device)] / LN2).cpu()
        out[torch.tensor([i for i, _ in wanted])] = logp
    return out
