"""Feeds the classifier the first token's last hidden state instead of pooler_output.

question: bert_classifier_tests
replaces: bert_classifier
"""


class BertForSentenceClassification(BertModel):
    def forward(self, labels=None, **kwargs):
        outputs = super().forward(**kwargs)
        logits = self.classifier(outputs.last_hidden_state[:, 0])
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
