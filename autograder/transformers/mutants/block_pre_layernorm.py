"""Normalises before each sublayer (pre-LN, as in GPT-2) instead of after the residual sum.

question: transformer_block_tests
replaces: transformer_block
"""


class TransformerBlock(nn.Module):
    def forward(self, inputs):
        embedding, mask = inputs
        embedding = embedding + self.dropout(self.self_attn(self.norm1(embedding), mask))
        embedding = embedding + self.linear_net(self.norm2(embedding))
        return embedding, mask
