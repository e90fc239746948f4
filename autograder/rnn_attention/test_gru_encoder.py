"""GRUEncoder: shapes, and equality with nn.Embedding + nn.GRU given the same weights (correct cell swapped in)."""

import torch
from torch import nn

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, expect_tensor, question
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import seeded
from autograder.rnn_attention.oracles import gru_cell_state

RUN_ENCODER = (
    LOAD_STATE
    + """
encoder = GRUEncoder(vocab_size, hidden_size)
load = None if state is None else load_grader_state(encoder, state)
annotations, hidden = encoder(ids)
result = {"annotations": annotations, "hidden": hidden, "load": load}
"""
)


BACKWARD = (
    LOAD_STATE
    + """
encoder = GRUEncoder(vocab_size, hidden_size)
load = load_grader_state(encoder, state)
_, hidden = encoder(ids)
(hidden * upstream).sum().backward()
result = {"grad": encoder.embedding.weight.grad, "load": load}
"""
)


@question("gru_encoder_tests")
@behaviour(
    "GRUEncoder", "batch-first shapes, hidden equal to the last annotation", mutant="encoder_returns_first_state"
)
def test_encoder_returns_all_states_and_the_last(student):
    ids = torch.randint(0, 13, (3, 7), generator=torch.Generator().manual_seed(21))  # batch 3, seq 7
    out = student.run(RUN_ENCODER, stand_ins=("MyGRUCell",), vocab_size=13, hidden_size=6, ids=ids, state=None)
    annotations = expect_shape(out["annotations"], (3, 7, 6), "annotations (batch, seq, hidden)")
    hidden = expect_shape(out["hidden"], (3, 6), "hidden (batch, hidden)")
    expect(
        torch.allclose(hidden, annotations[:, -1], atol=1e-6),
        "hidden should be the state after the last character, i.e. annotations[:, -1]",
    )
    expect(
        not torch.allclose(annotations[:, 0], annotations[:, -1], atol=1e-4),
        "all annotations are equal: each position should hold the state after that character",
    )


@question("gru_encoder_tests")
@behaviour(
    "GRUEncoder", "annotations and last state against nn.GRU with the same weights", mutant="encoder_reads_backwards"
)
@behaviour(
    "GRUEncoder",
    "backpropagation through time: a loss on the last state reaches every character's embedding",
    mutant="encoder_truncated_bptt",
)
@behaviour(
    "GRUEncoder",
    "a batch of one (one word of one character): hidden keeps its batch axis",
    mutant="encoder_hidden_squeezed",
    kind="batch-of-one",
)
def test_encoder_matches_nn_gru(student):
    # (seed, vocab, hidden, batch, seq): the first is the edge of one word of one character; the last
    # sizes also serve the backpropagation check below
    for seed, vocab, hidden_size, batch, seq in [(29, 5, 4, 1, 1), (30, 13, 6, 3, 7), (31, 8, 10, 2, 4)]:
        g = torch.Generator().manual_seed(seed)
        embedding = nn.Embedding(vocab, hidden_size)
        gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        with torch.no_grad():
            for parameter in [*embedding.parameters(), *gru.parameters()]:
                parameter.copy_(seeded(parameter.shape, g, 0.5))
            ids = torch.randint(0, vocab, (batch, seq), generator=g)
            expected, h_n = gru(embedding(ids))
        state = {
            "embedding.weight": embedding.weight.detach().clone(),
            **gru_cell_state(gru.weight_ih_l0, gru.weight_hh_l0, gru.bias_ih_l0, gru.bias_hh_l0, "gru."),
        }
        out = student.run(
            RUN_ENCODER, stand_ins=("MyGRUCell",), vocab_size=vocab, hidden_size=hidden_size, ids=ids, state=state
        )
        shape = f"vocab {vocab}, hidden {hidden_size}, batch {batch}, seq {seq}"
        expect_loaded(out["load"], state, "GRUEncoder")
        expect_close(out["annotations"], expected, f"annotations ({shape}) compared with nn.GRU", atol=1e-5)
        expect_close(out["hidden"], h_n[0], f"hidden ({shape}) compared with nn.GRU's last state", atol=1e-5)
    # Backpropagation through time: a loss on the LAST state only must send gradient to the embeddings of
    # every character, through all the steps, exactly as nn.GRU does (a state detached between steps cuts
    # it off after one step). The characters are all different, so each embedding row shows one position.
    embedding.zero_grad()
    gru.zero_grad()
    ids = torch.randperm(vocab, generator=g)[:seq].unsqueeze(0)  # batch 1, no repeats
    upstream = seeded((1, hidden_size), g)
    (gru(embedding(ids))[1][0] * upstream).sum().backward()
    out = student.run(
        BACKWARD,
        stand_ins=("MyGRUCell",),
        vocab_size=vocab,
        hidden_size=hidden_size,
        ids=ids,
        state=state,
        upstream=upstream,
    )
    expect_loaded(out["load"], state, "GRUEncoder")
    expect_close(
        out["grad"],
        embedding.weight.grad,
        f"the gradient of the embedding table from a loss on the last "
        f"state ({seq} characters): it must reach every character through all the steps, so do not "
        f"detach the state between steps",
        rtol=1e-4,
        atol=1e-6,
    )


def _oracle(seed, vocab, hidden_size):
    """The grader's weights for an embedding and a GRU, and nn.Embedding + nn.GRU holding them."""
    g = torch.Generator().manual_seed(seed)
    embedding = nn.Embedding(vocab, hidden_size)
    gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
    with torch.no_grad():
        for parameter in [*embedding.parameters(), *gru.parameters()]:
            parameter.copy_(seeded(parameter.shape, g, 0.5))
    state = {
        "embedding.weight": embedding.weight.detach().clone(),
        **gru_cell_state(gru.weight_ih_l0, gru.weight_hh_l0, gru.bias_ih_l0, gru.bias_hh_l0, "gru."),
    }
    return state, embedding, gru, g


RUN_THREE_CALLS = (
    LOAD_STATE
    + """
def fresh():
    module = GRUEncoder(vocab_size, hidden_size)
    return module, load_grader_state(module, state)

encoder, load = fresh()
alone = [list(fresh()[0](ids)) for ids in batches]
result = {"load": load, "alone": alone, "in_turn": [list(encoder(ids)) for ids in batches]}
"""
)


@question("gru_encoder_tests")
@behaviour(
    "GRUEncoder",
    "state across calls: every call starts from zeros, whatever the module ran before",
    mutant="encoder_state_kept_between_calls",
    kind="state",
)
def test_encoder_starts_every_call_from_zeros(student):
    # One encoder, three calls of the same batch size: words A, then words B, then A again. Each call must
    # give what a fresh encoder with the same weights gives for that batch alone (a wrong recurrence costs
    # points in the other tests only), so nothing may carry over from the call before.
    vocab, hidden_size = 9, 5
    state, _, _, g = _oracle(33, vocab, hidden_size)
    first, second = (torch.randint(0, vocab, (2, 4), generator=g) for _ in range(2))
    out = student.run(
        RUN_THREE_CALLS,
        stand_ins=("MyGRUCell",),
        vocab_size=vocab,
        hidden_size=hidden_size,
        state=state,
        batches=[first, second, first],
    )
    expect_loaded(out["load"], state, "GRUEncoder")
    for call, (alone, in_turn) in enumerate(zip(out["alone"], out["in_turn"]), start=1):
        for index, name in enumerate(("annotations", "hidden")):
            expected = expect_tensor(alone[index], f"{name} of a fresh encoder")
            expect_close(
                in_turn[index],
                expected.float(),
                f"{name} on call {call} of 3 on one encoder, compared with a fresh encoder given that batch "
                f"alone: every call must start again from a zero state, keeping nothing from the call before",
                atol=1e-6,
            )


RUN_ELSEWHERE = """
result = []
for device, dtype in cases:
    try:
        encoder = GRUEncoder(vocab_size, hidden_size).to(device=device, dtype=getattr(torch, dtype))
        annotations, hidden = encoder(ids.to(device))
        result.append([str(annotations.device), str(annotations.dtype), str(hidden.device), str(hidden.dtype)])
    except Exception:
        result.append(None)
"""


@question("gru_encoder_tests")
@behaviour(
    "GRUEncoder",
    "device and dtype: the first state, and so every state, follows the embeddings (float64; the meta device)",
    mutant="encoder_initial_state_default_tensor",
    kind="device",
)
def test_encoder_follows_the_device_and_dtype_of_its_weights(student):
    # PyTorch's 'meta' device stands in for a GPU (grading hides GPUs): its tensors have shapes but no data,
    # and mixing them with CPU tensors fails as mixing CUDA and CPU tensors does. The reference runs there
    # unchanged; a first state made with torch.zeros(batch, hidden) lands on the CPU in float32 and fails
    # both on the meta device and, against float64 layers, on the CPU.
    ids = torch.randint(0, 7, (2, 3), generator=torch.Generator().manual_seed(37))
    cases = [["meta", "float32"], ["cpu", "float64"]]
    outs = student.run(RUN_ELSEWHERE, stand_ins=("MyGRUCell",), vocab_size=7, hidden_size=4, ids=ids, cases=cases)
    expect(isinstance(outs, list) and len(outs) == len(cases), "the grader could not read what GRUEncoder returned")
    for (device, dtype), out in zip(cases, outs):
        expect(
            out == [device, f"torch.{dtype}"] * 2,
            f"GRUEncoder moved to the '{device}' device (a stand-in for a GPU) in {dtype} "
            + ("raised an error" if out is None else "returned states on another device or dtype")
            + ": make the first state on the embeddings' device and dtype, e.g. embedded.new_zeros(batch, "
            "hidden_size), not torch.zeros(batch, hidden_size)",
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "GRUEncoder",
        "train vs eval mode, randomness",
        "No dropout and nothing sampled: the encoder is deterministic in both modes.",
    ),
    (
        "GRUEncoder",
        "mutation of inputs",
        "It only indexes an integer id tensor with its embedding table.",
    ),
    (
        "GRUEncoder",
        "randomness",
        "It draws no random number: its layers' initial values are replaced by the grader's weights.",
        "randomness",
    ),
    ("GRUEncoder", "validation order", "It checks no argument and has no special case.", "validation-order"),
    ("GRUEncoder", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("GRUEncoder", "a sort's ties", "GRUEncoder sorts and ranks nothing.", "ties"),
    (
        "GRUEncoder",
        "degenerate values",
        "Its one degenerate input, a sequence of one character, is among the tested sizes, and the loop has no special case there; the skeleton rules out padding and empty sequences.",
        "degenerate",
    ),
    (
        "GRUEncoder",
        "hyper-parameters that are not whole numbers",
        "Its only hyper-parameters are two sizes.",
        "non-integer",
    ),
    (
        "GRUEncoder",
        "optimisation steps",
        "It takes no optimisation step; its gradient is compared with nn.GRU's.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("GRUEncoder", "vocab_size", "5, 7, 8, 9, 13", None),
    ("GRUEncoder", "hidden_size", "4, 5, 6, 10", None),
    (
        "GRUEncoder",
        "inputs",
        "(batch, seq) with batch 1, 2, 3 and seq 1, 3, 4, 7; on the CPU and the meta device",
        None,
    ),
]
