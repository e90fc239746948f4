"""Forgets the residual connection around the attention sublayer.

question: transformer_block_tests
replaces: transformer_block
"""


class TransformerBlock(nn.Module):
    def forward(self, inputs):
        embedding, mask = inputs
        embedding = self.norm1(self.dropout(self.self_attn(embedding, mask)))
        embedding = self.norm2(embedding + self.linear_net(embedding))
        return embedding, mask
