"""Asks the tokenizer for no token_type_ids, so that model(**encoded) works, returns float(...) of the
probability, and puts the model back in the mode it found it in.

question: predict_sentiment_tests
replaces: predict_sentiment
"""


def predict_sentiment(model, tokenizer, sentence):
    was_training = model.training
    model.eval()
    encoded = tokenizer(sentence, return_tensors="pt", truncation=True, max_length=512, return_token_type_ids=False)
    with torch.no_grad():
        logit = model(**{name: tensor.to(DEVICE) for name, tensor in encoded.items()})
    model.train(was_training)
    return float(torch.sigmoid(logit)[0, 0])
