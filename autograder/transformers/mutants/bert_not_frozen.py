"""Leaves BERT trainable: no requires_grad=False and no torch.no_grad(), so gradients flow into BERT.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
contract: every BERT parameter has requires_grad = False
"""


class BERTGRUSentiment(nn.Module):
    def __init__(self, bert, hidden_dim, output_dim, n_layers, bidirectional, dropout):
        super().__init__()
        self.bert = bert
        self.rnn = nn.GRU(bert.config.hidden_size, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                          batch_first=True, dropout=0 if n_layers < 2 else dropout)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_dim * (2 if bidirectional else 1), output_dim)

    def encode(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        self.bert.eval()
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
