"""kubectl with CustomResourceDefinitions: apply a CRD then a custom resource right after, get them by short
name, in `get all`, with their printer columns, explain them, scale them, and see the schema's errors."""

from __future__ import annotations

import re

import yaml

from tests.crds import crd, crontab
from tests.kubectl.conftest import Kubectl


def table(text: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in text.strip().splitlines()]


def test_apply_a_crd_then_its_custom_resources_and_read_them_as_on_a_cluster(kubectl: Kubectl) -> None:
    kubectl.ok("apply", "-f", kubectl.write("crd.yaml", yaml.safe_dump(crd())))
    kubectl.ok("apply", "-f", kubectl.write("cr.yaml", yaml.safe_dump(crontab("nightly", replicas=2))))
    rows = table(kubectl.ok("get", "ct"))
    assert rows[0] == ["NAME", "SPEC", "REPLICAS"] and rows[1] == ["nightly", "* * * * */5", "2"]
    wide = table(kubectl.ok("get", "crontabs", "-o", "wide"))
    assert wide[0] == ["NAME", "SPEC", "REPLICAS", "IMAGE"] and wide[1][-1] == "cron:1"
    assert "crontab.stable.example.com/nightly" in kubectl.ok("get", "all")
    assert kubectl.ok("scale", "ct", "nightly", "--replicas=4").strip() == "crontab.stable.example.com/nightly scaled"
    assert kubectl.ok("get", "ct", "nightly", "-o", "jsonpath={.spec.replicas}") == "4"
    explained = kubectl.ok("explain", "crontab.spec")
    assert re.search(r"^GROUP:\s+stable.example.com$", explained, re.MULTILINE)
    assert re.search(r"^\s+replicas\s+<integer>", explained, re.MULTILINE)
    bad = kubectl("apply", "-f", kubectl.write("bad.yaml", yaml.safe_dump(crontab("bad", replicas=20))))
    assert bad.rc == 1, bad
    assert ('The CronTab "bad" is invalid: spec.replicas: Invalid value: 20: spec.replicas in body should be less '
            "than or equal to 10") in bad.err
    kubectl.ok("delete", "crd", "crontabs.stable.example.com")
    gone = kubectl("get", "ct")
    # kubectl's discovery cache still knows the kind: the list is a 404, as right after a delete on a cluster
    assert gone.rc == 1 and 'Unable to list "stable.example.com/v1, Resource=crontabs"' in gone.err


def test_explain_shows_embedded_resources_and_cel_errors_as_a_cluster_does(kubectl: Kubectl) -> None:
    template = {"type": "object", "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True}
    spec = {"type": "object", "properties": {"template": template, "size": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.sizes > 0"}]}
    body = crd()
    body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = spec
    body["spec"]["versions"][0].pop("additionalPrinterColumns")
    body["spec"]["versions"][0].pop("selectableFields")
    body["spec"]["versions"][0]["subresources"].pop("scale")
    refused = kubectl("apply", "-f", kubectl.write("crd.yaml", yaml.safe_dump(body)))
    assert refused.rc == 1, refused
    assert "compilation failed: ERROR: <input>:1:5: undefined field 'sizes'" in refused.err
    spec["x-kubernetes-validations"] = [{"rule": "self.size > 0"}]
    kubectl.ok("apply", "-f", kubectl.write("crd.yaml", yaml.safe_dump(body)))
    explained = " ".join(kubectl.ok("explain", "crontab.spec.template").split())
    assert "FIELD: template <Object>" in explained
    assert ("apiVersion <string> -required- apiVersion defines the versioned schema of this representation of an "
            "object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
            "#resources") in explained
    assert ("kind <string> -required- kind is a string value representing the type of this object. In CamelCase. "
            "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
            "#types-kinds") in explained
    assert "metadata <ObjectMeta> Standard object's metadata." in explained
