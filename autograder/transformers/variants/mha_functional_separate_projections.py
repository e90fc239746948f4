"""Projects queries, keys and values separately with F.linear on the three row blocks of the one
qkv_proj layer (the contract fixes the fused parameters, not how they are applied), and merges the heads
with permute and contiguous().view.

question: multi_head_attention_tests
replaces: multi_head_attention
"""


class MultiHeadAttention(nn.Module):
    def forward(self, embedding, mask=None):
        batch, seq, width = embedding.shape
        weights = self.qkv_proj.weight.chunk(3, dim=0)
        biases = self.qkv_proj.bias.chunk(3, dim=0)
        heads = [F.linear(embedding, w, b).reshape(batch, seq, self.n_heads, -1).permute(0, 2, 1, 3)
                 for w, b in zip(weights, biases)]
        values, _ = scaled_dot_product(*heads, attn_drop_rate=self.attn_drop_rate if self.training else 0.0,
                                       mask=mask)
        merged = values.permute(0, 2, 1, 3).contiguous().view(batch, seq, width)
        return self.o_proj(merged)
