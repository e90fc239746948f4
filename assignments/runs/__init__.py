"""A run and what it is made of: the run folder every command writes under (``folder.Run``), the results
store, the shards of a class graded in parts and their merge, and what a regrade changed (``batches``)."""
