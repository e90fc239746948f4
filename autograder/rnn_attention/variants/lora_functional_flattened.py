"""Flattens the leading axes with reshape, runs F.linear for the base and for A then B with the scaling
folded into B, and restores the leading axes (none for a single vector).

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        out = F.linear(flat, self.base.weight, self.base.bias) + \
            F.linear(F.linear(flat, self.lora_A), self.lora_B * self.scaling)
        return out.reshape(*x.shape[:-1], out.shape[-1])
