"""Builds the encoder layers sequence-first, as PyTorch's tutorial does (batch_first left at False), and
transposes the batch-first input to (seq, batch, nhid) around the encoder: the same parameters and the
same function, but the layers' dropout masks are drawn over another layout, in another order.

question: transformer_model_tests
replaces: transformer_model
source: PyTorch tutorial "Language Modeling with nn.Transformer and torchtext" (TransformerModel)
"""


class TransformerBase(nn.Module):
    def __init__(self, ntoken, nhead, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.nhid = nhid
        self.embedding = nn.Embedding(ntoken, nhid)
        self.pos_encoder = PositionalEncoding(nhid, dropout)
        encoder_layers = nn.TransformerEncoderLayer(nhid, nhead, nhid, dropout)
        self.encoder = nn.TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.init_weights()

    def forward(self, src, src_mask):
        src = self.pos_encoder(self.embedding(src) * math.sqrt(self.nhid))   # (batch, seq, nhid)
        output = self.encoder(src.transpose(0, 1), src_mask)                  # (seq, batch, nhid)
        return output.transpose(0, 1)                                        # (batch, seq, nhid)
