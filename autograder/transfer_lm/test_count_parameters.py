"""count_parameters_tests: only parameters with requires_grad count; buffers never do."""

from assignments.grading.testkit import behaviour, expect, kernel_value, question
from autograder.transfer_lm.oracles import reference_model


@question("count_parameters_tests")
@behaviour("count_trainable_parameters", "frozen parameters not counted", mutant="count_frozen_parameters")
def test_frozen_parameters_not_counted(student):
    # Linear(6, 4) frozen, Embedding(9, 4) trainable, Linear(4, 3) with only its bias frozen:
    # 36 + 12 = 48 trainable of 28 + 36 + 15 = 79.
    out = student.run(
        "net = nn.ModuleDict({'a': nn.Linear(6, 4), 'b': nn.Embedding(9, 4), 'c': nn.Linear(4, 3)})\n"
        "net['a'].requires_grad_(False)\n"
        "net['c'].bias.requires_grad_(False)\n"
        "result = count_trainable_parameters(net)"
    )
    expect(isinstance(out, int) and not isinstance(out, bool), f"the count should be an int; got {type(out).__name__}")
    expect(out == 48, f"a module with 79 parameters of which 31 are frozen should count 48; got {kernel_value(out)}")


@question("count_parameters_tests")
@behaviour("count_trainable_parameters", "buffers not counted", mutant="count_state_dict")
def test_buffers_not_counted_and_frozen_base(student):
    ref = reference_model(53, 2, 10, 2, 4)
    total = sum(p.numel() for p in ref.parameters())
    head = sum(p.numel() for p in ref.head.parameters())
    out = student.run(
        "model = Model(53, 2, 10, 2, 4)\n"
        "whole = count_trainable_parameters(model)\n"
        "model.base.requires_grad_(False)\n"
        "frozen = count_trainable_parameters(model)\n"
        "norm = nn.BatchNorm1d(6)\n"
        "result = {'whole': whole, 'frozen': frozen, 'norm': count_trainable_parameters(norm)}",
        stand_ins=("PositionalEncoding", "Model"),
    )
    expect(
        out["norm"] == 12, f"BatchNorm1d(6) has 12 trainable parameters and 3 buffers; got {kernel_value(out['norm'])}"
    )
    expect(
        out["whole"] == total,
        f"Model(53, 2, 10, 2, 4) has {total} trainable parameters (its positional "
        f"table is a buffer and does not count); got {kernel_value(out['whole'])}",
    )
    expect(
        out["frozen"] == head,
        f"with the base frozen only the head's {head} parameters are trainable; got {kernel_value(out['frozen'])}",
    )


# Behaviours of this definition that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope, the kind it answers for).
OUT_OF_SCOPE = [
    ("count_trainable_parameters", "randomness", "It draws no random number.", "randomness"),
    (
        "count_trainable_parameters",
        "validation order",
        "It checks no argument and has no special case: every parameter goes through the same requires_grad filter.",
        "validation-order",
    ),
    (
        "count_trainable_parameters",
        "exact boundaries",
        "It compares nothing with a threshold: requires_grad is a flag.",
        "boundary",
    ),
    ("count_trainable_parameters", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "count_trainable_parameters",
        "degenerate values",
        "No value is special to it: a module with nothing trainable sums to 0 through the same filter, and the tests already freeze whole parts of a model and count one that also holds buffers.",
        "degenerate",
    ),
    (
        "count_trainable_parameters",
        "state across calls",
        "It only reads the parameters' requires_grad flags and keeps nothing; the same model is counted before and after freezing its base.",
        "state",
    ),
    (
        "count_trainable_parameters",
        "device of what it makes",
        "It returns an int and makes no tensor.",
        "device",
    ),
    (
        "count_trainable_parameters",
        "hyper-parameters that are not whole numbers",
        "It takes no hyper-parameter, only a module.",
        "non-integer",
    ),
    ("count_trainable_parameters", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    ("count_trainable_parameters", "a batch of one", "It takes no batch, only a module.", "batch-of-one"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "count_trainable_parameters",
        "model",
        "a ModuleDict with frozen parts, Model(53, 2, 10, 2, 4), the same with its base frozen, BatchNorm1d(6)",
        None,
    ),
]
