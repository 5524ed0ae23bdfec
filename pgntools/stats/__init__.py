"""`pgntools stats` (issue 21): a game collection's counts, histograms and top values in one
pass, in bounded memory, as a text summary, a JSON document and a one-file HTML report.

  counts.py     the bounded, mergeable aggregates (histograms, Misra-Gries value counts)
  aggregate.py  what is counted, a batch at a time over the batch's columns; the JSON document
  text.py       the terminal's summary          svg.py  the charts      html.py  the report

The run's sink, StatsSink (workers' aggregates merged in input order), is pgntools.sinks.stats.
"""
