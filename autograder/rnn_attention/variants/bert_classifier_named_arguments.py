"""Names BertModel's usual arguments in the signature and passes each on explicitly (token_type_ids
included), taking the pooled output as the second item of the encoder's output.

question: bert_classifier_tests
replaces: bert_classifier
"""


class BertForSentenceClassification(BertModel):
    def forward(self, input_ids=None, attention_mask=None, token_type_ids=None, labels=None, **kwargs):
        outputs = super().forward(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, **kwargs
        )
        logits = self.classifier(outputs[1])
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
