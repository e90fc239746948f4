"""cached_causal_attention: each step's context equals the full causal attention's at the same positions
(one position at a time, and chunks given with a cache), and the cache grows along the time axis by the new
positions, holding their projected keys and values. The oracle is the full-sequence computation
(oracles.dot_attention with causal=True) on the grader's weights; the layer is the notebook's own
CausalScaledDotAttention (a stand-in), so a mistake there is charged to its own question."""

import torch
import torch.nn.functional as F

from assignments.grading.testkit import behaviour, expect, expect_close, kernel_shape, question
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import random_dot_state, seeded
from autograder.rnn_attention.oracles import dot_attention

# Cached and full computations differ only in the order of float32 roundings (relative 6e-8 each). The
# entries here stay below about 10 in size and each output sums fewer than 50 rounded terms, so the two
# differ by less than 50 x 10 x 6e-8 = 3e-5 even if every rounding went the same way; 1e-4 is three times
# that, and each mistake of the behaviour map moves some output by more than 0.01.
ATOL = 1e-4

RUN_CHUNKS = (
    LOAD_STATE
    + """
def snapshot(cache):
    if isinstance(cache, (tuple, list)) and len(cache) == 2 and all(isinstance(t, torch.Tensor) for t in cache):
        return [t.detach().clone() for t in cache]
    return None

attention = CausalScaledDotAttention(hidden_size)
load = load_grader_state(attention, state)
contexts, caches, cache, past = [], [], None, 0
with torch.no_grad():
    for new in chunks:
        context, cache = cached_causal_attention(attention, x[:, past:past + new], cache)
        past += new
        contexts.append(context)
        caches.append(snapshot(cache))
result = {"contexts": contexts, "caches": caches, "load": load}
"""
)


def _run(student, batch, hidden, chunks, seed):
    g = torch.Generator().manual_seed(seed)
    state = random_dot_state(hidden, g)
    x = seeded((batch, sum(chunks), hidden), g)
    out = student.run(
        RUN_CHUNKS, stand_ins=("CausalScaledDotAttention",), hidden_size=hidden, state=state, x=x, chunks=chunks
    )
    expect(isinstance(out, dict), "the grader could not read what cached_causal_attention returned")
    expect_loaded(out.get("load"), state, "CausalScaledDotAttention")
    return state, x, out


def _expect_contexts(out, state, x, chunks, what):
    full, _ = dot_attention(state, x, x, x, causal=True)  # (B, T, H): the full computation
    contexts = out["contexts"]
    expect(isinstance(contexts, list) and len(contexts) == len(chunks), "cached_causal_attention returned no context")
    past = 0
    for step, (new, context) in enumerate(zip(chunks, contexts)):
        expect_close(
            context,
            full[:, past : past + new],
            f"{what}: the context of call {step + 1} (positions {past}..{past + new - 1}, after {past} cached), "
            f"against the full causal attention at those positions",
            atol=ATOL,
        )
        past += new


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "one position per call: each context equals the full causal attention's at that position",
    mutant="kv_cache_mask_not_shifted",
)
@behaviour(
    "cached_causal_attention",
    "later calls see the earlier positions only through the returned cache",
    mutant="kv_cache_stale",
)
@behaviour(
    "cached_causal_attention",
    "a call with a cache runs at all: keys and values concatenated on the time axis",
    mutant="kv_cache_appended_on_hidden_axis",
)
def test_each_step_matches_the_full_computation(student):
    # (batch, hidden, chunks): one position at a time from the first; a single position (no cache at all)
    for seed, (batch, hidden, chunks) in enumerate([(2, 5, [1] * 6), (1, 4, [1]), (3, 7, [1] * 5)]):
        state, x, out = _run(student, batch, hidden, chunks, 300 + seed)
        _expect_contexts(out, state, x, chunks, f"batch {batch}, hidden {hidden}, one position per call")


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "the cache grows by the new positions along axis 1 (time), not another axis",
    mutant="kv_cache_appended_on_hidden_axis",
)
@behaviour(
    "cached_causal_attention",
    "the grown cache is returned (not the one given) and holds Wk(x) and Wv(x), oldest first",
    mutant="kv_cache_stale",
)
def test_cache_grows_on_the_time_axis_and_holds_the_projections(student):
    for seed, (batch, hidden, chunks) in enumerate([(2, 6, [1, 1, 1, 1]), (1, 5, [3, 1, 2])]):
        state, x, out = _run(student, batch, hidden, chunks, 320 + seed)
        past = 0
        for step, (new, cache) in enumerate(zip(chunks, out["caches"])):
            past += new
            expect(
                cache is not None,
                f"call {step + 1} (batch {batch}, hidden {hidden}) did not return a pair (keys, values) of "
                f"tensors as its new cache",
            )
            for name, layer, tensor in (("keys", "Wk", cache[0]), ("values", "Wv", cache[1])):
                expect(
                    tuple(tensor.shape) == (batch, past, hidden),
                    f"after {past} positions the cached {name} should have shape {(batch, past, hidden)} (batch, "
                    f"past + new, hidden); got {kernel_shape(tensor)}: append the new positions along axis 1 (time) "
                    f"and return the grown cache",
                )
                projected = F.linear(x[:, :past], state[f"{layer}.weight"], state[f"{layer}.bias"])
                expect_close(
                    tensor,
                    projected,
                    f"the cached {name} after {past} positions, against {layer}(x), oldest first",
                    atol=ATOL,
                )


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "a chunk after a cache: the causal mask shifted by the cached length",
    mutant="kv_cache_mask_not_shifted",
)
@behaviour(
    "cached_causal_attention",
    "a chunk after a cache sees the cached keys through the returned cache",
    mutant="kv_cache_stale",
)
@behaviour(
    "cached_causal_attention",
    "a chunk after a cache runs at all: keys and values concatenated on the time axis",
    mutant="kv_cache_appended_on_hidden_axis",
)
def test_chunks_after_a_cache_see_the_cache_and_their_own_prefix(student):
    # a chunk of several positions after a cache needs the causal mask shifted by the cached length
    for seed, (batch, hidden, chunks) in enumerate([(2, 5, [3, 4, 1, 2]), (1, 6, [2, 2]), (3, 4, [1, 3])]):
        state, x, out = _run(student, batch, hidden, chunks, 340 + seed)
        _expect_contexts(out, state, x, chunks, f"batch {batch}, hidden {hidden}, chunks of {chunks}")


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "cached_causal_attention",
        "the cache updated in place (a preallocated buffer) or rebuilt; no mask for a single position",
        "Both are allowed in the skeleton's words (only the returned cache is passed on); variant kv_cache_preallocated_buffer keeps full marks.",
    ),
    (
        "cached_causal_attention",
        "train vs eval mode, randomness, gradient flow",
        "No dropout and nothing sampled, and decoding runs under torch.no_grad, so nothing trains through the cache.",
    ),
    (
        "cached_causal_attention",
        "dtype and device",
        "The character models run on the CPU in float32; the mask is built on the scores' device.",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "cached_causal_attention",
        "attention",
        "CausalScaledDotAttention (the notebook's own, a stand-in) of hidden size 4, 5, 6, 7 with the grader's weights",
        None,
    ),
    ("cached_causal_attention", "x_new", "(batch, new, hidden) with batch 1, 2, 3 and new 1, 2, 3, 4", None),
    ("cached_causal_attention", "cache", "None, the pair returned by the previous call after 1 to 9 positions", None),
]
