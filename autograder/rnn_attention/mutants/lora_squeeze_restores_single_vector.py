"""Handles an input without leading axes by adding a batch axis, and removes it afterwards with an
unconditional squeeze(0): an input whose first leading axis is 1 (a batch of one, (1, seq, in)) loses
that axis in the output.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: x (..., in_features) -> (..., out_features) with any number of leading axes
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        if x.dim() == 1:
            x = x.unsqueeze(0)
        out = self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
        return out.squeeze(0)
