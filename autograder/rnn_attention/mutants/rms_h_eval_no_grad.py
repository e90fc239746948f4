"""Saves memory at inference by running forward under torch.no_grad() whenever the module is in evaluation mode:
the values are right, but in eval mode no gradient reaches x or weight (the docstring says forward stays
differentiable, with no mode exempted; eval mode is also used for fine-tuning with frozen dropout).

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "forward stays differentiable in both modes: gradients reach x and weight"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        with torch.set_grad_enabled(self.training and torch.is_grad_enabled()):
            rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
            return x / rms * self.weight
