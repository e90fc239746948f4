"""Adds the low-rank update only while the module is training, as if the adapter were a training-time
device like dropout; in eval mode the trained adapter is ignored and the layer gives the base output.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        out = self.base(x)
        if self.training:
            out = out + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
        return out
