"""Stacks the hidden states along dimension 0, returning annotations as (seq, batch, hidden).

question: gru_encoder_tests
replaces: gru_encoder
contract: annotations are batch-first, (batch, seq, hidden)
"""


class GRUEncoder(nn.Module):
    def forward(self, inputs):
        B, S = inputs.shape
        embedded = self.embedding(inputs)
        hidden = embedded.new_zeros(B, self.hidden_size)
        states = []
        for t in range(S):
            hidden = self.gru(embedded[:, t], hidden)
            states.append(hidden)
        return torch.stack(states), hidden
