"""Detaches pooler_output before the classifier, so no gradient reaches the encoder.

question: bert_classifier_tests
replaces: bert_classifier
"""


class BertForSentenceClassification(BertModel):
    def __init__(self, config):
        super().__init__(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, labels=None, **kwargs):
        logits = self.classifier(super().forward(**kwargs).pooler_output.detach())
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
