"""In eval mode adds (alpha / rank) B A into base.weight in place (once, remembered by a flag) and then
just calls the base layer, as peft's merge does; it never subtracts it again, so the caller's layer is
changed and, back in training mode, the update is counted twice.

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: base.weight values are not changed
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        if not self.training:
            if not getattr(self, "merged", False):
                with torch.no_grad():
                    self.base.weight += self.scaling * (self.lora_B @ self.lora_A)
                self.merged = True
            return self.base(x)
        return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
