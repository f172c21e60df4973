"""The preview server: a lecture's deck served locally and reloaded on every save (server),
whom it answers (access), and the fast path for one changed section (splice)."""
