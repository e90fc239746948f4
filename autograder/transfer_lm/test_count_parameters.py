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
