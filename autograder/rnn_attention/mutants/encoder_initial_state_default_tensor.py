"""Makes the first state with torch.zeros(batch, hidden_size), which lands on the CPU in float32 whatever the
device and dtype of the embeddings: right on the CPU in float32, an error in float64 or on a GPU.

question: gru_encoder_tests
replaces: gru_encoder
contract: the first state follows the embeddings' device and dtype
"""


class GRUEncoder(nn.Module):
    def forward(self, inputs):
        B, S = inputs.shape
        embedded = self.embedding(inputs)
        hidden = torch.zeros(B, self.hidden_size)
        states = []
        for t in range(S):
            hidden = self.gru(embedded[:, t], hidden)
            states.append(hidden)
        return torch.stack(states, dim=1), hidden
