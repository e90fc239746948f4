"""cached_causal_attention: each step's context equals the full causal attention's at the same positions
(one position at a time, and chunks given with a cache), and the cache grows along the time axis by the new
positions, holding their projected keys and values. Beyond values: state (two sequences decoded in turn with one
layer, a restart from a copy of a cache, two layers each with its own cache, the layer left as given), gradients
through a chain of calls, float64 and bfloat16, the meta device, and masked keys with huge scores. The oracle is
the full-sequence computation (oracles.dot_attention with causal=True) on the grader's weights; the layer is the
notebook's own CausalScaledDotAttention (a stand-in), so a mistake there is charged to its own question."""

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import (
    GradingFailure,
    StudentCodeError,
    behaviour,
    expect,
    expect_close,
    kernel_shape,
    question,
)
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import random_dot_state, seeded
from autograder.rnn_attention.oracles import dot_attention

# Cached and full computations differ only in the order of float32 roundings (relative 6e-8 each). The
# entries here stay below about 10 in size and each output sums fewer than 50 rounded terms, so the two
# differ by less than 50 x 10 x 6e-8 = 3e-5 even if every rounding went the same way; 1e-4 is three times
# that, and each mistake of the behaviour map moves some output by more than 0.01.
ATOL = 1e-4

# A chain of calls on one layer, as decoding makes them (the layer's weights are the grader's; LOAD_STATE goes
# in front, in _call).
RUN_CHUNKS = """
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


def _call(student, what, code, state=None, **inputs):
    """Run ``code`` in the student's namespace with the stand-in layer; a raise becomes a failure that says in
    which situation it happened, and the grader's weights must have loaded."""
    try:
        out = student.run(LOAD_STATE + code, stand_ins=("CausalScaledDotAttention",), state=state, **inputs)
    except StudentCodeError as error:
        raise GradingFailure(f"{what}: your code raised {error}") from None
    expect(isinstance(out, dict), f"the grader could not read what cached_causal_attention returned ({what})")
    if state is not None:
        expect_loaded(out.get("load"), state, "CausalScaledDotAttention")
    return out


def _run(student, batch, hidden, chunks, seed):
    g = torch.Generator().manual_seed(seed)
    state = random_dot_state(hidden, g)
    x = seeded((batch, sum(chunks), hidden), g)
    what = f"batch {batch}, hidden {hidden}, chunks of {chunks}"
    return state, x, _call(student, what, RUN_CHUNKS, state=state, hidden_size=hidden, x=x, chunks=chunks)


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
    "each query sees its own key (j == past + i), the mask's boundary, down to the first position of all",
    mutant="kv_cache_mask_hides_own_key",
    kind="boundary",
)
@behaviour(
    "cached_causal_attention",
    "a batch of one, one position per call",
    mutant="kv_cache_squeeze_single_query",
    kind="batch-of-one",
)
@behaviour(
    "cached_causal_attention",
    "the first call of decoding: one position with cache None (a single key, nothing to mask)",
    mutant="kv_cache_squeeze_single_query",
    kind="degenerate",
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


# One layer, three sequences in the order of `plan`: A and B each from cache None, and C a restart from a copy
# (clone) of A's cache after A's first 3 positions, which the caller kept aside (the skeleton's words: the caller
# passes on only the cache it gets back, and keeps a copy of a cache it means to start again from). C's inputs
# are A's first 3 positions followed by C's own. The calls run interleaved on one layer; beside them each sequence
# is decoded from cache None on a fresh layer of its own, one sequence after the other (C from its first position,
# as chunks 3, 2, 1), which state cannot spoil, so that a failure is named as a mistake of state only when those
# are right.
RUN_IN_TURN = """
def fresh_layer():
    layer = CausalScaledDotAttention(hidden_size)
    loads.append(load_grader_state(layer, state))
    return layer

def decode(order, layer_of, starts):
    caches, pasts, contexts, copy = {"A": None, "B": None, "C": None}, dict(starts), {}, None
    for name, new in order:
        if name == "C" and caches["C"] is None:
            caches["C"] = copy
        past = pasts[name]
        context, caches[name] = cached_causal_attention(layer_of(name), inputs[name][:, past:past + new], caches[name])
        pasts[name] = past + new
        contexts.setdefault(name, []).append(context)
        if name == "A" and pasts["A"] == 3:
            copy = tuple(t.clone() for t in caches["A"])
    return contexts

loads = []
shared, own = fresh_layer(), {}
with torch.no_grad():
    in_turn = decode(plan, lambda name: shared, {"A": 0, "B": 0, "C": 3})
    alone = decode([("C", 3)] + [step for name in "CAB" for step in plan if step[0] == name],
                   lambda name: own[name] if name in own else own.setdefault(name, fresh_layer()),
                   {"A": 0, "B": 0, "C": 0})
result = {"in_turn": in_turn, "alone": alone, "load": next((r for r in loads if any(r.values())), loads[0])}
"""

IN_TURN_PLAN = [("A", 3), ("B", 1), ("A", 1), ("B", 3), ("C", 2), ("A", 2), ("B", 2), ("C", 1), ("A", 1)]
IN_TURN_WHAT = {
    "A": "the first of two sequences (A)",
    "B": "the second of two sequences (B)",
    "C": "the restarted sequence (C: A's first 3 positions, then 3 of its own)",
}


def _differences(contexts, full, chunks, start=0):
    """(call, first position, new, largest difference: None when the context is missing or misshaped, NaN when it
    holds NaN or inf), per call that does not match ``full`` within ATOL and expect_close's default rtol."""
    found = []
    if not isinstance(contexts, list) or len(contexts) != len(chunks):
        return [(0, start, chunks[0], None)]
    past = start
    for call, (new, context) in enumerate(zip(chunks, contexts)):
        expected = full[:, past : past + new]
        if not isinstance(context, torch.Tensor) or tuple(context.shape) != tuple(expected.shape):
            found.append((call, past, new, None))
        else:
            context = context.to(expected.dtype)
            if not torch.isfinite(context).all():
                found.append((call, past, new, float("nan")))
            elif not torch.allclose(context, expected, rtol=1e-4, atol=ATOL):
                found.append((call, past, new, (context - expected).abs().max().item()))
        past += new
    return found


def _describe(difference, what="the context of its call"):
    call, past, new, largest = difference
    where = f"{what} {call + 1} (positions {past}..{past + new - 1})"
    if largest is None:
        return f"{where} is missing or misshaped"
    return f"{where} contains NaN or inf" if math.isnan(largest) else f"{where} is off by up to {largest:.3g}"


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "two sequences decoded in turn with one layer, each with its own cache: nothing kept on the layer",
    mutant="kv_cache_kv_on_module",
    kind="state",
)
@behaviour(
    "cached_causal_attention",
    "two sequences in turn: the mask's shift comes from the given cache, not from a count kept on the layer",
    mutant="kv_cache_past_counter_on_module",
    kind="state",
)
@behaviour(
    "cached_causal_attention",
    "two sequences in turn: nothing kept in a global",
    mutant="kv_cache_global_cache",
    kind="state",
)
@behaviour(
    "cached_causal_attention",
    "a second sequence started from cache None, or a restart from a copy, leaves the first one's cache as it was "
    "(no storage shared between caches)",
    mutant="kv_cache_static_buffer_shared",
    kind="state",
)
def test_one_layer_decodes_two_sequences_in_turn_and_restarts_from_a_copy(student):
    g = torch.Generator().manual_seed(360)
    batch, hidden = 2, 6
    state = random_dot_state(hidden, g)
    first = seeded((batch, 7, hidden), g)
    inputs = {
        "A": first,
        "B": seeded((batch, 6, hidden), g),
        "C": torch.cat([first[:, :3], seeded((batch, 3, hidden), g)], 1),
    }
    out = _call(
        student,
        "decoding two sequences with one layer",
        RUN_IN_TURN,
        state=state,
        hidden_size=hidden,
        inputs=inputs,
        plan=[list(step) for step in IN_TURN_PLAN],
    )
    for key in ("alone", "in_turn"):
        expect(isinstance(out.get(key), dict), "cached_causal_attention returned no context")
    order = " then ".join(f"{name}{new}" for name, new in IN_TURN_PLAN)
    for key in ("alone", "in_turn"):
        for name, what in IN_TURN_WHAT.items():
            full, _ = dot_attention(state, inputs[name], inputs[name], inputs[name], causal=True)
            chunks = [new for step, new in IN_TURN_PLAN if step == name]
            start = 0
            if name == "C":  # in turn it restarts after 3 positions; alone it decodes them first
                start, chunks = (3, chunks) if key == "in_turn" else (0, [3] + chunks)
            wrong = _differences(out[key].get(name), full, chunks, start=start)
            if not wrong:
                continue
            if key == "alone":
                raise GradingFailure(
                    f"{what}, decoded from cache None on a layer of its own with nothing in between (chunks of "
                    f"{chunks}): {_describe(wrong[0])} against the full causal attention of that sequence"
                )
            raise GradingFailure(
                f"one layer decoding two sequences in turn and a restart from a copy (calls {order}; A and B start "
                f"from cache None, C from a copy of A's cache after 3 positions): for {what}, {_describe(wrong[0])} "
                f"against the full causal attention of that sequence, although each sequence decoded from cache None "
                f"on a layer of its own gets it right; everything about earlier positions must come from the cache "
                f"given (nothing kept on the layer, in a global or on the function, and no storage shared between "
                f"caches)"
            )


# Two layers, each with its own cache, the second fed the first's output plus its input (a residual, as the
# decoder adds each layer's context back). Stacked, one decoding step runs both layers before the next step;
# one layer at a time, the first layer decodes every step before the second starts (on layers of their own).
RUN_STACK = """
loads = []
def fresh_layers():
    layers = [CausalScaledDotAttention(hidden_size) for _ in states]
    loads.extend(load_grader_state(layer, layer_state) for layer, layer_state in zip(layers, states))
    return layers

with torch.no_grad():
    layers, caches, stacked, past = fresh_layers(), [None] * len(states), [], 0
    for new in chunks:
        h = x[:, past:past + new]
        for i, layer in enumerate(layers):
            context, caches[i] = cached_causal_attention(layer, h, caches[i])
            h = h + context
        stacked.append(h)
        past += new
    h, one_at_a_time = x, []
    for layer in fresh_layers():
        contexts, cache, past = [], None, 0
        for new in chunks:
            context, cache = cached_causal_attention(layer, h[:, past:past + new], cache)
            contexts.append(context)
            past += new
        h = h + torch.cat(contexts, dim=1)
        one_at_a_time.append(h)
result = {"stacked": stacked, "one_at_a_time": one_at_a_time[-1],
          "load": next((r for r in loads if any(r.values())), loads[0])}
"""


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "two layers in a stack, as decoder_step calls them: each layer keeps its own cache",
    mutant="kv_cache_global_cache",
    kind="state",
)
def test_each_layer_of_a_stack_keeps_its_own_cache(student):
    g = torch.Generator().manual_seed(370)
    batch, hidden, chunks = 3, 5, [3, 1, 2, 1]
    states = [random_dot_state(hidden, g), random_dot_state(hidden, g)]
    x = seeded((batch, sum(chunks), hidden), g)
    what = "two layers in a stack, each with its own cache"
    out = _call(student, what, RUN_STACK, hidden_size=hidden, states=states, x=x, chunks=chunks)
    expect_loaded(out.get("load"), states[0], "CausalScaledDotAttention")
    h = x
    for layer_state in states:  # the full computation, layer by layer
        h = h + dot_attention(layer_state, h, h, h, causal=True)[0]
    expect_close(
        out.get("one_at_a_time"),
        h,
        f"two layers (the second gets the first's input plus its context), each decoding all of chunks {chunks} "
        f"before the next layer starts, against the full computation",
        atol=ATOL,
    )
    wrong = _differences(out.get("stacked"), h, chunks)
    expect(
        not wrong,
        f"two layers in a stack, both called at every step as a decoder calls them (chunks {chunks}): "
        f"{_describe(wrong[0], 'the output of step') if wrong else ''} against the full computation, although the "
        f"same layers decoding one after the other get it right: each layer must keep its own cache, nothing shared "
        f"between them",
    )


RUN_LEFT_AS_GIVEN = """
def attributes(module):
    return sorted(f"{name}.{key}" for name, sub in module.named_modules() for key in vars(sub))

report = {}
for training in (True, False):
    attention = CausalScaledDotAttention(hidden_size)
    load = load_grader_state(attention, state)
    attention.train(training)
    before, tensors = attributes(attention), {k: v.clone() for k, v in attention.state_dict().items()}
    with torch.no_grad():
        cache, past = None, 0
        for new in chunks:
            _, cache = cached_causal_attention(attention, x[:, past:past + new], cache)
            past += new
    now = attention.state_dict()
    report[str(training)] = {
        "training": attention.training,
        "before": before,
        "after": attributes(attention),
        "state": sorted(now) == sorted(tensors) and all(torch.equal(now[k], tensors[k]) for k in tensors),
    }
result = {"report": report, "load": load}
"""


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "the layer's mode is left as the caller set it (training and evaluation)",
    mutant="kv_cache_sets_eval",
    kind="state",
)
@behaviour(
    "cached_causal_attention",
    "nothing is stored on the layer (no attribute added)",
    mutant="kv_cache_kv_on_module",
)
@behaviour(
    "cached_causal_attention",
    "nothing is counted on the layer (no attribute added)",
    mutant="kv_cache_past_counter_on_module",
)
def test_the_layer_is_left_as_given(student):
    g = torch.Generator().manual_seed(380)
    hidden, chunks = 4, [2, 1, 3]
    state = random_dot_state(hidden, g)
    x = seeded((2, sum(chunks), hidden), g)
    out = _call(
        student, "a chain of calls on one layer", RUN_LEFT_AS_GIVEN, state=state, hidden_size=hidden, x=x, chunks=chunks
    )
    report = out.get("report")
    expect(isinstance(report, dict), "the grader could not read the layer after the calls")
    for training, mode in ((True, "training"), (False, "evaluation")):
        found = report.get(str(training))
        expect(
            isinstance(found, dict) and isinstance(found.get("before"), list) and isinstance(found.get("after"), list),
            "the grader could not read the layer after the calls",
        )
        expect(
            found.get("training") is training,
            f"a layer in {mode} mode came out in the other mode: cached_causal_attention must leave the layer's "
            f"mode as the caller set it (change nothing in it)",
        )
        added = len(set(map(str, found["after"])) - set(map(str, found["before"])))
        expect(
            added == 0,
            f"cached_causal_attention added {added} attribute(s) to the layer (or to its Wq, Wk, Wv): change nothing "
            f"in it; everything about earlier positions travels in the cache you return",
        )
        expect(
            found.get("state") is True,
            "the layer's parameters or buffers changed during the calls: use Wq, Wk, Wv as they are",
        )


# Gradients, in float64 so that the comparison is tight. A fixed weighting of every context (`weights`, one per
# call) is summed and back-propagated in the kernel; the oracle back-propagates the same sum through the full
# computation. The two differ only in float64 roundings: every entry on the way stays below 10 and each gradient
# entry gathers fewer than 1000 rounded terms (batch x positions x keys x hidden at these sizes), so they differ
# by less than 1000 x 10 x 1.1e-16 = 1.1e-12 however the roundings fall (measured: 1.3e-15); 1e-10 is a hundred
# times that, and a gradient that misses the cached positions is off by more than 0.01.
GRAD_ATOL = 1e-10

RUN_GRADIENTS = """
attention = CausalScaledDotAttention(hidden_size).double()
load = load_grader_state(attention, state)
x = x.clone().requires_grad_(True)
cache, past, total, contexts = None, 0, 0, []
for new, weight in zip(chunks, weights):
    context, cache = cached_causal_attention(attention, x[:, past:past + new], cache)
    total = total + (context * weight).sum()
    contexts.append(context.detach().clone())
    past += new
total.backward()
result = {"x": x.grad, "parameters": {name: p.grad for name, p in attention.named_parameters()}, "load": load,
          "contexts": contexts}
"""

PARAMETERS = ("Wq.weight", "Wq.bias", "Wk.weight", "Wk.bias", "Wv.weight", "Wv.bias")


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "gradients through a chain of calls reach the earlier positions' keys and values (the cache is not detached)",
    mutant="kv_cache_detached_cache",
)
@behaviour(
    "cached_causal_attention",
    "gradients reach Wk and Wv, and x through the keys and values (no torch.no_grad around them)",
    mutant="kv_cache_no_grad_projections",
)
@behaviour(
    "cached_causal_attention",
    "backward through a chain of calls runs: no in-place write into a tensor an earlier call used",
    mutant="kv_cache_writes_past_view_end",
)
@behaviour(
    "cached_causal_attention",
    "backward runs: no in-place write into a buffer an earlier call's keys still use",
    mutant="kv_cache_static_buffer_shared",
)
@behaviour(
    "cached_causal_attention",
    "the chain runs in float64 with gradients: a buffer made in x_new's dtype",
    mutant="kv_cache_buffer_default_dtype",
    kind="device",
)
@behaviour(
    "cached_causal_attention",
    "the chain runs in float64 with gradients: the weights in the values' dtype",
    mutant="kv_cache_softmax_float32",
    kind="device",
)
def test_gradients_reach_the_inputs_the_cache_and_the_weights(student):
    for seed, (batch, hidden, chunks) in enumerate([(2, 5, [3, 1, 2]), (1, 4, [1, 2, 1])]):
        g = torch.Generator().manual_seed(390 + seed)
        state = {name: value.double() for name, value in random_dot_state(hidden, g).items()}
        x = seeded((batch, sum(chunks), hidden), g).double()
        weights = [seeded((batch, new, hidden), g).double() for new in chunks]
        what = f"gradients through a chain of calls {tuple(chunks)} (batch {batch}, hidden {hidden}, float64)"
        out = _call(
            student,
            what,
            RUN_GRADIENTS,
            state=state,
            hidden_size=hidden,
            x=x,
            chunks=chunks,
            weights=weights,
        )
        leaves = {name: value.clone().requires_grad_(True) for name, value in state.items()}
        xs = x.clone().requires_grad_(True)
        full, _ = dot_attention(leaves, xs, xs, xs, causal=True)
        total, past = 0, 0
        for new, weight in zip(chunks, weights):
            total = total + (full[:, past : past + new] * weight).sum()
            past += new
        grads = torch.autograd.grad(total, [xs] + [leaves[name] for name in PARAMETERS])
        wrong = _differences(out.get("contexts"), full.detach(), chunks)
        expect(
            not wrong,
            f"{what}: before any gradient, {_describe(wrong[0], 'the context of call') if wrong else ''} against the "
            f"full causal attention",
        )
        parameters = out.get("parameters")
        expect(isinstance(parameters, dict), f"{what}: the grader could not read the layer's gradients")
        for name, expected in zip(PARAMETERS, grads[1:]):
            expect(
                parameters.get(name) is not None,
                f"{what}: no gradient reached {name}; keep the projections and the cache in the graph (no detach, "
                f"no torch.no_grad)",
            )
            expect_close(
                parameters[name],
                expected,
                f"{what}: the gradient of {name}, against the full computation's (the cached keys and values of "
                f"earlier calls must stay in the graph)",
                atol=GRAD_ATOL,
                rtol=0,
            )
        expect(out.get("x") is not None, f"{what}: no gradient reached the inputs x")
        expect_close(
            out["x"],
            grads[0],
            f"{what}: the gradient of the inputs x, against the full computation's (the cached keys and values of "
            f"earlier calls must stay in the graph)",
            atol=GRAD_ATOL,
            rtol=0,
        )


RUN_DTYPE = """
attention = CausalScaledDotAttention(hidden_size)
load = load_grader_state(attention, state)
attention = attention.to(getattr(torch, dtype))
x = x.to(getattr(torch, dtype))
contexts, cache_dtypes, cache, past = [], [], None, 0
with torch.no_grad():
    for new in chunks:
        context, cache = cached_causal_attention(attention, x[:, past:past + new], cache)
        past += new
        contexts.append(context)
        pair = isinstance(cache, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in cache)
        cache_dtypes.append([str(t.dtype) for t in cache] if pair else None)
result = {"contexts": contexts, "cache_dtypes": cache_dtypes, "load": load}
"""

# float64 against the float64 oracle: entries below 10 and fewer than 50 rounded terms per output, so the cached
# and the full computations differ by less than 50 x 10 x 1.1e-16 = 5.5e-14; 1e-12 is twenty times that, and a
# computation that passes through float32 anywhere is off by about 1e-7.
F64_ATOL = 1e-12

# bfloat16 keeps 8 significant bits, so each rounding moves a value by at most u = 2^-8 of it. The oracle runs in
# float64 on the same bfloat16-rounded weights and inputs; PyTorch's CPU kernels accumulate bfloat16 products and
# sums in float32 and round each stored result once. A score q.k / sqrt(H) then carries the roundings of q and of k
# (2u of each product) and of the product and the scaling (2u of the result): at most 4u S, where S is the largest
# sum of |q_h k_h| / sqrt(H). Moving every score by at most d moves each softmax weight by a factor within
# exp(+-2d), and the softmax's own output rounding adds u, so the weights move by at most (2d + u) in total
# (d small); with the values' rounding and the context's own (u each), the context is off by at most
# (8 S + 3) u max|v|. Two valid orders of the same operations (query scaled before the product) differ by one
# rounding of an entry near 1, about 0.004; the bound is several times that at these sizes.
BF16_U = 2.0**-8


def _bfloat16_tolerance(state, x):
    q = F.linear(x, state["Wq.weight"], state["Wq.bias"])
    k = F.linear(x, state["Wk.weight"], state["Wk.bias"])
    v = F.linear(x, state["Wv.weight"], state["Wv.bias"])
    largest = (q.abs() @ k.abs().transpose(1, 2)).max().item() / math.sqrt(x.shape[-1])
    return (8 * largest + 3) * BF16_U * v.abs().max().item()


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "float64 layer and inputs: the cache and context stay float64 (a buffer made without dtype is float32)",
    mutant="kv_cache_buffer_default_dtype",
    kind="device",
)
@behaviour(
    "cached_causal_attention",
    "float64 and bfloat16: the softmax's weights in the values' dtype",
    mutant="kv_cache_softmax_float32",
    kind="device",
)
@behaviour(
    "cached_causal_attention",
    "bfloat16 layer and inputs: a mask made in float32 does not promote the scores",
    mutant="kv_cache_float32_additive_mask",
    kind="device",
)
def test_float64_and_bfloat16_layers_and_inputs(student):
    for seed, (dtype, batch, hidden, chunks) in enumerate(
        [("float64", 2, 5, [3, 1, 2]), ("bfloat16", 3, 4, [2, 1, 3]), ("bfloat16", 1, 6, [1, 1, 2])]
    ):
        g = torch.Generator().manual_seed(400 + seed)
        state = random_dot_state(hidden, g)
        x = seeded((batch, sum(chunks), hidden), g)
        what = f"a {dtype} layer and inputs (batch {batch}, hidden {hidden}, chunks of {chunks})"
        out = _call(student, what, RUN_DTYPE, state=state, hidden_size=hidden, x=x, chunks=chunks, dtype=dtype)
        torch_dtype = getattr(torch, dtype)
        rounded = {name: value.to(torch_dtype).double() for name, value in state.items()}
        xr = x.to(torch_dtype).double()
        full, _ = dot_attention(rounded, xr, xr, xr, causal=True)
        atol = F64_ATOL if dtype == "float64" else _bfloat16_tolerance(rounded, xr)
        contexts, cache_dtypes = out.get("contexts"), out.get("cache_dtypes")
        expect(
            isinstance(contexts, list) and isinstance(cache_dtypes, list) and len(contexts) == len(chunks),
            f"{what}: cached_causal_attention returned no context",
        )
        past = 0
        for call, (new, context, found) in enumerate(zip(chunks, contexts, cache_dtypes)):
            expect(
                isinstance(context, torch.Tensor) and context.dtype == torch_dtype,
                f"{what}: the context of call {call + 1} is not {dtype}; work in x_new's dtype, and make a mask or "
                f"buffer in it (or boolean), so that context and cache come back in it",
            )
            expect(
                found == [str(torch_dtype)] * 2,
                f"{what}: the cache returned by call {call + 1} is not a pair of {dtype} tensors; make a buffer "
                f"in x_new's dtype (torch.zeros without dtype is float32)",
            )
            expect_close(
                context,
                full[:, past : past + new],
                f"{what}: the context of call {call + 1} (positions {past}..{past + new - 1}), against the full "
                f"causal attention in float64 on the same weights and inputs",
                atol=atol,
                rtol=0,
            )
            past += new


RUN_DEVICE = """
attention = CausalScaledDotAttention(hidden_size)
load = load_grader_state(attention, state)
attention = attention.to(device)
x = x.to(device)
found, cache, past = [], None, 0
with torch.no_grad():
    for new in chunks:
        context, cache = cached_causal_attention(attention, x[:, past:past + new], cache)
        past += new
        found.append([[t.device.type, str(t.dtype), list(t.shape)] for t in (context, cache[0], cache[1])])
result = {"found": found, "load": load}
"""


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "a layer and inputs on another device (the meta device stands in for a GPU): the mask made on their device",
    mutant="kv_cache_mask_on_cpu",
    kind="device",
)
@behaviour(
    "cached_causal_attention",
    "another device: a buffer for the grown cache made on the inputs' device",
    mutant="kv_cache_buffer_default_dtype",
    kind="device",
)
def test_runs_on_the_device_of_its_inputs(student):
    # The meta device computes shapes, dtypes and devices but no values, and runs everywhere, so it stands in for
    # a GPU: anything made on the CPU meets the layer's tensors on another device, as it would on a GPU.
    g = torch.Generator().manual_seed(410)
    batch, hidden, chunks = 2, 5, [3, 1, 2]
    state = random_dot_state(hidden, g)
    x = seeded((batch, sum(chunks), hidden), g)
    what = f"a layer and inputs on the meta device (a stand-in for a GPU; chunks of {chunks})"
    out = _call(student, what, RUN_DEVICE, state=state, hidden_size=hidden, x=x, chunks=chunks, device="meta")
    found = out.get("found")
    expect(isinstance(found, list) and len(found) == len(chunks), f"{what}: cached_causal_attention returned nothing")
    past = 0
    for call, (new, tensors) in enumerate(zip(chunks, found)):
        past += new
        expected = [["meta", "torch.float32", [batch, n, hidden]] for n in (new, past, past)]
        for name, got, want in zip(("the context", "the cached keys", "the cached values"), tensors, expected):
            expect(
                got[:2] == want[:2],
                f"{what}: {name} of call {call + 1} is not a float32 tensor on the meta device; make every tensor "
                f"(mask, buffer) on x_new's device",
            )
            expect(
                got[2] == want[2],
                f"{what}: {name} of call {call + 1} should have shape {tuple(want[2])}; got {kernel_shape(got[2])}",
            )


RUN_PLAIN_AND_HUGE = """
attention = CausalScaledDotAttention(hidden_size)
load = load_grader_state(attention, state)
runs = []
with torch.no_grad():
    for x in xs:
        contexts, cache, past = [], None, 0
        for new in chunks:
            context, cache = cached_causal_attention(attention, x[:, past:past + new], cache)
            contexts.append(context)
            past += new
        runs.append(contexts)
result = {"runs": runs, "load": load}
"""


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "masked future keys with scores far above the visible ones: their weights are exactly 0 and the earlier "
    "positions' contexts unchanged (the mask goes on the scores, before the softmax)",
    mutant="kv_cache_mask_after_softmax_renormalised",
)
def test_masked_keys_with_huge_scores_have_no_influence(student):
    # Positions 4 and 5 get inputs +1000 d and -1000 d for one direction d, so every earlier query has a hidden
    # future key whose score is of the order of a thousand; the contexts of positions 0..3 must not change (the
    # masked keys' weights are exactly 0). Only those positions are compared: their keys are of the usual size, so
    # ATOL's argument holds for them. The same chain on inputs of the usual size everywhere runs first, so that a
    # mistake that does not need huge scores is named as such.
    for seed, chunks in enumerate([[2, 4], [6]]):
        g = torch.Generator().manual_seed(420 + seed)
        batch, hidden = 2, 5
        state = random_dot_state(hidden, g)
        plain = seeded((batch, 6, hidden), g)
        direction = seeded((hidden,), g)
        huge = plain.clone()
        huge[:, 4], huge[:, 5] = 1000 * direction, -1000 * direction
        what = f"chunks of {chunks}, inputs of size 1000 at positions 4 and 5"
        out = _call(student, what, RUN_PLAIN_AND_HUGE, state=state, hidden_size=hidden, xs=[plain, huge], chunks=chunks)
        runs = out.get("runs")
        expect(isinstance(runs, list) and len(runs) == 2, "cached_causal_attention returned no context")
        double = {name: value.double() for name, value in state.items()}
        full, _ = dot_attention(double, plain.double(), plain.double(), plain.double(), causal=True)
        wrong = _differences(runs[0], full, chunks)
        expect(
            not wrong,
            f"chunks of {chunks}, inputs of the usual size: "
            f"{_describe(wrong[0], 'the context of call') if wrong else ''} against the full causal attention",
        )
        full, _ = dot_attention(double, huge.double(), huge.double(), huge.double(), causal=True)
        expect(isinstance(runs[1], list) and len(runs[1]) == len(chunks), "cached_causal_attention returned no context")
        past = 0
        for call, (new, context) in enumerate(zip(chunks, runs[1])):
            shown = max(0, min(new, 4 - past))  # the positions before 4 in this call
            if shown:
                expect(
                    isinstance(context, torch.Tensor) and context.dim() == 3,
                    "the context should be (batch, new, hidden)",
                )
                expect_close(
                    context[:, :shown],
                    full[:, past : past + shown],
                    f"{what}: call {call + 1}, positions {past}..{past + shown - 1}, whose hidden future keys score "
                    f"far above the visible ones (the same calls with inputs of the usual size are right): masked "
                    f"keys must get weight exactly 0 however large their scores (mask the scores before the softmax)",
                    atol=ATOL,
                )
            past += new


@question("kv_cache_attention_tests")
@behaviour(
    "cached_causal_attention",
    "a query whose visible scores are all below -1e9: masked keys still get weight exactly 0 (-inf, not a large "
    "finite number)",
    mutant="kv_cache_finite_mask_value",
    kind="boundary",
)
@behaviour(
    "cached_causal_attention",
    "float32 scores in the hundreds: the softmax stays finite (exp of the scores minus their row maximum)",
    mutant="kv_cache_manual_softmax_overflow",
    kind="degenerate",
)
def test_extreme_scores_in_float32(student):
    # (a) Position 0 sees only its own key. Its input is 1e6 d for the direction d (of 64 drawn) whose query and
    # key point most against each other, so its one visible score is about -1e12 * c (c > 0.01 here), far below
    # any finite stand-in for -inf such as -1e9: with -inf the weight of its own key is exactly 1 and its context
    # is Wv x0 (about 1e6 in size, compared to relative 1e-4: float32 keeps 6e-8). A finite mask gives the
    # future keys the weight. (b) Inputs 20 times the usual size make scores of several hundred, above float32's
    # exp limit (88.7): a softmax that does not subtract the row maximum returns inf / inf = nan. float32
    # roundings of scores of size 1e3 (6e-5 each) move each weight by at most a quarter of that, so every
    # context is within 1e-3 of the float64 oracle relative to its largest entry.
    for seed, chunks in enumerate([[6], [2, 4]]):
        g = torch.Generator().manual_seed(470 + seed)
        batch, hidden = 2, 5
        state = random_dot_state(hidden, g)
        double = {name: value.double() for name, value in state.items()}
        candidates = torch.randn(64, hidden, generator=g, dtype=torch.float64)
        alignment = (candidates @ double["Wq.weight"].T * (candidates @ double["Wk.weight"].T)).sum(-1)
        direction = candidates[alignment.argmin()] / candidates[alignment.argmin()].norm()
        x = seeded((batch, 6, hidden), g)
        x[:, 0] = (1e6 * direction).float()
        what = f"batch {batch}, hidden {hidden}, chunks of {chunks}, position 0's only visible score about -1e12"
        out = _call(student, what, RUN_CHUNKS, state=state, hidden_size=hidden, x=x, chunks=chunks)
        contexts = out.get("contexts")
        expect(
            isinstance(contexts, list) and len(contexts) == len(chunks), "cached_causal_attention returned no context"
        )
        full, _ = dot_attention(double, x.double(), x.double(), x.double(), causal=True)
        expect(
            isinstance(contexts[0], torch.Tensor) and contexts[0].dim() == 3,
            "the context should be (batch, new, hidden)",
        )
        expect_close(
            contexts[0][:, :1],
            full[:, :1],
            f"{what}: the context of position 0, whose one visible key scores far below -1e9: masked keys must get "
            f"weight exactly 0 (mask with -inf, not a large finite number)",
            rtol=1e-4,
            atol=1e-3,
        )
        loud = 20 * seeded((batch, 6, hidden), g)
        what = f"batch {batch}, hidden {hidden}, chunks of {chunks}, inputs 20 times the usual size (scores in the hundreds)"
        out = _call(student, what, RUN_CHUNKS, state=state, hidden_size=hidden, x=loud, chunks=chunks)
        contexts = out.get("contexts")
        expect(
            isinstance(contexts, list) and len(contexts) == len(chunks), "cached_causal_attention returned no context"
        )
        full, _ = dot_attention(double, loud.double(), loud.double(), loud.double(), causal=True)
        past = 0
        for call, (new, context) in enumerate(zip(chunks, contexts)):
            expect_close(
                context,
                full[:, past : past + new],
                f"{what}: the context of call {call + 1}: the softmax must stay finite for large scores (subtract "
                f"each row's maximum, as torch.softmax does)",
                rtol=0,
                atol=1e-3 * float(full.abs().max()),
            )
            past += new


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope[, the kind it answers for]).
OUT_OF_SCOPE = [
    (
        "cached_causal_attention",
        "the cache updated in place (a preallocated buffer) or rebuilt; no mask for a single position",
        "Both are allowed in the skeleton's words (only the returned cache is passed on); variants "
        "kv_cache_preallocated_buffer and kv_cache_growing_buffer keep full marks.",
    ),
    (
        "cached_causal_attention",
        "a restart from a cache already passed to a call, or from a slice of a returned cache",
        "The skeleton lets a call update the cache it is given in place, so a caller restarts only from a copy it kept "
        "(tested); a growing buffer that writes after a view's end is caught by the gradient test instead.",
    ),
    (
        "cached_causal_attention",
        "randomness",
        "Nothing is random: the layer has no dropout and nothing is sampled.",
        "randomness",
    ),
    (
        "cached_causal_attention",
        "argument checks and their order",
        "The skeleton states no argument checks and no special case beyond cache None, which every test exercises.",
        "validation-order",
    ),
    (
        "cached_causal_attention",
        "ties",
        "Nothing is sorted or ranked; equal scores share their weight through the softmax's arithmetic.",
        "ties",
    ),
    (
        "cached_causal_attention",
        "non-integer hyper-parameters",
        "It takes no hyper-parameter; the scale 1/sqrt(hidden_size) is not a whole number at the hidden sizes 5, 6 "
        "and 7 that the value tests use.",
        "non-integer",
    ),
    (
        "cached_causal_attention",
        "optimisation steps",
        "It takes no optimisation step; its gradients are compared in float64 with a tolerance derived from rounding.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "cached_causal_attention",
        "attention",
        "CausalScaledDotAttention (the notebook's own, a stand-in) of hidden size 4, 5, 6, 7 with the grader's "
        "weights, in training and evaluation mode, float32, float64, bfloat16, on the CPU and the meta device; one "
        "layer for two sequences in turn, two layers in a stack",
        None,
    ),
    (
        "cached_causal_attention",
        "x_new",
        "(batch, new, hidden) with batch 1, 2, 3 and new 1, 2, 3, 4, 6; float32, float64, bfloat16; inputs of size "
        "1000 at masked positions; requiring gradients",
        None,
    ),
    (
        "cached_causal_attention",
        "cache",
        "None, the pair returned by the previous call after 1 to 9 positions, a copy (clone) of an earlier cache",
        None,
    ),
]
