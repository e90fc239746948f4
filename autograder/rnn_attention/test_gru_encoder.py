"""GRUEncoder: shapes, and equality with nn.Embedding + nn.GRU given the same weights (correct cell swapped in)."""

import torch
from torch import nn

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, question
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
        "mutation of inputs, dtype and device",
        "It only indexes an integer id tensor, and the character models run on the CPU in float32.",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("GRUEncoder", "vocab_size", "5, 8, 13", None),
    ("GRUEncoder", "hidden_size", "4, 6, 10", None),
    ("GRUEncoder", "inputs", "(batch, seq) with batch 1, 2, 3 and seq 1, 4, 7", None),
]
