"""Works in the (seq, batch, embed_dim) layout of nn.TransformerEncoderLayer's default inside the block and
turns batch-first only around the attention call: the same function, but its dropouts draw their masks over
another memory layout, so no test may replay the reference's draws.

question: transformer_block_tests
replaces: transformer_block
source: PyTorch's nn.TransformerEncoderLayer (batch_first=False)
"""


class TransformerBlock(nn.Module):
    def forward(self, inputs):
        embedding, mask = inputs
        x = embedding.transpose(0, 1).contiguous()                                   # (seq, batch, E)
        attended = self.self_attn(x.transpose(0, 1), mask).transpose(0, 1).contiguous()
        x = self.norm1(x + self.dropout(attended))
        x = self.norm2(x + self.linear_net(x))
        return x.transpose(0, 1), mask
