"""Custom resources: one strategy for every custom kind (upstream's apiextensions-apiserver customresource
registry), served from a CustomResourceDefinition at run time (see fakeapi.controllers.crd)."""
