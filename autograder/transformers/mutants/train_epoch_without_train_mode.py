"""Never calls model.train() in train_epoch: after the first evaluate() the model stays in eval mode, so
every later epoch trains with dropout switched off.

question: train_eval_loops_tests
replaces: train_eval_loops
contract: train_epoch puts the model in training mode
"""


def train_epoch(model, loader, optimizer, criterion):
    total_loss, total_accuracy = 0.0, 0.0
    for batch in loader:
        batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
        labels = batch.pop("labels")
        logits = model(**batch).squeeze(1)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        total_accuracy += binary_accuracy(logits.detach(), labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
