"""Helpers shared by the tests: small real things to build (models, shards, checkpoints).

Tests import them as `helpers.<module>` (tests/ is on sys.path through the root conftest.py);
conftest.py files only hold fixtures.
"""
