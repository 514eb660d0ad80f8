"""The controllers a real cluster runs that fakeapi's users rely on, as clients of the registries: they
read and write through the same calls a request makes, so what they do is ordinary API traffic."""
