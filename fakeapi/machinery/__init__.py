"""Kind-independent machinery: errors, field errors, selectors, quantities, schemas, patches, managedFields."""
