"""Ends the loop at range(0, len(inputs) - batch_size, batch_size) to keep the last slice from running
past the end: the reviews of the last batch, the one that starts at len(inputs) - batch_size or later,
are never trained on.

question: finetune_tests
replaces: finetune
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0) - batch_size, batch_size), desc="fine-tune", disable=not progress):
        pick = order[start : start + batch_size]
        x, n, y = inputs[pick].to(device), lengths[pick].to(device), labels[pick].to(device)
        logits = model(x, mask, n)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
