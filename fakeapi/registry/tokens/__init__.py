"""Service account tokens: the server's signing key and issuer, the tokens TokenRequest and the tokens
controller make, and the authenticator that reads them back (upstream's pkg/serviceaccount)."""
