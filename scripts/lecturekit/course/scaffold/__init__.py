"""Throwaway projects built the same way for the tests and the benchmark."""
