"""Gets the mean square from torch.linalg.vector_norm (the Euclidean norm squared over hidden_size), and weights
x before dividing (weight * x / rms).

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        ms = torch.linalg.vector_norm(x, dim=-1, keepdim=True).pow(2) / self.hidden_size
        return self.weight * x / torch.sqrt(ms + self.eps)
