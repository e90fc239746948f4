"""BertForSentenceClassification on a tiny BertConfig: output format, logits on pooler_output against
transformers' BertModel with the same weights, cross-entropy loss, and gradient flow."""

import torch
import torch.nn.functional as F

from assignments.grading.testkit import (
    GradingFailure,
    expect,
    expect_close,
    expect_shape,
    kernel_value,
    question,
)
from autograder.rnn_attention.inputs import TINY_BERT, tiny_bert_batch, tiny_bert_state
from autograder.rnn_attention.oracles import classifier_after_sgd_step

BUILD = """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config))
model.load_state_dict(state)
model.eval()
"""

RUN_BOTH = (
    BUILD
    + """
without = model(input_ids=ids, attention_mask=mask)
with_labels = model(input_ids=ids, attention_mask=mask, labels=labels)
result = {"without_is_tuple": isinstance(without, tuple), "without_len": len(without),
          "with_is_tuple": isinstance(with_labels, tuple), "with_len": len(with_labels),
          "logits": without[0], "logits_with_labels": with_labels[0],
          "loss": with_labels[1] if len(with_labels) > 1 else None}
"""
)

# Gradient flow is checked by behaviour: one SGD step over every parameter on the loss forward returns,
# then only the logits come back (compared with the same step taken here on the grader's weights).
GRADIENTS = (
    BUILD
    + """
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
logits, loss = model(input_ids=ids, attention_mask=mask, labels=labels)
loss.backward()
optimizer.step()
model.eval()
with torch.no_grad():
    result = model(input_ids=ids, attention_mask=mask)[0]
"""
)


@question("bert_classifier_tests", points=1)
def test_returns_logits_tuple_and_loss_only_with_labels(student):
    state, _ = tiny_bert_state()
    ids, mask, labels = tiny_bert_batch()
    out = student.run(RUN_BOTH, config=TINY_BERT, state=state, ids=ids, mask=mask, labels=labels)
    expect(
        out["without_is_tuple"] and out["without_len"] == 1,
        f"without labels forward must return a 1-tuple (logits,); got {kernel_value(out['without_len'])} item(s)",
    )
    expect(
        out["with_is_tuple"] and out["with_len"] == 2,
        f"with labels forward must return a 2-tuple (logits, loss); got {kernel_value(out['with_len'])} item(s)",
    )
    expect_shape(out["logits"], (4, TINY_BERT["num_labels"]), "logits (batch, num_labels)")
    loss = out["loss"]
    expect(isinstance(loss, torch.Tensor) and loss.dim() == 0, "the loss should be a scalar tensor (the batch mean)")


@question("bert_classifier_tests", points=1)
def test_logits_from_pooler_output_and_cross_entropy_loss(student):
    state, oracle = tiny_bert_state()
    ids, mask, labels = tiny_bert_batch()
    with torch.no_grad():
        outputs = oracle(input_ids=ids, attention_mask=mask)
        expected = F.linear(outputs.pooler_output, state["classifier.weight"], state["classifier.bias"])
        first_token = F.linear(outputs.last_hidden_state[:, 0], state["classifier.weight"], state["classifier.bias"])
    out = student.run(RUN_BOTH, config=TINY_BERT, state=state, ids=ids, mask=mask, labels=labels)
    logits = expect_shape(out["logits"], expected.shape, "logits (batch, num_labels)")
    try:
        expect_close(logits, expected, "logits compared with classifier(pooler_output)", atol=1e-5)
    except GradingFailure:
        if torch.allclose(logits.float(), first_token, atol=1e-5):
            raise GradingFailure(
                "logits come from the first token's last hidden state; the classifier must read pooler_output"
            ) from None
        raise
    expect_close(out["logits_with_labels"], expected, "logits when labels are given", atol=1e-5)
    expect(out["loss"] is not None, "with labels, forward must also return the loss")
    expect_close(
        out["loss"],
        F.cross_entropy(expected, labels),
        "loss compared with the mean cross-entropy of the logits and labels",
        atol=1e-5,
    )


@question("bert_classifier_tests", points=1)
def test_gradients_reach_classifier_and_encoder(student):
    # The old version read gradient norms back from the kernel, which a forging kernel can report as any
    # positive number. Now a forging kernel passes only by reporting the logits that follow one SGD step in
    # which the loss's gradient reached the classifier and every encoder layer.
    state, _ = tiny_bert_state()
    ids, mask, labels = tiny_bert_batch()
    after = student.run(GRADIENTS, config=TINY_BERT, state=state, ids=ids, mask=mask, labels=labels)
    expected = classifier_after_sgd_step(state, ids, mask, labels, lr=0.1, encoder_trainable=True)
    expect_close(
        after,
        expected,
        "logits after loss.backward() and one SGD step over all parameters: the "
        "gradient of the loss must reach the classifier, the pooler, the encoder layers and the "
        "embeddings",
        rtol=1e-4,
        atol=1e-4,
    )
