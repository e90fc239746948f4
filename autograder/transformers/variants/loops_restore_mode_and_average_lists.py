"""Collects the batch losses and accuracies in lists and averages them with numpy; evaluate puts the model
back in the mode it found it in (the contract says which mode each loop runs in, not which it leaves).

question: train_eval_loops_tests
replaces: train_eval_loops
"""


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    losses, accuracies = [], []
    for batch in loader:
        inputs = {name: tensor.to(DEVICE) for name, tensor in batch.items() if name != "labels"}
        labels = batch["labels"].to(DEVICE)
        optimizer.zero_grad(set_to_none=True)
        logits = model(**inputs).squeeze(1)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        accuracies.append(binary_accuracy(logits.detach(), labels).item())
    return float(np.mean(losses)), float(np.mean(accuracies))


def evaluate(model, loader, criterion):
    was_training = model.training
    model.eval()
    losses, accuracies = [], []
    with torch.no_grad():
        for batch in loader:
            inputs = {name: tensor.to(DEVICE) for name, tensor in batch.items() if name != "labels"}
            labels = batch["labels"].to(DEVICE)
            logits = model(**inputs).squeeze(1)
            losses.append(criterion(logits, labels).item())
            accuracies.append(binary_accuracy(logits, labels).item())
    model.train(was_training)
    return float(np.mean(losses)), float(np.mean(accuracies))
