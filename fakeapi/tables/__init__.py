"""Server-side Table output for kubectl: `accept` says whether a request asks for a Table, `table`
builds it. The builders load on the first Table request (most clients never ask for one)."""
