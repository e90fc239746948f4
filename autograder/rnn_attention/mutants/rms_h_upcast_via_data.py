"""Upcasts bfloat16 inputs to float32 with x.data.float() ("convert the data, then cast back"): the values are
right, but .data cuts the graph, so in bfloat16 no gradient reaches x (weight still gets one); float32 and
float64 inputs, which skip the upcast, are differentiable as they should be.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "gradients reach x and weight" ; "float32 or float64 for bfloat16 and float16"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        h = x.data.float() if x.dtype == torch.bfloat16 else x
        rms = torch.sqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return (h / rms).to(x.dtype) * self.weight
