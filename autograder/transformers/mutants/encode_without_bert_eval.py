"""Runs BERT under torch.no_grad() in encode but never calls self.bert.eval(): BERT keeps the mode of the
model around it, so a freshly built model (training mode, as in the caching cell) caches features with
BERT's dropout noise in them.

question: bert_gru_sentiment_tests
replaces: bert_gru_sentiment
contract: encode runs BERT in eval mode
"""


class BERTGRUSentiment(nn.Module):
    def encode(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        with torch.no_grad():
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
