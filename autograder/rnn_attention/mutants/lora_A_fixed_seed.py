"""Calls torch.manual_seed(0) before initialising A "so that runs are reproducible"; every adapter of the same
shape then starts from the same A (the query and value adapters of all layers share one draw), and the caller's
random stream restarts each time an adapter is built.

question: lora_tests
replaces: lora
contract: each new LoRALinear draws its own A from torch's random state
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        torch.manual_seed(0)
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
