"""Calls model(**encoded) with everything the tokenizer returned, token_type_ids included, which
BERTGRUSentiment.forward does not take.

question: predict_sentiment_tests
replaces: predict_sentiment
contract: the model takes input_ids and attention_mask only
"""


def predict_sentiment(model, tokenizer, sentence):
    model.eval()
    encoded = tokenizer(sentence, return_tensors="pt", truncation=True, max_length=512)
    with torch.no_grad():
        logits = model(**{name: tensor.to(DEVICE) for name, tensor in encoded.items()})
    return torch.sigmoid(logits).item()
