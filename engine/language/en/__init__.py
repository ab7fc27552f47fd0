"""English: the data the language toolkit reads (stop words, number words, units, abbreviations, question
patterns, status words), one module or data file per kind of knowledge."""
