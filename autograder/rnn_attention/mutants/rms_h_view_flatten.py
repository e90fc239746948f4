"""Handles "any number of leading axes" by flattening them with x.view(-1, hidden) and restoring the shape with
.view at the end: correct on contiguous inputs, but x.view raises on a non-contiguous x (a transposed or sliced
tensor, as handed on by attention code), where reshape would have copied.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "a non-contiguous x (a transposed or sliced one)"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        flat = x.view(-1, self.hidden_size)
        rms = torch.sqrt(flat.pow(2).mean(dim=1, keepdim=True) + self.eps)
        return (flat / rms * self.weight).view(x.shape)
