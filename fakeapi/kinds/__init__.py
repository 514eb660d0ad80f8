"""The kinds fakeapi serves, one folder each (schema, defaults, strategy, validation, table), and their registration."""
