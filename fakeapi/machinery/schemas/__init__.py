"""The schema base (custom wire-type fields), meta/v1 schemas and strategic-merge-patch trees."""
