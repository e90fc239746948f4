"""Runs the GRU over the padded features without packing, so the final state has read the padding.

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
        _, hidden = self.rnn(features)
        final = torch.cat([hidden[-2], hidden[-1]], dim=-1) if self.rnn.bidirectional else hidden[-1]
        return self.out(self.dropout(final))
