"""Calls scaled_dot_product without passing the rate while training, so the attention dropout uses the
function's default 0.1 whatever attn_drop_rate the module was built with (0.0 in eval mode, as it should).

question: multi_head_attention_tests
replaces: multi_head_attention
"""


class MultiHeadAttention(nn.Module):
    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = self.qkv_proj(embedding).split(E, dim=-1)
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        if self.training:
            values, _ = scaled_dot_product(q, k, v, mask=mask)
        else:
            values, _ = scaled_dot_product(q, k, v, attn_drop_rate=0.0, mask=mask)
        return self.o_proj(values.transpose(1, 2).reshape(B, S, E))
