"""decoder_step: cached decoding of a TransformerDecoder gives, at every step, the logits that the full
decoder gives at the same positions (the new ids at their absolute positions), and returns one growing
(keys, values) pair per layer. The oracle is the full-prefix forward written from the state dict
(oracles.decoder_logits); the attention layers and cached_causal_attention are stand-ins, so mistakes in
them are charged to their own questions."""

import torch
import torch.nn.functional as F

from assignments.grading.testkit import expect, expect_close, question
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import decoder_state, seeded
from autograder.rnn_attention.oracles import decoder_logits

# As for cached_causal_attention (test_kv_cache_attention.py): rounding order only. The layer norms keep
# every entry below about 10 and each output sums fewer than 100 rounded terms per layer, two layers at most:
# 2 x 100 x 10 x 6e-8 = 1.2e-4 in the worst alignment; 5e-4 leaves four times that, while a new id at
# position 0 or a stale cache moves logits by more than 0.05.
ATOL = 5e-4
STAND_INS = ("ScaledDotAttention", "CausalScaledDotAttention", "cached_causal_attention")

RUN_DECODER = (
    LOAD_STATE
    + """
def snapshot(cache):
    if not isinstance(cache, (tuple, list)):
        return None
    pairs = []
    for pair in cache:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(t, torch.Tensor) for t in pair)):
            return None
        pairs.append([t.detach().clone() for t in pair])
    return pairs

decoder = TransformerDecoder(vocab, hidden, num_layers=num_layers, max_len=max_len, use_positions=positions)
load = load_grader_state(decoder, state)
decoder.eval()
steps, caches, cache, past = [], [], None, 0
with torch.no_grad():
    for new in chunks:
        logits, cache = decoder_step(decoder, inputs[:, past:past + new], annotations, cache)
        past += new
        steps.append(logits)
        caches.append(snapshot(cache))
result = {"steps": steps, "caches": caches, "load": load}
"""
)

# (batch, vocab, hidden, num_layers, chunks, positions): one id at a time, a prefix chunk first, no positions
CASES = [
    (2, 13, 6, 2, [1] * 7, True),
    (3, 9, 4, 1, [3, 1, 1, 1], True),
    (1, 11, 6, 2, [2, 1, 1], False),
]


def _run(student, batch, vocab, hidden, num_layers, chunks, positions, seed):
    g = torch.Generator().manual_seed(seed)
    max_len = sum(chunks) + 2
    state = decoder_state(vocab, hidden, num_layers, max_len, g, positions=positions)
    inputs = torch.randint(0, vocab, (batch, sum(chunks)), generator=g)
    annotations = seeded((batch, 5, hidden), g)
    out = student.run(
        RUN_DECODER,
        stand_ins=STAND_INS,
        vocab=vocab,
        hidden=hidden,
        num_layers=num_layers,
        max_len=max_len,
        positions=positions,
        state=state,
        inputs=inputs,
        annotations=annotations,
        chunks=chunks,
    )
    expect(isinstance(out, dict), "the grader could not read what decoder_step returned")
    expect_loaded(out.get("load"), state, "TransformerDecoder")
    return state, inputs, annotations, out


@question("decoder_step_tests", points=1)
def test_step_logits_match_the_full_decoder(student):
    for seed, (batch, vocab, hidden, num_layers, chunks, positions) in enumerate(CASES):
        state, inputs, annotations, out = _run(student, batch, vocab, hidden, num_layers, chunks, positions, 400 + seed)
        full = decoder_logits(state, inputs, annotations, num_layers)  # (B, T, V)
        steps = out["steps"]
        expect(isinstance(steps, list) and len(steps) == len(chunks), "decoder_step returned no logits")
        past = 0
        for step, (new, logits) in enumerate(zip(chunks, steps)):
            expect_close(
                logits,
                full[:, past : past + new],
                f"{num_layers}-layer decoder {'with' if positions else 'without'} positions, batch {batch}: the "
                f"logits of call {step + 1} (positions {past}..{past + new - 1}, after {past} cached), against the "
                f"full decoder at those positions",
                atol=ATOL,
            )
            past += new


@question("decoder_step_tests", points=1)
def test_cache_holds_one_growing_pair_per_layer(student):
    for seed, (batch, vocab, hidden, num_layers, chunks, positions) in enumerate(CASES[:2]):
        state, inputs, _, out = _run(student, batch, vocab, hidden, num_layers, chunks, positions, 420 + seed)
        past = 0
        for step, (new, cache) in enumerate(zip(chunks, out["caches"])):
            past += new
            expect(
                cache is not None and len(cache) == num_layers,
                f"call {step + 1} of a {num_layers}-layer decoder should return a list of {num_layers} (keys, "
                f"values) pairs of tensors, one per layer",
            )
            for layer, (keys, values) in enumerate(cache):
                expect(
                    tuple(keys.shape) == tuple(values.shape) == (batch, past, hidden),
                    f"after {past} positions layer {layer}'s cached keys and values should have shape "
                    f"{(batch, past, hidden)}; got {tuple(keys.shape)} and {tuple(values.shape)}: return the grown "
                    f"caches, not the ones you were given",
                )
            # the first layer's keys are Wk of the embeddings plus the positions 0 .. past - 1
            x = F.embedding(inputs[:, :past], state["embedding.weight"]) + state["positions.weight"][:past]
            keys = F.linear(x, state["self_attention.0.Wk.weight"], state["self_attention.0.Wk.bias"])
            expect_close(cache[0][0], keys, f"layer 0's cached keys after {past} positions", atol=ATOL)
