"""The versioned store (one resourceVersion sequence) and the watch hub that fans its changes out."""
