"""Writes the base layer out by hand, x @ W^T + b, and adds base.bias unconditionally: fine for the
layers with a bias, a TypeError for a base layer built with bias=False.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: base is an nn.Linear with or without bias
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        return x @ self.base.weight.T + self.base.bias + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
