"""Adds the low-rank update without the alpha / rank scaling: base(x) + x A^T B^T.

question: lora_tests
replaces: lora
contract: the update is scaled by alpha / rank
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.T) @ self.lora_B.T
