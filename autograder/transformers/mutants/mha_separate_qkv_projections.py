"""Uses three separate nn.Linear layers q_proj, k_proj and v_proj instead of the single qkv_proj the
skeleton asks for, so the grader cannot load the reference weights into it.

question: multi_head_attention_tests
replaces: multi_head_attention
contract: one qkv_proj layer laid out [Q | K | V], and o_proj
"""


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = embed_dim // n_heads
        self.attn_drop_rate = attn_drop_rate
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = (proj(embedding) for proj in (self.q_proj, self.k_proj, self.v_proj))
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        rate = self.attn_drop_rate if self.training else 0.0
        values, _ = scaled_dot_product(q, k, v, attn_drop_rate=rate, mask=mask)
        return self.o_proj(values.transpose(1, 2).reshape(B, S, E))
