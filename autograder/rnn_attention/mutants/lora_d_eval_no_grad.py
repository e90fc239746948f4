"""The student equates evaluation mode with inference and runs the eval-mode forward under torch.no_grad(), so
outputs are right but a backward pass in eval mode fails (the output has no grad_fn; A, B and x get no gradient).

question: lora_tests
replaces: lora
hunt: 2026-12-d
adds: LoRALinear._lora
stated: "in training and evaluation mode alike (gradients too: evaluation mode is not torch.no_grad)"
"""


class LoRALinear(nn.Module):

    def _lora(self, x):
        return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)

    def forward(self, x):
        if not self.training:
            with torch.no_grad():   # evaluation: no need to build a graph
                return self._lora(x)
        return self._lora(x)
