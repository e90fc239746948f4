"""Indexes the hidden states at lengths[b] (treating the length as the last index) and, when a review
that fills its row raised an IndexError, clamps the index to the last position: a full row is then read
right, but every shorter review is read at its first padding token instead of its last real one.

question: transformer_model_tests
replaces: transformer_model
"""


class Model(nn.Module):
    def forward(self, src, src_mask, lengths=None):
        hidden = self.base(src, src_mask)
        if lengths is None:
            return self.head(hidden)
        rows = torch.arange(src.size(0), device=src.device)
        last = hidden[rows, lengths.to(src.device).clamp(max=src.size(1) - 1)]
        return self.head(last)
