"""Follows the UvA deep-learning tutorial's attention: a lower-triangular 0/1 mask, masked_fill with
-9e15 where the mask is 0 (the softmax still gives exactly 0 there in float32), then softmax and matmul.

question: causal_attention_tests
replaces: causal_attention
source: UvA Deep Learning Tutorials, tutorial 6 (scaled_dot_product with a mask)
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        d_k = q.size()[-1]
        attn_logits = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
        mask = torch.tril(torch.ones(q.size(1), k.size(1)))
        attn_logits = attn_logits.masked_fill(mask == 0, -9e15)
        attention = F.softmax(attn_logits, dim=-1)
        return torch.matmul(attention, v), attention
