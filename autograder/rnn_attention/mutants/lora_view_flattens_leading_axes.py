"""Flattens the leading axes with x.view(-1, in_features) and restores them afterwards: right for
contiguous inputs, but view raises on a non-contiguous x (a transposed or sliced tensor), which the
contract allows.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        flat = x.view(-1, self.base.in_features)
        out = self.base(flat) + self.scaling * ((flat @ self.lora_A.T) @ self.lora_B.T)
        return out.view(*x.shape[:-1], self.base.out_features)
