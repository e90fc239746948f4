"""Splits the heads with a single reshape to (batch, heads, seq, head_dim), skipping the transpose, so
positions and heads get mixed up.

question: multi_head_attention_tests
replaces: multi_head_attention
"""


class MultiHeadAttention(nn.Module):
    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = self.qkv_proj(embedding).split(E, dim=-1)
        q, k, v = (t.reshape(B, self.n_heads, S, self.head_dim) for t in (q, k, v))
        rate = self.attn_drop_rate if self.training else 0.0
        values, _ = scaled_dot_product(q, k, v, attn_drop_rate=rate, mask=mask)
        return self.o_proj(values.reshape(B, S, E))
