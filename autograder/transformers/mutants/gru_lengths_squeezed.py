"""Squeezes the lengths, attention_mask.sum(1).squeeze(), which is harmless for a batch of several reviews
but turns the lengths of a single review into a 0-dimensional tensor that pack_padded_sequence refuses.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
"""


class BERTGRUSentiment(nn.Module):
    def head(self, features, attention_mask=None):
        B, S, _ = features.shape
        if attention_mask is None:
            lengths = torch.full((B,), S, dtype=torch.long)
        else:
            lengths = attention_mask.sum(1).squeeze().long().cpu()
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        _, hidden = self.rnn(packed)
        final = torch.cat([hidden[-2], hidden[-1]], dim=-1) if self.rnn.bidirectional else hidden[-1]
        return self.out(self.dropout(final))
