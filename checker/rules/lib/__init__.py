"""What rules share, one function per idea: the CSV as rules read it (``csv``), typed reads of
nodes and values shown in messages (``text``), positions inside a scalar's text
(``sources``), JSON held in strings (``json_values``), one-line fixes (``fixes``) and the data
tables (``tables``). No rules here, and nothing here imports a rule module."""
