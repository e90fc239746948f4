"""The results layer: one record per student (``model``), where records live on disk (``store``) and the
score table the commands print (``table``). Graders write records; every exporter reads them."""
