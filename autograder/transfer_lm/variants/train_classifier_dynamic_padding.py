"""Cuts every batch to its longest review before calling the model, with the causal mask of that width
(dynamic padding), in train_classifier and predict_classes alike: the last real tokens and so the scores
are the same, with less padding computed.

question: finetune_tests
replaces: finetune
"""


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    model.train()
    device = next(model.parameters()).device
    order = torch.randperm(len(inputs))
    total = 0.0
    for start in tqdm(range(0, len(inputs), batch_size), desc="fine-tune", disable=not progress, leave=False):
        pick = order[start : start + batch_size]
        width = int(lengths[pick].max())
        x, n, y = inputs[pick, :width].to(device), lengths[pick].to(device), labels[pick].to(device)
        loss = F.cross_entropy(model(x, generate_square_subsequent_mask(width).to(device), n), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(pick)
    return total / len(inputs)


def predict_classes(model, inputs, lengths, batch_size=64):
    model.eval()
    device = next(model.parameters()).device
    predictions = []
    with torch.no_grad():
        for start in range(0, len(inputs), batch_size):
            n = lengths[start : start + batch_size]
            width = int(n.max())
            x = inputs[start : start + batch_size, :width].to(device)
            scores = model(x, generate_square_subsequent_mask(width).to(device), n.to(device))
            predictions.append(scores.argmax(dim=-1).cpu())
    return torch.cat(predictions)
