"""freeze_encoder: only the classifier stays trainable, gets gradients and changes in an optimiser step
(the correct BertForSentenceClassification is swapped in)."""

from assignments.grading.testkit import expect, expect_close, question
from autograder.rnn_attention.inputs import OTHER_BERT, TINY_BERT, tiny_bert_batch, tiny_bert_state
from autograder.rnn_attention.oracles import classifier_after_sgd_step

CLASSIFIER = {"classifier.weight", "classifier.bias"}

FREEZE = """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config))
model.load_state_dict(state)
freeze_encoder(model)
"""

# One SGD step over *all* of model.parameters(): a parameter left trainable gets a gradient and moves, a
# frozen one has no gradient and stays. Only the logits after the step come back, compared with an
# oracle that steps the classifier alone from the same grader-chosen weights.
STEP = (
    FREEZE
    + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
logits, loss = model(input_ids=ids, attention_mask=mask, labels=labels)
loss.backward()
optimizer.step()
model.eval()
with torch.no_grad():
    result = model(input_ids=ids, attention_mask=mask)[0]
"""
)


def _describe(names):
    groups = sorted({n.split(".")[0] for n in names})
    return ", ".join(groups)


@question("freeze_encoder_tests", points=1)
def test_only_classifier_requires_grad(student):
    # The kernel reports names only; they are compared with the set the grader knows (the classifier's two
    # tensors). Forging the list gains at most this point, and nothing else is computed from it.
    # Two configurations (2 layers and 3 labels, 1 layer and 2 labels): the encoder is whatever the model has.
    for config in (TINY_BERT, OTHER_BERT):
        state, _ = tiny_bert_state(config=config)
        trainable = set(
            student.run(
                FREEZE + "result = [n for n, p in model.named_parameters() if p.requires_grad]",
                stand_ins=("BertForSentenceClassification",),
                config=config,
                state=state,
            )
        )
        expect(
            CLASSIFIER <= trainable, "classifier.weight and classifier.bias must stay trainable (requires_grad=True)"
        )
        extra = trainable - CLASSIFIER
        expect(
            not extra,
            f"{len(extra)} encoder parameter(s) still require gradients (in: {_describe(extra)}); "
            "only the classifier should",
        )


@question("freeze_encoder_tests", points=1)
def test_only_classifier_gets_gradients_and_changes(student):
    # Checked by behaviour (the kernel's own list of changed parameters could be forged): a forging kernel
    # passes only by reporting the logits a model with a frozen encoder and a learning classifier gives.
    state, _ = tiny_bert_state()
    ids, mask, labels = tiny_bert_batch()
    after = student.run(
        STEP,
        stand_ins=("BertForSentenceClassification",),
        config=TINY_BERT,
        state=state,
        ids=ids,
        mask=mask,
        labels=labels,
    )
    expected = classifier_after_sgd_step(state, ids, mask, labels, lr=0.5, encoder_trainable=False)
    expect_close(
        after,
        expected,
        "logits after one SGD step over all of model.parameters(): only the "
        "classifier may get gradients and change, the encoder must stay as loaded",
        rtol=1e-4,
        atol=1e-4,
    )
