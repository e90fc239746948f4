"""Applies dropout to pooler_output with F.dropout at the configuration's rate, passing
training=self.training so that it is off in evaluation mode, as nn.Dropout would be.

question: bert_classifier_tests
replaces: bert_classifier
"""


class BertForSentenceClassification(BertModel):
    def forward(self, labels=None, **kwargs):
        pooled = super().forward(**kwargs).pooler_output
        logits = self.classifier(F.dropout(pooled, p=self.config.hidden_dropout_prob, training=self.training))
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
