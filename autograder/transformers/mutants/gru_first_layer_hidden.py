"""Concatenates hidden[0] and hidden[1], the first GRU layer's final states, instead of the last layer's.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
"""


class BERTGRUSentiment(nn.Module):
    def head(self, features, attention_mask=None):
        B, S, _ = features.shape
        if attention_mask is None:
            lengths = torch.full((B,), S, dtype=torch.long)
        else:
            lengths = attention_mask.sum(dim=1).long().cpu()
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        _, hidden = self.rnn(packed)
        final = torch.cat([hidden[0], hidden[1]], dim=-1) if self.rnn.bidirectional else hidden[0]
        return self.out(self.dropout(final))
