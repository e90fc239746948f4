"""Freezes the lowest encoder layer in __init__, a trick from fine-tuning guides to save memory on small
data; training still works, but that layer never moves, and its share of one step is small.

question: bert_classifier_tests
replaces: bert_classifier
"""


class BertForSentenceClassification(BertModel):
    def __init__(self, config):
        super().__init__(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        for parameter in self.encoder.layer[0].parameters():
            parameter.requires_grad = False
        self.post_init()
