"""Always returns a pair (logits, loss), with loss None when no labels are given.

question: bert_classifier_tests
replaces: bert_classifier
contract: without labels forward returns the 1-tuple (logits,)
"""


class BertForSentenceClassification(BertModel):
    def forward(self, labels=None, **kwargs):
        outputs = super().forward(**kwargs)
        logits = self.classifier(outputs.pooler_output)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits, labels)
        return (logits, loss)
