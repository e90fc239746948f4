"""Takes the root mean square from torch.linalg.vector_norm divided by sqrt(hidden), then adds eps to its
square.

question: rms_norm_tests
replaces: rms_norm
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / math.sqrt(x.shape[-1])
        return x / torch.sqrt(rms * rms + self.eps) * self.weight
