"""Runs the cell over the characters from last to first but stores the states in reading order.

question: gru_encoder_tests
replaces: gru_encoder
"""


class GRUEncoder(nn.Module):
    def forward(self, inputs):
        B, S = inputs.shape
        embedded = self.embedding(inputs)
        hidden = embedded.new_zeros(B, self.hidden_size)
        states = []
        for t in reversed(range(S)):
            hidden = self.gru(embedded[:, t], hidden)
            states.append(hidden)
        return torch.stack(states, dim=1), hidden
