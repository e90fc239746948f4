"""Hidden tests, stand-ins and mutants for the rnn_attention assignment (never shipped to students)."""
