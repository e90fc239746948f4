"""Names the two arguments a single sentence needs and passes only those to BertModel, so token_type_ids
(the segments of a sentence pair) are swallowed by **kwargs and never reach the encoder.

question: bert_classifier_tests
replaces: bert_classifier
contract: every keyword argument (token_type_ids included) goes on to BertModel
"""


class BertForSentenceClassification(BertModel):
    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        outputs = super().forward(input_ids=input_ids, attention_mask=attention_mask)
        logits = self.classifier(outputs.pooler_output)
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
