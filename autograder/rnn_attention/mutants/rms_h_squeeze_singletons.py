"""Squeezes away the singleton axes first (to treat a batch of one or a sequence of one like any other input),
normalises over the last remaining axis and restores x's shape with view_as: right whenever hidden_size > 1,
but with hidden_size == 1 the hidden axis itself is squeezed away and the mean is taken over the sequence.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "the mean taken over the last axis only" ; "hidden_size 1"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        s = x.squeeze()
        rms = torch.sqrt(s.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return (s / rms).view_as(x) * self.weight
