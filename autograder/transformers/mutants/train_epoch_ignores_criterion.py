"""Computes the loss with F.binary_cross_entropy_with_logits instead of the criterion it was given (the
same in the notebook's call, not with a weighted criterion).

question: train_eval_loops_tests
replaces: train_eval_loops
"""


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    total_loss, total_accuracy = 0.0, 0.0
    for batch in loader:
        batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
        labels = batch.pop("labels")
        logits = model(**batch).squeeze(1)
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        total_accuracy += binary_accuracy(logits.detach(), labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
