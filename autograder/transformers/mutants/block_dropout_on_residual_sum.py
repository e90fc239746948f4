"""Applies the attention-output dropout to the residual sum, norm1(dropout(x + attn(x))), instead of to the
attention output before it is added; identical in eval mode, different while training.

question: transformer_block_tests
replaces: transformer_block
contract: the attention output's dropout acts before the residual sum
"""


class TransformerBlock(nn.Module):
    def forward(self, inputs):
        embedding, mask = inputs
        embedding = self.norm1(self.dropout(embedding + self.self_attn(embedding, mask)))
        embedding = self.norm2(embedding + self.linear_net(embedding))
        return embedding, mask
