"""`scripts/check`: the executed lectures' outputs and prose against the expectations in tests/expected/.

It reads the typed execution record (lecturekit.execute.record): the cells it checks are the record's
`CellRun`s, the prose its `ProseRun`s. Its command line is lecturekit.cli.check.

Modules, one concern each:
  records       the entries of tests/expected/ as types (Entry, CodeDigests, prose records)
  normalise     executed outputs -> comparable items, and the documented text normalisers
  expectations  tests/expected/<lecture>.yaml: load, rewrite (entries, file digests, prose values)
  compare       items against items, exactly or within a measured, explained tolerance; unified diffs
  readers       which inline expressions and claims in the prose read what a cell assigned
  prose         every inline value and claim recorded and compared: the sentence before and after
  cause         what changed since an expectation was recorded: files, environment, neither
  run           one lecture: execute (or reuse the cache), compare every cell and prose value, claims
  accept        record the new outputs and rewrite every entry
  gate          the check inside scripts/render and Quarto's pre-render
  envs          the same lecture under a second interpreter: the upgrade report
  report        the text report; html_report: the side-by-side HTML report
  markdown_report  the report in Markdown, for a CI job summary
"""
