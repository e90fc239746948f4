"""Returns the concatenated heads without passing them through o_proj.

question: multi_head_attention_tests
replaces: multi_head_attention
"""


class MultiHeadAttention(nn.Module):
    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = self.qkv_proj(embedding).split(E, dim=-1)
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        rate = self.attn_drop_rate if self.training else 0.0
        values, _ = scaled_dot_product(q, k, v, attn_drop_rate=rate, mask=mask)
        return values.transpose(1, 2).reshape(B, S, E)
