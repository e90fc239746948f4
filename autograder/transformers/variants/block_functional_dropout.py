"""Keeps the attention-output dropout as a rate and applies it with F.dropout(..., training=self.training),
and writes the two sublayers as named steps (the order of operations is the same function).

question: transformer_block_tests
replaces: transformer_block
"""


class TransformerBlock(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.self_attn = MultiHeadAttention(embed_dim, n_heads, attn_drop_rate)
        self.norm1 = nn.LayerNorm(embed_dim)
        self.norm2 = nn.LayerNorm(embed_dim)
        self.linear_net = nn.Sequential(nn.Linear(embed_dim, 4 * embed_dim), nn.GELU(),
                                        nn.Linear(4 * embed_dim, embed_dim), nn.Dropout(layer_drop_rate))
        self.residual_drop = layer_drop_rate

    def forward(self, inputs):
        x, mask = inputs
        attended = F.dropout(self.self_attn(x, mask), p=self.residual_drop, training=self.training)
        x = self.norm1(attended + x)
        x = self.norm2(self.linear_net(x) + x)
        return x, mask
