"""Leaves out model.train(): after predict_classes has run, fine-tuning continues in evaluation mode
with dropout switched off.

question: finetune_tests
replaces: finetune
contract: train_classifier puts the model in training mode
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="fine-tune", disable=not progress, leave=False):
        pick = order[start : start + batch_size]
        x, n, y = inputs[pick].to(device), lengths[pick].to(device), labels[pick].to(device)
        loss = F.cross_entropy(model(x, mask, n), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
