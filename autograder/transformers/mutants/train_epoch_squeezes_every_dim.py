"""Squeezes the logits with .squeeze() instead of .squeeze(1): the same for batches of several reviews, but
a last batch of one review gives a 0-dimensional logit that the criterion cannot compare with its (1,)
labels.

question: train_eval_loops_tests
replaces: train_eval_loops
contract: logits = model(**inputs).squeeze(1)
"""


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    total_loss, total_accuracy = 0.0, 0.0
    for batch in loader:
        batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
        labels = batch.pop("labels")
        logits = model(**batch).squeeze()
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        total_accuracy += binary_accuracy(logits.detach(), labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
