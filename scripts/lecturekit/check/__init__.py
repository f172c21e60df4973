"""`scripts/check`: the executed lectures' outputs against the expectations in tests/expected/.

Modules, one concern each:
  normalise     executed outputs -> comparable items, and the documented text normalisers
  expectations  tests/expected/<lecture>.yaml: load, and rewrite only the entries that changed
  compare       items against items, exactly or within a cell's declared tolerance; unified diffs
  readers       which inline expressions and claims in the prose read what a cell assigned
  run           one lecture: execute (or reuse the cache), compare every cell, collect failed claims
  accept        record the new outputs of drifted cells
  envs          the same lecture under a second interpreter: the upgrade report
  report        the text report; html_report: the side-by-side HTML report
"""
