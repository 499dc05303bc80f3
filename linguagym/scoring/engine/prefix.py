"""Prefix sharing for causal LMs: every distinct token prefix is run through the model once.

The conditions of a SyntaxGym item share long prefixes ("The farmer near the clerks" + "knows" / "know"), and
many sentences of a suite start alike. Sorted lexicographically, token sequences sit next to the ones they
share most with; consecutive sequences are packed into *rows*, each row holding the union of its sequences'
paths, i.e. a prefix tree in which every node is one token. A row goes to the model as one sequence whose
position ids are the nodes' depths and whose 4-D attention mask lets each node see only itself and its
ancestors. A node's hidden state is then, up to floating-point summation order, exactly the one a plain
left-to-right pass over any sentence through it computes, and so is the distribution it gives over the next
token. Each sentence's surprisals are read off the nodes of its path.

Only nodes with children go through the model at all: a sentence's last token predicts nothing, and its
surprisal is read from its parent's distribution. The vocabulary projection, the largest single matrix of small
models, is applied once per such node, never at padding. On the 34 SyntaxGym suites (sorted, 256 sentences a
call) smollm2-135m computes 17,547 nodes for 42,957 tokens, start tokens included.

Only architectures known to honour custom 4-D masks and explicit position ids take this path
(``supports_tree``); the others are scored by plain length-sorted batches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from linguagym.scoring.engine.shared_work import pack_once

LN2 = math.log(2.0)

# Model types whose decoder uses the custom 4-D mask as given and takes position ids (rotary or learned), and
# whose causal-LM head is the output embedding (plus Gemma's optional final soft-capping) and nothing else.
TREE_MODEL_TYPES = frozenset(
    {"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "gpt2", "gpt_neox", "gptj",
     "gpt_bigcode", "opt", "olmo", "olmo2", "phi", "phi3", "stablelm", "falcon"}
)


def decoder_of(model: Any) -> Any:
    """The module under the LM head that returns ``last_hidden_state`` (the tree passes call it directly).

    ``base_model`` names it for every tree architecture, except transformers 4.x's Gemma3ForCausalLM: its
    ``base_model_prefix`` ("language_model") names no attribute, so ``base_model`` is the causal LM itself, whose
    output has logits and no hidden states; its decoder is ``model`` there (as in 5.x)."""
    base = model.base_model
    if base is not model:
        return base
    inner = getattr(model, "model", None)
    if inner is None or inner is model:
        raise TypeError(f"{type(model).__name__} has no decoder module apart from itself (base_model, model)")
    return inner


@dataclass
class Row:
    """One packed prefix tree: node k is token ``tokens[k]`` at depth ``depths[k]`` below ``parents[k]``.

    Only nodes with children go through the model (``computed``): a leaf, the last token of a sentence that no
    other sentence extends, predicts nothing, and its own surprisal comes from its parent's distribution.
    """

    tokens: list[int] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)  # -1 for a root
    depths: list[int] = field(default_factory=list)
    has_children: list[bool] = field(default_factory=list)
    members: list[int] = field(default_factory=list)  # indices of the sequences whose paths it holds
    member_tokens: int = 0  # tokens of those sequences, for progress
    computed: int = 0  # nodes with children: the row's length as the model sees it


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


def _added_cost(row: Row, path: list[int], shared: int, length: int) -> int:
    """Nodes the model must run once a sequence of ``length`` tokens sharing ``shared`` with ``path`` joins."""
    new_internal = max(0, length - shared - 1)  # every new node but the new leaf
    if 0 < shared < length and not row.has_children[path[shared - 1]]:
        new_internal += 1  # the shared path's end was a leaf and now gets a child
    return new_internal


def pack(sequences: Sequence[Sequence[int]], row_tokens: int) -> tuple[list[Row], list[tuple[int, list[int]]]]:
    """Pack ``sequences`` into prefix-tree rows of at most ``row_tokens`` computed nodes (a longer sequence
    gets a row of its own). Returns the rows and, per sequence, its row index and the node index of each of
    its tokens."""
    order = sorted(range(len(sequences)), key=lambda i: list(sequences[i]))
    rows: list[Row] = []
    paths: list[tuple[int, list[int]]] = [(-1, [])] * len(sequences)
    row: Row | None = None
    previous: Sequence[int] = ()
    previous_path: list[int] = []
    for i in order:
        sequence = sequences[i]
        shared = _common_prefix(previous, sequence) if row is not None else 0
        if row is not None and row.computed + _added_cost(row, previous_path, shared, len(sequence)) > row_tokens:
            row, shared = None, 0
        if row is None:
            row = Row()
            rows.append(row)
            previous_path = []
        row.computed += _added_cost(row, previous_path, shared, len(sequence))
        path = previous_path[:shared]
        for k in range(shared, len(sequence)):
            if path:
                row.has_children[path[-1]] = True
            row.tokens.append(int(sequence[k]))
            row.parents.append(path[-1] if path else -1)
            row.depths.append(k)
            row.has_children.append(False)
            path.append(len(row.tokens) - 1)
        row.members.append(i)
        paths[i] = (len(rows) - 1, path)
        previous, previous_path = sequence, path
    return rows, paths


# What one more forward pass costs beyond its tokens, in tokens: the weights streamed through memory once more,
# every kernel launched once more. It is what makes several short rows worth padding to one width.
PASS_COST = 64


def batches(lengths: Sequence[int], budget: int, max_count: int | None = None) -> list[list[int]]:
    """Indices grouped longest first so that count x longest <= ``budget`` tokens (at least one per group),
    with the fewest tokens computed: padding plus ``PASS_COST`` per group.

    Sorted longest first, the groups are consecutive runs of the order; the cheapest split is found by dynamic
    programming over split points, one vector update per start.
    """
    import numpy as np

    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    n = len(order)
    best = np.full(n + 1, np.iinfo(np.int64).max, dtype=np.int64)  # least cost of grouping order[:end]
    best[0] = 0
    previous = np.zeros(n + 1, dtype=np.int64)
    for start in range(n):
        width = max(1, lengths[order[start]])
        room = min(max(1, budget // width), n - start)
        if max_count:
            room = min(room, max_count)
        costs = best[start] + width * np.arange(1, room + 1, dtype=np.int64) + PASS_COST
        ends = slice(start + 1, start + room + 1)
        better = costs < best[ends]
        best[ends] = np.where(better, costs, best[ends])
        previous[ends] = np.where(better, start, previous[ends])
    groups: list[list[int]] = []
    end = n
    while end > 0:
        start = int(previous[end])
        groups.append(order[start:end])
        end = start
    return groups[::-1]


def supports_tree(model: Any, max_depth: int) -> bool:
    """Whether ``model`` can be scored by packed prefix trees (see ``TREE_MODEL_TYPES``)."""
    config = model.config
    if getattr(config, "model_type", None) not in TREE_MODEL_TYPES:
        return False
    if getattr(config, "_attn_implementation", "eager") not in ("sdpa", "eager"):
        return False  # flash-attention kernels take no arbitrary mask
    if getattr(config, "alibi", False):
        return False  # Falcon's ALiBi takes each token's position from a 2-D padding mask, not from position ids
    window = getattr(config, "sliding_window", None)
    if isinstance(window, int) and 0 < window <= max_depth:
        return False  # a row's mask would let a node see ancestors that the sliding window hides
    return model.get_output_embeddings() is not None


def tree_scores(
    model: Any,
    device: Any,
    sequences: Sequence[Sequence[int]],
    *,
    row_tokens: int,
    batch_tokens: int,
    progress: Callable[[int], None] | None = None,
    counted: Sequence[int] | None = None,
    word_starts: Any = None,
) -> tuple[list[list[float]], list[list[float]] | None]:
    """For each sequence, the surprisal in bits of each token after the first given the tokens before it; and with
    ``word_starts`` (the ids that begin a word, ``word_starts.py``), for each sequence, the boundary term after each
    of its tokens (else None): -log2 of the probability that the next token begins a word, from the distribution
    the pass computes there anyway. A node computes a distribution only when it has children, so a caller that
    needs the term after a sequence's last token appends a token to it (any: its own surprisal is not used); nodes
    without one get NaN. ``counted[i]`` is what sequence i adds to ``progress`` once its row is done (default: its
    length).

    On a GPU the host prepares and queues pass k+1 while the device computes pass k: a pass's values are read back
    only after the next pass is queued, so the device never waits for Python between passes.
    """
    import numpy as np
    import torch

    limit = max(row_tokens, max((len(s) for s in sequences), default=1))
    # the checkpoints of one run pack the same ids into the same trees: packed once (shared_work)
    rows, paths = pack_once(sequences, limit, lambda: pack(sequences, limit))
    for row in rows:  # set anew on every use of a shared packing
        row.member_tokens = sum(counted[i] if counted is not None else len(sequences[i]) for i in row.members)
    node_values = [np.zeros(len(row.tokens), dtype=np.float32) for row in rows]
    node_bounds = [np.full(len(row.tokens), np.nan, dtype=np.float32) for row in rows] if word_starts is not None \
        else None
    base = decoder_of(model)
    projection = Projection(model, device)
    start_bias = None if word_starts is None else projection.start_bias(word_starts)
    dtype = next(model.parameters()).dtype
    pending: tuple[Any, Any, _Pass, list[int]] | None = None

    def read_back(values: Any, bounds: Any, inputs: _Pass, group: list[int]) -> None:
        found = values.cpu().numpy()
        for r, nodes, start, end in inputs.owners:
            node_values[r][nodes] = found[start:end]
        if bounds is not None and node_bounds is not None:
            # one value per parent in flat order; the parents are the computed nodes, row by row, column by column
            per_parent = bounds.cpu().numpy()
            start = 0
            for r, nodes in inputs.computed:
                node_bounds[r][nodes] = per_parent[start : start + len(nodes)]
                start += len(nodes)
        if progress is not None:
            progress(sum(rows[r].member_tokens for r in group))

    for group in batches([row.computed for row in rows], batch_tokens):
        inputs = _pass_inputs(rows, group)
        with torch.inference_mode():
            hidden = base(
                input_ids=_on(device, inputs.ids),
                attention_mask=tree_mask(inputs.up, inputs.depth, dtype, device),
                position_ids=_on(device, inputs.positions),
                use_cache=False,
            ).last_hidden_state
            values, bounds = projection.scores(hidden.reshape(-1, hidden.shape[-1]), inputs.parent_flat,
                                               inputs.child_token, start_bias)
        if pending is not None:
            read_back(*pending)
        pending = (values, bounds, inputs, group)
    if pending is not None:
        read_back(*pending)
    surprisals = [node_values[r][path[1:]].tolist() for r, path in paths]
    if node_bounds is None:
        return surprisals, None
    return surprisals, [node_bounds[r][path].tolist() for r, path in paths]


@dataclass
class _Pass:
    """One forward pass over rows padded to one width: its inputs, and which node each prediction belongs to."""

    ids: Any  # (batch, width) token ids of the computed nodes, in node order
    positions: Any  # (batch, width) their depths
    up: Any  # (batch, width) each column's parent column; a root's and a padding column's own
    depth: int  # the deepest column's depth: how far ancestors reach
    parent_flat: Any  # per predicted node: its parent's flat index into (batch x width)
    child_token: Any  # per predicted node: its token
    owners: list[tuple[int, Any, int, int]]  # per row: (row, its predicted nodes, start, end in the predictions)
    computed: list[tuple[int, Any]]  # per row: (row, its computed nodes, in column order)


def _pass_inputs(rows: Sequence[Row], group: Sequence[int]) -> _Pass:
    """The inputs of the pass over ``rows[group]``, built with array operations, one row at a time."""
    import numpy as np

    width = max(rows[r].computed for r in group)
    ids = np.zeros((len(group), width), dtype=np.int64)
    positions = np.zeros((len(group), width), dtype=np.int64)
    up = np.tile(np.arange(width, dtype=np.int64), (len(group), 1))
    parent_flat, child_token, owners, computed_nodes = [], [], [], []
    offset = 0
    for b, r in enumerate(group):
        row = rows[r]
        tokens = np.asarray(row.tokens, dtype=np.int64)
        parents = np.asarray(row.parents, dtype=np.int64)
        computed = np.asarray(row.has_children, dtype=bool)
        # Only nodes with children are computed, in node order; a computed node's ancestors are computed too.
        column = np.cumsum(computed) - 1
        n = int(column[-1]) + 1 if len(column) else 0
        ids[b, :n] = tokens[computed]
        positions[b, :n] = np.asarray(row.depths, dtype=np.int64)[computed]
        their_parents = parents[computed]
        up[b, :n] = np.where(their_parents >= 0, column[np.maximum(their_parents, 0)], np.arange(n))
        children = np.flatnonzero(parents >= 0)
        parent_flat.append(b * width + column[parents[children]])
        child_token.append(tokens[children])
        owners.append((r, children, offset, offset + len(children)))
        computed_nodes.append((r, np.flatnonzero(computed)))
        offset += len(children)
    return _Pass(ids, positions, up, int(positions.max(initial=0)), np.concatenate(parent_flat),
                 np.concatenate(child_token), owners, computed_nodes)


def _on(device: Any, array: Any) -> Any:
    """``array`` (numpy) as a tensor on ``device``. Copied without waiting for the device: a plain copy to a GPU
    waits for every kernel queued before it, which would stop the host preparing the next pass while the GPU
    computes this one. (From pageable memory the data is staged before the call returns, so the array may go.)"""
    import torch

    return torch.from_numpy(array).to(device, non_blocking=True)


def tree_mask(up: Any, depth: int, dtype: Any, device: Any) -> Any:
    """The additive 4-D mask (batch, 1, width, width) in ``dtype`` that lets each column see itself and its
    ancestors, from each column's parent column ``up`` (numpy, batch x width; a root's and a padding column's
    own), built on ``device``.

    Pointer doubling: after step i every column sees its ancestors up to 2^i - 1 levels up and ``jump`` points
    2^i levels up (a root points to itself), so ceil(log2(depth + 1)) steps reach the root; each step is one
    gather, whatever the number of nodes.
    """
    import torch

    jump = _on(device, up)
    batch, width = jump.shape
    allowed = torch.eye(width, dtype=torch.bool, device=device).expand(batch, width, width).clone()
    for _ in range(max(1, math.ceil(math.log2(depth + 1)))):
        allowed |= torch.gather(allowed, 1, jump[:, :, None].expand(batch, width, width))
        jump = torch.gather(jump, 1, jump)
    mask = torch.zeros((batch, 1, width, width), dtype=dtype, device=device)
    return mask.masked_fill_(~allowed[:, None], torch.finfo(dtype).min)


def start_bias(word_starts: Sequence[int], vocab: int, device: Any) -> Any:
    """0 at the ids that begin a word, -inf elsewhere (float32, one per output row, on ``device``): added to the
    logits, its log-sum-exp is the log of the word-start mass before normalising."""
    import torch

    bias = torch.full((vocab,), -math.inf, dtype=torch.float32)
    bias[torch.as_tensor(list(word_starts), dtype=torch.long)] = 0.0
    return bias.to(device)


class Projection:
    """Surprisals from final hidden states: the vocabulary projection and its normaliser, always in float32.

    Half-precision weights give half-precision logits, whose rounding (a step of 0.06-0.125 for logits of 8-32 in
    bfloat16) would move surprisals by as much: the projection is computed with float32 results instead (on a
    GPU, half inputs with float32 accumulation and output; elsewhere, from a float32 copy of the head made once).
    """

    def __init__(self, model: Any, device: Any) -> None:
        import torch

        self.head = model.get_output_embeddings()
        self.cap = getattr(model.config, "final_logit_softcapping", None)
        self.device = device
        self.dtype = self.head.weight.dtype
        self.device_type = getattr(device, "type", str(device))
        self.on_cuda = self.device_type == "cuda"
        vocab = int(self.head.weight.shape[0])
        # Positions per projection: 16 MiB of float32 logits on a CPU (256 at least, so that a large vocabulary's
        # weights are not streamed from memory for a handful of positions), 256 MiB on a GPU (fewer, larger
        # matrix products; a GPU prefers them).
        self.chunk = max(256, (1 << (26 if self.on_cuda else 22)) // vocab)
        # On a CPU the full logits of a chunk (256 x 262,144 floats for gemma-3) go to main memory and back; a
        # log-sum-exp over vocabulary blocks that stay in cache took a third less time for the projection and
        # normaliser together (the target's logit is then a dot product). GPUs prefer one large matmul.
        self.blocked = not self.on_cuda and self.dtype == torch.float32 and isinstance(self.head, torch.nn.Linear)
        # the head in oneDNN's layout, block by block, where float32 products on this CPU go through it (onednn)
        self.blocks = _packed_blocks(self.head) if self.blocked else None
        self.weight32: Any = None  # the float32 copy of a half-precision head, made at first use where needed
        self.mixed = self.on_cuda and self.dtype != torch.float32  # half inputs, float32 results

    def logits(self, hidden: Any) -> Any:
        """float32 logits of ``hidden`` (soft-capped where the model caps them)."""
        import torch

        bias = getattr(self.head, "bias", None)
        if self.dtype == torch.float32:
            logits = self.head(hidden)
        else:
            logits = None
            if self.mixed:
                try:
                    logits = torch.mm(hidden, self.head.weight.t(), out_dtype=torch.float32)
                except (TypeError, RuntimeError, NotImplementedError):  # a torch without mixed-output products
                    self.mixed = False
            if logits is None:
                if self.weight32 is None:
                    self.weight32 = self.head.weight.float()
                logits = torch.nn.functional.linear(hidden.float(), self.weight32)
            if bias is not None:
                logits = logits + bias.float()
        if self.cap:
            logits = torch.tanh(logits / self.cap) * self.cap
        return logits

    def start_bias(self, word_starts: Sequence[int]) -> Any:
        """``start_bias`` for this head."""
        return start_bias(word_starts, int(self.head.weight.shape[0]), self.device)

    def surprisals(self, hidden: Any, parent_flat: Any, child_token: Any) -> Any:
        """Bits of ``child_token[i]`` after the hidden state ``hidden[parent_flat[i]]``, as a float32 tensor on the
        model's device (not read back: the caller decides when to wait for it). Under ``bfloat16-mixed`` (autocast)
        too the projection and normaliser run in float32, from the float32 head."""
        return self.scores(hidden, parent_flat, child_token)[0]

    def scores(self, hidden: Any, parent_flat: Any, child_token: Any, start_bias: Any = None) -> tuple[Any, Any]:
        """``surprisals``, and with ``start_bias`` (``start_bias()``) the boundary term of each parent, in the order of
        ``numpy.unique(parent_flat)``: -log2 of the probability that the next token begins a word."""
        import torch

        with torch.autocast(self.device_type, enabled=False):
            return self._surprisals(hidden.float() if self.dtype == torch.float32 else hidden, parent_flat,
                                    child_token, start_bias)

    def _surprisals(self, hidden: Any, parent_flat: Any, child_token: Any, start_bias: Any) -> tuple[Any, Any]:
        import numpy as np
        import torch

        # Only parents need logits; each parent once, however many children it has.
        parents, inverse = np.unique(parent_flat, return_inverse=True)
        order = np.argsort(inverse, kind="stable")  # the children of each chunk of parents, contiguous
        bounds = np.searchsorted(inverse[order], np.arange(0, len(parents) + self.chunk, self.chunk))
        values = torch.empty(len(child_token), dtype=torch.float32, device=self.device)
        boundary = None if start_bias is None else torch.empty(len(parents), dtype=torch.float32, device=self.device)
        # Four copies to the device per pass, sliced per chunk there: a copy from pageable memory costs the host
        # about 0.25 ms on a GPU, and four per chunk were a tenth of a 1B model's run (profile, performance.md).
        all_which, all_parent, all_wanted, all_parents = (
            _on(self.device, array) for array in (order, inverse[order], child_token[order], parents))
        for c, start in enumerate(range(0, len(parents), self.chunk)):
            which = all_which[bounds[c] : bounds[c + 1]]
            local = all_parent[bounds[c] : bounds[c + 1]] - start
            wanted = all_wanted[bounds[c] : bounds[c + 1]]
            rows_hidden = hidden[all_parents[start : start + self.chunk]]
            if self.blocked:
                norm, starts = _blocked_logsumexp(rows_hidden, self.head, self.cap, self.blocks, start_bias)
                picked = _target_logits(rows_hidden[local], self.head, wanted, self.cap) - norm[local]
            else:
                logits = self.logits(rows_hidden)
                norm = torch.logsumexp(logits, dim=-1)
                picked = logits[local, wanted] - norm[local]
                # (in place: the logits are not read again)
                starts = None if start_bias is None else torch.logsumexp(logits.add_(start_bias), dim=-1)
            values[which] = -picked / LN2
            if boundary is not None:
                boundary[start : start + len(rows_hidden)] = (norm - starts) / LN2
        return values, boundary


VOCAB_BLOCK = 2048  # vocabulary columns per block of the CPU log-sum-exp: 2048 x 256 rows x 4 bytes = 2 MiB


def _packed_blocks(head: Any) -> Any:
    from linguagym.scoring.native import onednn

    return onednn.head_blocks(head, VOCAB_BLOCK)


def _blocked_logsumexp(hidden: Any, head: Any, cap: float | None, packed: Any = None,
                       start_bias: Any = None) -> tuple[Any, Any]:
    """log-sum-exp over the vocabulary of ``head(hidden)`` (soft-capped by ``cap``), block by block; ``packed``:
    the head's blocks in oneDNN's layout (``onednn.head_blocks``), used where given. With ``start_bias``, also the
    log-sum-exp over the ids that begin a word (else None)."""
    import torch

    from linguagym.scoring.native.onednn import product

    weight, bias = head.weight, head.bias
    parts, start_parts = [], []
    for number, start in enumerate(range(0, weight.shape[0], VOCAB_BLOCK)):
        block_bias = None if bias is None else bias[start : start + VOCAB_BLOCK]
        if packed is not None:
            block = product(hidden, packed[number], block_bias, min(VOCAB_BLOCK, weight.shape[0] - start))
        else:
            block = torch.nn.functional.linear(hidden, weight[start : start + VOCAB_BLOCK], block_bias)
        if cap:
            block = torch.tanh(block / cap) * cap
        if start_bias is None:
            parts.append(torch.logsumexp(block, dim=-1))
        else:  # one pass of exp for both sums: the block's, and its word starts' (bias 0, else -inf: weight 1 or 0)
            peak = block.amax(dim=-1, keepdim=True)
            weights = block.sub_(peak).exp_()
            peak = peak.squeeze(-1)
            parts.append(peak + weights.sum(dim=-1).log())
            start_parts.append(peak + (weights @ start_bias[start : start + VOCAB_BLOCK].exp()).log())
    norm = torch.logsumexp(torch.stack(parts, dim=-1), dim=-1)
    return norm, (torch.logsumexp(torch.stack(start_parts, dim=-1), dim=-1) if start_parts else None)


def _target_logits(hidden: Any, head: Any, targets: Any, cap: float | None) -> Any:
    """The logit of ``targets[i]`` at ``hidden[i]``: one row of the projection each, as a dot product."""
    logits = (hidden * head.weight[targets]).sum(-1)
    if head.bias is not None:
        logits = logits + head.bias[targets]
    if cap:
        import torch

        logits = torch.tanh(logits / cap) * cap
    return logits
