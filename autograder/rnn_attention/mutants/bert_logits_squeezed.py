"""Squeezes the logits out of habit from one-output sentiment heads (`model(text).squeeze(1)`); with several
labels nothing changes until a batch of one sentence loses its batch axis.

question: bert_classifier_tests
replaces: bert_classifier
contract: logits are (batch, num_labels) for any batch size, one included
"""


class BertForSentenceClassification(BertModel):
    def forward(self, labels=None, **kwargs):
        logits = self.classifier(super().forward(**kwargs).pooler_output).squeeze()
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
