"""A run and what it is made of: the run folder every command writes under (``folder.Run``), its intake
manifest (``manifest``), the results store (``store``), the shards of a class graded in parts (``shards``),
their merge into one run (``merge``), and a batch graded again over its run: what it keeps and what moved
(``regrade``)."""
