"""Applies dropout to pooler_output before the classifier, as transformers' BertForSequenceClassification
does, at the configuration's hidden_dropout_prob; the skeleton does not forbid it and in evaluation mode
nothing changes.

question: bert_classifier_tests
replaces: bert_classifier
source: transformers' BertForSequenceClassification
"""


class BertForSentenceClassification(BertModel):
    def __init__(self, config):
        super().__init__(config)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(self, labels=None, **kwargs):
        logits = self.classifier(self.dropout(super().forward(**kwargs).pooler_output))
        if labels is None:
            return (logits,)
        return (logits, nn.CrossEntropyLoss()(logits, labels))
