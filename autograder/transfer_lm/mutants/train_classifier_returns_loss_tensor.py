"""Adds up the loss tensors themselves (total += loss * len(y)) instead of loss.item(): the number is
right, but train_classifier returns a tensor that holds the graph of every batch of the epoch.

question: finetune_tests
replaces: finetune
contract: train_classifier returns the mean loss as a Python float
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="fine-tune", disable=not progress, leave=False):
        pick = order[start : start + batch_size]
        x, n, y = inputs[pick].to(device), lengths[pick].to(device), labels[pick].to(device)
        logits = model(x, mask, n)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total = total + loss * len(y)
        count += len(y)
    return total / count
