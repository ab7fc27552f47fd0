"""The offline answerer: the reader and its learned ranker, the calibrated decision to answer, the extractive
generator, and the reviewer with its support judge. Used when no model provider is configured, and by evaluation."""
