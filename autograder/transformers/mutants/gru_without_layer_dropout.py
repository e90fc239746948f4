"""Builds the GRU without its dropout argument, nn.GRU(hidden size, hidden_dim, num_layers=n_layers,
bidirectional=..., batch_first=True), so a GRU of several layers never drops anything between them; only
the dropout before the output layer is left.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
"""


class BERTGRUSentiment(nn.Module):
    def __init__(self, bert, hidden_dim, output_dim, n_layers, bidirectional, dropout):
        super().__init__()
        self.bert = bert
        for parameter in self.bert.parameters():
            parameter.requires_grad = False
        self.rnn = nn.GRU(
            bert.config.hidden_size, hidden_dim, num_layers=n_layers, bidirectional=bidirectional, batch_first=True
        )
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_dim * (2 if bidirectional else 1), output_dim)
