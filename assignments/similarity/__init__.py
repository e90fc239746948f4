"""Similarity between students' answers: winnowed fingerprints compared cell by cell (``compare``) and the
staff-only report of the pairs worth a look (``report``, ``course similarity``)."""
