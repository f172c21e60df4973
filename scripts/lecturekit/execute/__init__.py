"""Stage 2, execute: a lecture's code in one kernel (kernel, kernelenv), cached by everything that can change an
output (cache); build joins them into an ExecutedLecture; record is the typed Execution record the executed
notebook carries."""
