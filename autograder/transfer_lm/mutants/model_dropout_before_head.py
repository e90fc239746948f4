"""Adds a dropout of its own on the hidden states before the head, as PyTorch's word_language_model
example does for its RNN: evaluation mode shows nothing, but training drops out once more than asked.

question: transformer_model_tests
replaces: transformer_model
"""


class Model(nn.Module):
    def __init__(self, ntoken, nhead, nhid, nlayers, nclasses, dropout=0.2):
        super().__init__()
        self.base = TransformerBase(ntoken, nhead, nhid, nlayers, dropout)
        self.head = ClassificationHead(nhid, nclasses)
        self.drop = nn.Dropout(dropout)

    def forward(self, src, src_mask, lengths=None):
        hidden = self.drop(self.base(src, src_mask))
        if lengths is None:
            return self.head(hidden)
        rows = torch.arange(src.size(0), device=src.device)
        return self.head(hidden[rows, lengths.to(src.device) - 1])
