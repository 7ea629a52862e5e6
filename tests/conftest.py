"""Fixtures every test module may ask for by name."""

from tests.pg import pg_cluster, pg_url

__all__ = ["pg_cluster", "pg_url"]
