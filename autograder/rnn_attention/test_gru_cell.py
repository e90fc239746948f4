"""MyGRUCell against torch.nn.GRUCell with copied weights, on several random shapes: values, then the
gradients a backward pass sends to the inputs and to every weight."""

import torch
from torch import nn

from assignments.grading.testkit import behaviour, expect, expect_close, kernel_value, question
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import seeded
from autograder.rnn_attention.oracles import gru_cell_state

SHAPES = [(1, 3, 2), (4, 7, 5), (9, 2, 11)]  # (batch, input_size, hidden_size), all different

RUN_CELL = (
    LOAD_STATE
    + """
cell = MyGRUCell(input_size, hidden_size)
load = load_grader_state(cell, state)
x_before, h_before = x.clone(), h.clone()
h_new = cell(x, h)
result = {"h_new": h_new, "inputs_unchanged": bool(torch.equal(x, x_before) and torch.equal(h, h_before)),
          "load": load}
"""
)


@question("gru_cell_tests")
@behaviour(
    "MyGRUCell",
    "the six layers, each an nn.Linear with a bias, under the skeleton's names",
    mutant="gru_no_hidden_bias",
)
def test_gru_cell_has_the_six_linear_layers(student):
    out = student.run(
        "cell = MyGRUCell(7, 5)\n"
        "result = {name: [list(getattr(cell, name).weight.shape), getattr(cell, name).bias is not None]\n"
        "          for name in ['Wir', 'Wiz', 'Win', 'Whr', 'Whz', 'Whn']}"
    )
    for name in ("Wir", "Wiz", "Win", "Whr", "Whz", "Whn"):
        shape, has_bias = out[name]
        wanted = [5, 7] if name.startswith("Wi") else [5, 5]
        expect(
            shape == wanted,
            f"MyGRUCell(7, 5).{name}.weight should have shape {tuple(wanted)} "
            f"(an nn.Linear from {wanted[1]} to {wanted[0]}); got {kernel_value(shape)}",
        )
        expect(has_bias, f"{name} should have a bias")


@question("gru_cell_tests")
@behaviour(
    "MyGRUCell", "forward values against nn.GRUCell (gates, candidate, blend)", mutant="gru_sigmoid_tanh_swapped"
)
@behaviour("MyGRUCell", "inputs x and h_prev left unchanged", mutant="gru_cell_updates_h_in_place")
@behaviour(
    "MyGRUCell",
    "a batch of one (the first shape): h_new keeps its batch axis",
    mutant="gru_cell_output_squeezed",
    kind="batch-of-one",
)
def test_gru_cell_matches_nn_grucell_on_random_shapes(student):
    for index, (batch, input_size, hidden_size) in enumerate(SHAPES):
        g = torch.Generator().manual_seed(100 + index)
        oracle = nn.GRUCell(input_size, hidden_size)
        with torch.no_grad():
            for parameter in oracle.parameters():
                parameter.copy_(seeded(parameter.shape, g, 0.6))
        x, h = seeded((batch, input_size), g), seeded((batch, hidden_size), g)
        with torch.no_grad():
            expected = oracle(x, h)
        state = gru_cell_state(oracle.weight_ih, oracle.weight_hh, oracle.bias_ih, oracle.bias_hh)
        out = student.run(RUN_CELL, input_size=input_size, hidden_size=hidden_size, state=state, x=x, h=h)
        expect_loaded(out["load"], state, "MyGRUCell")
        what = f"h_new for batch {batch}, input_size {input_size}, hidden_size {hidden_size}"
        expect_close(out["h_new"], expected, what, rtol=1e-4, atol=1e-5)
        expect(out["inputs_unchanged"], "forward must not modify x or h_prev in place")


RUN_BACKWARD = (
    LOAD_STATE
    + """
cell = MyGRUCell(input_size, hidden_size)
load = load_grader_state(cell, state)
x, h = x.clone().requires_grad_(True), h.clone().requires_grad_(True)
(cell(x, h) * upstream).sum().backward()
result = {"x": x.grad, "h": h.grad, "load": load,
          "weights": {name: p.grad for name, p in cell.named_parameters() if p.grad is not None}}
"""
)


@question("gru_cell_tests")
@behaviour(
    "MyGRUCell",
    "gradient flow: nothing detached, every weight and both inputs get nn.GRUCell's gradient",
    mutant="gru_cell_detached_state",
)
@behaviour(
    "MyGRUCell", "gradient flow: no in-place change to a tensor autograd saved", mutant="gru_cell_in_place_blend"
)
def test_gru_cell_gradients_match_nn_grucell(student):
    # Backpropagation through one step, with a random upstream gradient: what reaches x, h_prev and each of
    # the six layers must equal what nn.GRUCell sends back from the same weights. A detached state or an
    # in-place change to a tensor autograd saved shows here even when the forward values are right.
    batch, input_size, hidden_size = 4, 6, 5
    g = torch.Generator().manual_seed(120)
    oracle = nn.GRUCell(input_size, hidden_size)
    with torch.no_grad():
        for parameter in oracle.parameters():
            parameter.copy_(seeded(parameter.shape, g, 0.6))
    x, h, upstream = seeded((batch, input_size), g), seeded((batch, hidden_size), g), seeded((batch, hidden_size), g)
    state = gru_cell_state(oracle.weight_ih, oracle.weight_hh, oracle.bias_ih, oracle.bias_hh)
    x_leaf, h_leaf = x.clone().requires_grad_(True), h.clone().requires_grad_(True)
    (oracle(x_leaf, h_leaf) * upstream).sum().backward()
    expected = gru_cell_state(oracle.weight_ih.grad, oracle.weight_hh.grad, oracle.bias_ih.grad, oracle.bias_hh.grad)
    out = student.run(
        RUN_BACKWARD, input_size=input_size, hidden_size=hidden_size, state=state, x=x, h=h, upstream=upstream
    )
    expect_loaded(out["load"], state, "MyGRUCell")
    for name in ("x", "h_prev"):
        expect(
            out[name[0]] is not None,
            f"no gradient reached {name}: the output must stay connected to it (no detach, no torch.no_grad)",
        )
    expect_close(out["x"], x_leaf.grad, "the gradient reaching x", rtol=1e-4, atol=1e-5)
    expect_close(
        out["h"], h_leaf.grad, "the gradient reaching h_prev (do not detach the previous state)", rtol=1e-4, atol=1e-5
    )
    weights = out["weights"]
    missing = sorted(name for name in expected if name not in weights)
    expect(
        not missing, f"{len(missing)} of the 12 weights and biases got no gradient; every layer must stay in the graph"
    )
    for name, grad in expected.items():
        expect_close(weights[name], grad, f"the gradient of {name}", rtol=1e-4, atol=1e-5)


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "MyGRUCell",
        "train vs eval mode, randomness",
        "The cell has no dropout and samples nothing, so both modes compute the same function.",
    ),
    (
        "MyGRUCell",
        "dtype and device",
        "The notebook runs the character models on the CPU in float32, and the skeleton promises nothing else.",
    ),
    (
        "MyGRUCell",
        "randomness",
        "It draws no random number: its layers' initial values are replaced by the grader's weights.",
        "randomness",
    ),
    ("MyGRUCell", "validation order", "It checks no argument and has no special case.", "validation-order"),
    (
        "MyGRUCell",
        "exact boundaries",
        "No threshold: sigmoid and tanh are smooth and compared with nothing.",
        "boundary",
    ),
    ("MyGRUCell", "a sort's ties", "MyGRUCell sorts and ranks nothing.", "ties"),
    (
        "MyGRUCell",
        "degenerate values",
        "No input value is special: every finite x and h_prev gives a finite state, and zeros (the encoder's first state) pass through the same formula.",
        "degenerate",
    ),
    (
        "MyGRUCell",
        "state across calls",
        "The state is an argument and a return value; the encoder's test runs one cell over many steps and calls.",
        "state",
    ),
    (
        "MyGRUCell",
        "device of what it makes",
        "It makes no tensor of its own: every value comes from its layers and its two inputs.",
        "device",
    ),
    (
        "MyGRUCell",
        "hyper-parameters that are not whole numbers",
        "Its only hyper-parameters are two layer sizes.",
        "non-integer",
    ),
    (
        "MyGRUCell",
        "optimisation steps",
        "It takes no optimisation step; its gradients are compared one by one.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("MyGRUCell", "input_size", "2, 3, 6, 7", None),
    ("MyGRUCell", "hidden_size", "2, 5, 11", None),
    ("MyGRUCell", "x", "(batch, input_size) with batch 1, 4, 9", None),
    ("MyGRUCell", "h_prev", "(batch, hidden_size) with batch 1, 4, 9", None),
]
