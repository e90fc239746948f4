"""Passes attn_drop_rate to the attention whether or not the module is training, so dropout (F.dropout
defaults to training=True) stays on in eval mode.

question: multi_head_attention_tests
replaces: multi_head_attention
"""


class MultiHeadAttention(nn.Module):
    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = self.qkv_proj(embedding).split(E, dim=-1)
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        values, _ = scaled_dot_product(q, k, v, attn_drop_rate=self.attn_drop_rate, mask=mask)
        return self.o_proj(values.transpose(1, 2).reshape(B, S, E))
