"""Uses ReLU in the position-wise network instead of GELU.

question: transformer_block_tests
replaces: transformer_block
"""


class TransformerBlock(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.self_attn = MultiHeadAttention(embed_dim, n_heads, attn_drop_rate)
        self.dropout = nn.Dropout(layer_drop_rate)
        self.norm1 = nn.LayerNorm(embed_dim)
        self.linear_net = nn.Sequential(nn.Linear(embed_dim, 4 * embed_dim), nn.ReLU(),
                                        nn.Linear(4 * embed_dim, embed_dim), nn.Dropout(layer_drop_rate))
        self.norm2 = nn.LayerNorm(embed_dim)
