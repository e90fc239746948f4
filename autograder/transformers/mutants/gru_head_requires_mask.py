"""Computes the lengths from attention_mask without handling None, so a call without a mask (every token
real, as the skeleton allows) fails.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
"""


class BERTGRUSentiment(nn.Module):
    def head(self, features, attention_mask=None):
        lengths = attention_mask.sum(dim=1).long().cpu()
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        _, hidden = self.rnn(packed)
        final = torch.cat([hidden[-2], hidden[-1]], dim=-1) if self.rnn.bidirectional else hidden[-1]
        return self.out(self.dropout(final))
