"""Computes the root mean square without keepdim, squeezes it and adds the last axis back with [..., None],
which puts a (batch, seq) normaliser with an axis of one out of line with x (a (3, 1, 4) input comes out
(3, 3, 4)).

question: rms_norm_tests
replaces: rms_norm
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1) + self.eps).squeeze()[..., None]
        return x / rms * self.weight
