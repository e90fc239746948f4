"""Visits the reviews in their stored order every epoch (no torch.randperm), so every epoch sees the
same batches in the same sequence.

question: finetune_tests
replaces: finetune
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="fine-tune", disable=not progress, leave=False):
        x = inputs[start : start + batch_size].to(device)
        n = lengths[start : start + batch_size].to(device)
        y = labels[start : start + batch_size].to(device)
        loss = F.cross_entropy(model(x, mask, n), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
