"""Shuffles the windows every epoch with torch.randperm, as train_classifier does and as most training
loops do, although the skeleton asks for the rows in order: the batches hold other windows than the
ones asked for.

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="train", disable=not progress, leave=False):
        pick = order[start : start + batch_size]
        x = inputs[pick].to(device)
        y = targets[pick].to(device)
        logits = model(x, mask)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
