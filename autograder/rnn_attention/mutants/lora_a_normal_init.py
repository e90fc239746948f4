"""Initialises A from a normal distribution with standard deviation 0.02 (BERT's initializer_range)
instead of kaiming_uniform_(a=sqrt(5)); with 7 inputs every draw stays inside +-1/sqrt(7), but at BERT's
768 inputs (bound 0.036) many entries fall outside +-1/sqrt(in_features).

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: every entry of A within +-1/sqrt(in_features)
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.normal_(self.lora_A, std=0.02)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
