"""The student lifts a single vector to a batch of one and then calls .squeeze() on the result to undo it: that also
removes every other axis of size 1, so an input of shape (1, 4, 7) gives (4, 5) instead of (1, 4, 5), and a layer
with out_features = 1 on input (3, 7) gives (3,) instead of (3, 1).

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "x (..., in_features) with any number of leading axes (none too) -> (..., out_features)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        x = x if x.dim() > 1 else x.unsqueeze(0)   # a single vector becomes a batch of one
        out = self.base(x) + self.scaling * torch.matmul(torch.matmul(x, self.lora_A.T), self.lora_B.T)
        return out.squeeze()                        # drop the batch axis added above
