"""For classification applies the head to the first position (hidden[:, 0], as for BERT's [CLS])
instead of the last real token, which under the causal mask has seen only the first word.

question: transformer_model_tests
replaces: transformer_model
"""


class Model(nn.Module):
    def forward(self, src, src_mask, lengths=None):
        hidden = self.base(src, src_mask)                      # (batch, seq, nhid)
        if lengths is None:
            return self.head(hidden)                           # (batch, seq, nclasses)
        last = hidden[:, 0]                                    # (batch, nhid)
        return self.head(last)                                 # (batch, nclasses)
