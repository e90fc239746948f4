"""Returns only the new embedding from TransformerBlock.forward, not the pair (embedding, mask), so the
next block in nn.Sequential receives a tensor where it expects the pair.

question: transformer_block_tests
replaces: transformer_block
contract: forward returns the pair (embedding, mask)
"""


class TransformerBlock(nn.Module):
    def forward(self, inputs):
        embedding, mask = inputs
        embedding = self.norm1(embedding + self.dropout(self.self_attn(embedding, mask)))
        return self.norm2(embedding + self.linear_net(embedding))
