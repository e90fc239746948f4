"""Sizes the classifier for the three labels of the check below, nn.Linear(config.hidden_size, 3), instead of
reading config.num_labels.

question: bert_classifier_tests
replaces: bert_classifier
contract: the classifier is nn.Linear(config.hidden_size, config.num_labels)
"""


class BertForSentenceClassification(BertModel):
    def __init__(self, config):
        super().__init__(config)
        self.classifier = nn.Linear(config.hidden_size, 3)
        self.post_init()
