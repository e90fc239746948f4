"""Detaches the state after every step, as language-model code does between batches ("truncated
backpropagation"), so a loss on the last state trains only the last character's embedding.

question: gru_encoder_tests
replaces: gru_encoder
contract: backpropagation runs through time (no detach between steps)
"""


class GRUEncoder(nn.Module):
    def forward(self, inputs):
        B, S = inputs.shape
        embedded = self.embedding(inputs)
        hidden = embedded.new_zeros(B, self.hidden_size)
        states = []
        for t in range(S):
            hidden = self.gru(embedded[:, t], hidden.detach())
            states.append(hidden)
        return torch.stack(states, dim=1), hidden
