"""freeze_encoder: only the classifier stays trainable, gets gradients and changes in an optimiser step
(the correct BertForSentenceClassification is swapped in)."""

import torch

from assignments.grading.checks import expect, question
from autograder.rnn_attention.oracles import TINY_BERT, tiny_bert_batch, tiny_bert_state

CLASSIFIER = {"classifier.weight", "classifier.bias"}

FREEZE = """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config))
model.load_state_dict(state)
freeze_encoder(model)
"""

STEP = FREEZE + """
before = {n: p.detach().clone() for n, p in model.named_parameters()}
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
logits, loss = model(input_ids=ids, attention_mask=mask, labels=labels)
loss.backward()
optimizer.step()
result = {"with_grad": sorted(n for n, p in model.named_parameters() if p.grad is not None and bool(p.grad.abs().sum() > 0)),
          "changed": sorted(n for n, p in model.named_parameters() if not torch.equal(p.detach(), before[n]))}
"""


def _describe(names):
    groups = sorted({n.split(".")[0] for n in names})
    return ", ".join(groups)


@question("freeze_encoder_tests", points=1)
def test_only_classifier_requires_grad(student):
    state, _ = tiny_bert_state()
    trainable = set(student.run(FREEZE + "result = [n for n, p in model.named_parameters() if p.requires_grad]",
                                stand_ins=("BertForSentenceClassification",), config=TINY_BERT, state=state))
    expect(CLASSIFIER <= trainable, "classifier.weight and classifier.bias must stay trainable (requires_grad=True)")
    extra = trainable - CLASSIFIER
    expect(not extra, f"{len(extra)} encoder parameter(s) still require gradients (in: {_describe(extra)}); "
                      "only the classifier should")


@question("freeze_encoder_tests", points=1)
def test_only_classifier_gets_gradients_and_changes(student):
    state, _ = tiny_bert_state()
    ids, mask, labels = tiny_bert_batch()
    out = student.run(STEP, stand_ins=("BertForSentenceClassification",), config=TINY_BERT, state=state,
                      ids=ids, mask=mask, labels=labels)
    expect(set(out["with_grad"]) == CLASSIFIER,
           f"after backward only the classifier should have gradients; got gradients in: {_describe(out['with_grad']) or 'nothing'}")
    expect(set(out["changed"]) == CLASSIFIER,
           f"an optimiser step should change only the classifier; it changed: {_describe(out['changed']) or 'nothing'}")
