"""Gathers each review's last real position and then calls .squeeze() to drop the gathered axis, which
also drops the batch axis when the batch holds a single review: the scores come back (nclasses,).

question: transformer_model_tests
replaces: transformer_model
contract: classification scores have shape (batch, nclasses), a batch of one review included
"""


class Model(nn.Module):
    def forward(self, src, src_mask, lengths=None):
        hidden = self.base(src, src_mask)
        if lengths is None:
            return self.head(hidden)
        index = (lengths.to(src.device) - 1).view(-1, 1, 1).expand(-1, 1, hidden.size(-1))
        return self.head(hidden.gather(1, index).squeeze())
