"""Builds linear_net's final Dropout with attn_drop_rate instead of layer_drop_rate (the two rates are
easy to mix up when both are 0.1 in every example).

question: transformer_block_tests
replaces: transformer_block
contract: linear_net ends with nn.Dropout(layer_drop_rate)
"""


class TransformerBlock(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.self_attn = MultiHeadAttention(embed_dim, n_heads, attn_drop_rate)
        self.dropout = nn.Dropout(layer_drop_rate)
        self.norm1 = nn.LayerNorm(embed_dim)
        self.linear_net = nn.Sequential(
            nn.Linear(embed_dim, 4 * embed_dim),
            nn.GELU(),
            nn.Linear(4 * embed_dim, embed_dim),
            nn.Dropout(attn_drop_rate),
        )
        self.norm2 = nn.LayerNorm(embed_dim)
