"""metadata.managedFields: field paths and sets, and the field manager that keeps them."""
