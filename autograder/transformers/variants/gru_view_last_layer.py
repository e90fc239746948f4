"""Takes the last layer's final states by viewing hidden as (layers, directions, batch, hidden_dim), applies
the dropout with F.dropout(..., training=self.training), and runs BERT positionally in encode with
self.bert.train(False), letting BERT fill in a missing attention mask.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
"""


class BERTGRUSentiment(nn.Module):
    def encode(self, input_ids, attention_mask=None):
        self.bert.train(False)
        with torch.no_grad():
            return self.bert(input_ids, attention_mask=attention_mask)[0]

    def head(self, features, attention_mask=None):
        batch, seq, _ = features.shape
        if attention_mask is None:
            attention_mask = torch.ones(batch, seq, dtype=torch.long)
        packed = nn.utils.rnn.pack_padded_sequence(features, attention_mask.sum(-1).cpu(), batch_first=True,
                                                   enforce_sorted=False)
        _, hidden = self.rnn(packed)
        directions = 2 if self.rnn.bidirectional else 1
        last = hidden.view(self.rnn.num_layers, directions, batch, self.rnn.hidden_size)[-1]   # (dirs, B, H)
        final = last.transpose(0, 1).reshape(batch, directions * self.rnn.hidden_size)
        return self.out(F.dropout(final, p=self.dropout.p, training=self.training))
