"""In eval mode merges W + (alpha / rank) B A into one weight the first time forward runs and keeps it
for every later eval call; after more training (model.train(), steps, model.eval() again) the layer keeps
using the old merged weight, so its eval output no longer follows A and B.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        if not self.training:
            if getattr(self, "_merged", None) is None:
                with torch.no_grad():
                    self._merged = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
            return F.linear(x, self._merged, self.base.bias)
        return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
