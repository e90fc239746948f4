"""Detaches pooler_output before the classifier, so no gradient reaches the encoder.

question: bert_classifier_tests
replaces: bert_classifier
"""


class BertForSentenceClassification(BertModel):
    def forward(self, labels=None, **kwargs):
        logits = self.classifier(super().forward(**kwargs).pooler_output.detach())
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
