"""Per-resource strategies: what happens to an object on create, update and delete."""
