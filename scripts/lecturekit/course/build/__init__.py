"""The incremental build: which lectures to execute and write (builder), the record of each
lecture's products (products), the stamp that lets a render skip a lecture unread (stamp), and
executions carried between machines (bundles)."""
