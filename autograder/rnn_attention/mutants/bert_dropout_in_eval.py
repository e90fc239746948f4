"""Adds dropout before the classifier with F.dropout at the configuration's rate, not knowing that F.dropout,
unlike nn.Dropout, does not follow model.eval(): its training argument defaults to True, so the logits stay
noisy in evaluation mode.

question: bert_classifier_tests
replaces: bert_classifier
contract: any dropout is off in evaluation mode (model.eval())
"""


class BertForSentenceClassification(BertModel):
    def forward(self, labels=None, **kwargs):
        pooled = F.dropout(super().forward(**kwargs).pooler_output, p=self.config.hidden_dropout_prob)
        logits = self.classifier(pooled)
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
