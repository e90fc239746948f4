"""Builds the encoder layer without passing dropout=dropout, so the layers always drop out at
nn.TransformerEncoderLayer's default rate of 0.1 whatever the model is given; in evaluation mode
nothing shows.

question: transformer_model_tests
replaces: transformer_model
"""


class TransformerBase(nn.Module):
    def __init__(self, ntoken, nhead, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.nhid = nhid
        self.embedding = nn.Embedding(ntoken, nhid)
        self.pos_encoder = PositionalEncoding(nhid, dropout)
        layer = nn.TransformerEncoderLayer(nhid, nhead, dim_feedforward=nhid, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.init_weights()
