"""BertForSentenceClassification on two tiny BertConfigs: output format for any batch size (one
included), logits on pooler_output against transformers' BertModel with the same weights (every keyword
argument passed on, dropout off in evaluation mode), cross-entropy loss, and gradient flow."""

import torch
import torch.nn.functional as F

from assignments.grading.testkit import (
    GradingFailure,
    behaviour,
    expect,
    expect_close,
    expect_shape,
    expect_tensor,
    kernel_shape,
    kernel_value,
    question,
)
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import OTHER_BERT, TINY_BERT, sentence_pairs, tiny_bert_batch, tiny_bert_state
from autograder.rnn_attention.oracles import classifier_after_sgd_step

BUILD = (
    LOAD_STATE
    + """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config))
load = load_grader_state(model, state)
model.eval()
inputs = {"input_ids": ids, "attention_mask": mask}
if token_type_ids is not None:
    inputs["token_type_ids"] = token_type_ids
"""
)

RUN_BOTH = (
    BUILD
    + """
without = model(**inputs)
with_labels = model(**inputs, labels=labels)
result = {"without_is_tuple": isinstance(without, tuple), "without_len": len(without),
          "with_is_tuple": isinstance(with_labels, tuple), "with_len": len(with_labels),
          "logits": without[0], "logits_with_labels": with_labels[0],
          "loss": with_labels[1] if len(with_labels) > 1 else None, "load": load}
"""
)

# Gradient flow is checked by behaviour: one SGD step over every parameter on the loss forward returns,
# then only the logits come back (compared with the same step taken here on the grader's weights). The
# step runs in training mode on TINY_BERT, whose dropout is 0: with dropout on, the result would depend on
# which random numbers BertModel's dropout layers draw, and in which order.
GRADIENTS = (
    BUILD
    + """
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
logits, loss = model(**inputs, labels=labels)
loss.backward()
optimizer.step()
model.eval()
with torch.no_grad():
    result = {"logits": model(**inputs)[0], "load": load}
"""
)


def _case(config, batch, seq, pairs, seed):
    """The grader's weights, its oracle, and one batch (sentence pairs when ``pairs``) for ``config``."""
    state, oracle = tiny_bert_state(config=config)
    ids, mask, labels = tiny_bert_batch(seed=seed, batch=batch, seq=seq, config=config)
    return (
        state,
        oracle,
        dict(ids=ids, mask=mask, labels=labels, token_type_ids=sentence_pairs(mask) if pairs else None),
    )


def _describe(config, batch, pairs):
    text = f"hidden {config['hidden_size']}, {config['num_labels']} labels, batch {batch}"
    if config["hidden_dropout_prob"]:
        text += f", dropout {config['hidden_dropout_prob']:g} in evaluation mode"
    return text + (", sentence pairs" if pairs else "")


def _run(student, config, state, batch, code=RUN_BOTH):
    out = student.run(code, config=config, state=state, **batch)
    expect(isinstance(out, dict), "the grader could not read what BertForSentenceClassification returned")
    expect_loaded(out["load"], state, "BertForSentenceClassification")
    return out


@question("bert_classifier_tests")
@behaviour(
    "BertForSentenceClassification",
    "(logits,) without labels, (logits, loss) with them",
    mutant="bert_loss_without_labels",
)
@behaviour(
    "BertForSentenceClassification",
    "the classifier sized from config.hidden_size and config.num_labels (two configurations)",
    mutant="bert_head_sized_for_three_labels",
)
@behaviour(
    "BertForSentenceClassification",
    "logits keep the batch axis for a batch of one",
    mutant="bert_logits_squeezed",
    kind="batch-of-one",
)
def test_returns_logits_tuple_and_loss_only_with_labels(student):
    # The second case is a batch of one: logits stay (1, num_labels), with the batch axis kept.
    for config, batch, seq, pairs in ((TINY_BERT, 4, 7, False), (OTHER_BERT, 1, 5, True)):
        state, _, inputs = _case(config, batch, seq, pairs, seed=5)
        out = _run(student, config, state, inputs)
        expect(
            out["without_is_tuple"] and out["without_len"] == 1,
            f"without labels forward must return a 1-tuple (logits,); got {kernel_value(out['without_len'])} item(s)",
        )
        expect(
            out["with_is_tuple"] and out["with_len"] == 2,
            f"with labels forward must return a 2-tuple (logits, loss); got {kernel_value(out['with_len'])} item(s)",
        )
        logits = expect_tensor(out["logits"], "logits")
        expect(
            tuple(logits.shape) == (batch, config["num_labels"]),
            f"logits for {_describe(config, batch, pairs)} should have shape (batch, num_labels) = "
            f"{(batch, config['num_labels'])}; got {kernel_shape(logits)}: keep the batch axis even for one sentence "
            f"(no squeeze), and size the classifier from config.num_labels",
        )
        loss = out["loss"]
        expect(
            isinstance(loss, torch.Tensor) and loss.dim() == 0, "the loss should be a scalar tensor (the batch mean)"
        )


@question("bert_classifier_tests")
@behaviour(
    "BertForSentenceClassification",
    "logits from pooler_output, not the first hidden state",
    mutant="bert_first_hidden_state",
)
@behaviour("BertForSentenceClassification", "loss is the batch mean of the cross-entropy", mutant="bert_loss_summed")
@behaviour(
    "BertForSentenceClassification",
    "train vs eval mode: any dropout off after model.eval() (a configuration with dropout 0.3)",
    mutant="bert_dropout_in_eval",
)
@behaviour(
    "BertForSentenceClassification",
    "the grader's classifier weights load at the second configuration's sizes",
    mutant="bert_head_sized_for_three_labels",
)
@behaviour(
    "BertForSentenceClassification",
    "every keyword argument reaches BertModel (token_type_ids of sentence pairs)",
    mutant="bert_drops_token_type_ids",
)
def test_logits_from_pooler_output_and_cross_entropy_loss(student):
    for config, batch, seq, pairs, seed in ((TINY_BERT, 4, 7, False, 5), (OTHER_BERT, 3, 6, True, 6)):
        state, oracle, inputs = _case(config, batch, seq, pairs, seed)
        ids, mask, labels, types = inputs["ids"], inputs["mask"], inputs["labels"], inputs["token_type_ids"]
        weight, bias = state["classifier.weight"], state["classifier.bias"]
        with torch.no_grad():
            outputs = oracle(input_ids=ids, attention_mask=mask, token_type_ids=types)
            expected = F.linear(outputs.pooler_output, weight, bias)
            first_token = F.linear(outputs.last_hidden_state[:, 0], weight, bias)
            one_segment = F.linear(oracle(input_ids=ids, attention_mask=mask).pooler_output, weight, bias)
        out = _run(student, config, state, inputs)
        case = _describe(config, batch, pairs)
        logits = expect_shape(out["logits"], expected.shape, f"logits (batch, num_labels) for {case}")
        try:
            expect_close(logits, expected, f"logits compared with classifier(pooler_output) for {case}", atol=1e-5)
        except GradingFailure:
            logits = logits.float()
            if torch.allclose(logits, first_token, atol=1e-5):
                raise GradingFailure(
                    "logits come from the first token's last hidden state; the classifier must read pooler_output"
                ) from None
            if pairs and torch.allclose(logits, one_segment, atol=1e-5):
                raise GradingFailure(
                    "logits ignore token_type_ids: pass every keyword argument (token_type_ids included) on to "
                    "BertModel's forward"
                ) from None
            if config["hidden_dropout_prob"]:
                raise GradingFailure(
                    f"logits for {case} differ from classifier(pooler_output): in evaluation mode "
                    f"(model.eval()) every dropout must be off; F.dropout needs training=self.training, "
                    f"nn.Dropout follows the mode by itself"
                ) from None
            raise
        expect_close(out["logits_with_labels"], expected, f"logits when labels are given ({case})", atol=1e-5)
        expect(out["loss"] is not None, "with labels, forward must also return the loss")
        expect_close(
            out["loss"],
            F.cross_entropy(expected, labels),
            f"loss compared with the mean cross-entropy of the logits and labels ({case})",
            atol=1e-5,
        )


@question("bert_classifier_tests")
@behaviour(
    "BertForSentenceClassification",
    "gradient flow: the loss reaches classifier, pooler, encoder and embeddings",
    mutant="bert_detached_features",
)
@behaviour(
    "BertForSentenceClassification",
    "one SGD step compared at a tolerance below the smallest layer's share of it (the lowest layer frozen)",
    mutant="bert_lowest_layer_frozen",
    kind="step-tolerance",
)
def test_gradients_reach_classifier_and_encoder(student):
    # The old version read gradient norms back from the kernel, which a forging kernel can report as any
    # positive number. Now a forging kernel passes only by reporting the logits that follow one SGD step in
    # which the loss's gradient reached the classifier and every encoder layer.
    state, _, inputs = _case(TINY_BERT, 4, 7, False, seed=5)
    out = _run(student, TINY_BERT, state, inputs, code=GRADIENTS)
    expected = classifier_after_sgd_step(
        state, inputs["ids"], inputs["mask"], inputs["labels"], lr=0.1, encoder_trainable=True
    )
    # The tolerance comes from the size of the step's effect. The logits are about 2.5 at most, so rtol and
    # atol 1e-4 allow at most 3.5e-4; the same step computed twice in float32 differs by about 1e-6. Measured
    # on these weights (lr 0.1), leaving one part out of the step moves the logits by: the embeddings 0.30,
    # the pooler 1.3, the lowest of the two encoder layers 1.0e-3, the embeddings' LayerNorm 5.3e-4. So the
    # smallest whole layer a student could freeze still shows, three times above the tolerance.
    expect_close(
        out["logits"],
        expected,
        "logits after loss.backward() and one SGD step over all parameters: the "
        "gradient of the loss must reach the classifier, the pooler, the encoder layers and the "
        "embeddings",
        rtol=1e-4,
        atol=1e-4,
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "BertForSentenceClassification",
        "dropout before the classifier in training mode",
        "Optional in the skeleton, so its rate is not graded, and a training-mode replay at dropout above 0 would depend on the order of BertModel's own dropout draws; variants bert_classifier_dropout_like_transformers and bert_classifier_functional_dropout keep full marks.",
    ),
    (
        "BertForSentenceClassification",
        "the forward's signature (named arguments or **kwargs)",
        "Any signature that passes every keyword argument on is allowed; variant bert_classifier_named_arguments keeps full marks.",
    ),
    (
        "BertForSentenceClassification",
        "randomness, data order",
        "It samples nothing and visits no data: the training loop is provided.",
        "randomness",
    ),
    (
        "BertForSentenceClassification",
        "validation order",
        "It checks no argument; its one branch, labels None or given, is tested both ways.",
        "validation-order",
    ),
    ("BertForSentenceClassification", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("BertForSentenceClassification", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "BertForSentenceClassification",
        "degenerate values",
        "Padding, the degenerate input of a sentence batch, is handled by BertModel from the attention mask (one sentence is padded in the tests); the student's code reads only pooler_output.",
        "degenerate",
    ),
    (
        "BertForSentenceClassification",
        "state across calls",
        "forward keeps nothing on the module between calls; the tests call it with and without labels on one model and compare both.",
        "state",
    ),
    (
        "BertForSentenceClassification",
        "device of what it makes",
        "It makes no tensor of its own: the classifier is a layer that moves with the model, and BertModel places its own tensors.",
        "device",
    ),
    (
        "BertForSentenceClassification",
        "hyper-parameters that are not whole numbers",
        "Its fractional hyper-parameters are the dropout rates (0.3 and 0.2 in the tests), which BertModel reads itself; the optional head dropout is ungraded (row above).",
        "non-integer",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "BertForSentenceClassification",
        "config",
        "two BertConfigs: 2 layers and 3 labels without dropout, 1 layer and 2 labels with dropout (their fields in the config rows below)",
        None,
    ),
    ("BertForSentenceClassification", "config.vocab_size", "61, 99", None),
    ("BertForSentenceClassification", "config.hidden_size", "24, 32", None),
    ("BertForSentenceClassification", "config.num_hidden_layers", "1, 2", None),
    ("BertForSentenceClassification", "config.num_attention_heads", "3, 4", None),
    ("BertForSentenceClassification", "config.intermediate_size", "29, 37", None),
    ("BertForSentenceClassification", "config.num_labels", "2, 3", None),
    (
        "BertForSentenceClassification",
        "config.hidden_dropout_prob",
        "0 (training and evaluation mode), 0.3 (evaluation mode)",
        None,
    ),
    (
        "BertForSentenceClassification",
        "config.attention_probs_dropout_prob",
        "0 (training and evaluation mode), 0.2 (evaluation mode)",
        None,
    ),
    (
        "BertForSentenceClassification",
        "config.type_vocab_size",
        "2",
        "It sizes BertModel's own segment table, which the grader's weights fill; the student's code never reads it.",
    ),
    (
        "BertForSentenceClassification",
        "config.max_position_embeddings",
        "16",
        "It sizes BertModel's own position table, which the grader's weights fill; the student's code never reads it.",
    ),
    ("BertForSentenceClassification", "labels", "None, a (batch,) tensor of class ids", None),
    ("BertForSentenceClassification", "kwargs: input_ids", "(batch, seq) with batch 1, 3, 4 and seq 5, 6, 7", None),
    ("BertForSentenceClassification", "kwargs: attention_mask", "all ones, and one sentence padded", None),
    ("BertForSentenceClassification", "kwargs: token_type_ids", "absent, sentence pairs (segments 0 and 1)", None),
    ("BertForSentenceClassification", "the mode the caller sets", "evaluation, training (one SGD step)", None),
]
