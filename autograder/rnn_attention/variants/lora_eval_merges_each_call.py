"""Takes the two-matmul path in training mode and a merged weight, built anew at this call, in evaluation
mode (loralib's idea without keeping the merged weight or writing it into base.weight).

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        if self.training:
            return self.base(x) + (x @ self.lora_A.T @ self.lora_B.T) * self.scaling
        return F.linear(x, torch.addmm(self.base.weight, self.lora_B, self.lora_A, alpha=self.scaling), self.base.bias)
