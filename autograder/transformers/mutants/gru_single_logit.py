"""Builds the output layer with one output, nn.Linear(..., 1), since sentiment needs one logit, ignoring
output_dim.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
"""


class BERTGRUSentiment(nn.Module):
    def __init__(self, bert, hidden_dim, output_dim, n_layers, bidirectional, dropout):
        super().__init__()
        self.bert = bert
        for parameter in self.bert.parameters():
            parameter.requires_grad = False
        self.rnn = nn.GRU(bert.config.hidden_size, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                          batch_first=True, dropout=0 if n_layers < 2 else dropout)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_dim * (2 if bidirectional else 1), 1)
