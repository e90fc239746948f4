"""Zeroes the gradients at the top of each step, builds the mask per batch from the batch's own length,
sums the token losses with reduction="sum" and divides by the token count: the same epoch in another
order of operations.

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    model.train()
    device = next(model.parameters()).device
    total, count = 0.0, 0
    starts = range(0, len(inputs), batch_size)
    for start in tqdm(starts, desc="train", disable=not progress, leave=False):
        optimizer.zero_grad()
        x, y = inputs[start : start + batch_size].to(device), targets[start : start + batch_size].to(device)
        logits = model(x, generate_square_subsequent_mask(x.size(1)).to(device))
        summed = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), reduction="sum")
        (summed / y.numel()).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=clip)
        optimizer.step()
        total, count = total + summed.item(), count + y.numel()
    return total / count
