#!/usr/bin/env python3
"""Hand-emulation of kustomize-controller for one Flux Kustomization, used to
derive held-out expectations independently of capreport.

usage: fluxrender.py ROOT KS_FILE KS_NAME [extra substitutions as K=V ...]

Copies ROOT to a temp dir, amends spec.path's kustomization.yaml the way
fluxcd/pkg/kustomize's generator does (targetNamespace -> namespace,
spec.components appended, spec.patches appended; a directory without a
kustomization gets one listing its sub-kustomizations and YAML files),
runs `kustomize build --load-restrictor LoadRestrictionsNone`, then applies
Flux's envsubst with spec.postBuild.substitute (+ K=V given on the command
line, standing for substituteFrom values), honouring
kustomize.toolkit.fluxcd.io/substitute: disabled. Prints the result.
"""
import os, re, shutil, subprocess, sys, tempfile
import yaml

KUSTOMIZE = "/tmp/refbin/kustomize"


def load_ks(path, name):
    for d in yaml.safe_load_all(open(path)):
        if d and d.get("kind") == "Kustomization" and d["metadata"]["name"] == name \
                and d["apiVersion"].startswith("kustomize.toolkit.fluxcd.io"):
            return d
    raise SystemExit(f"no Flux Kustomization {name} in {path}")


def generate(dirpath):
    """Flux's generator for a directory with no kustomization.yaml."""
    res = []
    for entry in sorted(os.listdir(dirpath)):
        p = os.path.join(dirpath, entry)
        if os.path.isdir(p):
            if entry.startswith("."):
                continue
            if any(os.path.exists(os.path.join(p, k)) for k in ("kustomization.yaml", "kustomization.yml", "Kustomization")):
                res.append(entry)
            else:
                sub = generate(p)
                res.extend(os.path.join(entry, s) for s in sub)
        elif entry.endswith((".yaml", ".yml")):
            txt = open(p).read()
            if re.search(r"^apiVersion:", txt, re.M) and re.search(r"^kind:", txt, re.M):
                res.append(entry)
    return res


VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[=-])((?:(?!\$\{)[^}])*))?\}")


def envsubst(text, vars):
    def rep(m):
        name, op, default = m.group(1), m.group(2), m.group(3)
        if name in vars and (vars[name] != "" or op in (None, "-", "=")):
            return vars[name]
        if op in (":=", ":-", "=", "-"):
            return default
        return ""  # Flux (non-strict) substitutes empty
    for _ in range(10):  # innermost first, as drone/envsubst resolves nested defaults
        new = VAR.sub(rep, text)
        if new == text:
            break
        text = new
    return text


def main():
    root, ksfile, ksname = sys.argv[1:4]
    extra = dict(a.split("=", 1) for a in sys.argv[4:])
    ks = load_ks(ksfile, ksname)
    spec = ks["spec"]
    tmp = tempfile.mkdtemp()
    work = os.path.join(tmp, "repo")
    shutil.copytree(root, work, symlinks=True)
    path = os.path.normpath(os.path.join(work, spec.get("path", ".").lstrip("/")))
    kfile = None
    for k in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
        if os.path.exists(os.path.join(path, k)):
            kfile = os.path.join(path, k)
    if kfile is None:
        kfile = os.path.join(path, "kustomization.yaml")
        kz = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
              "resources": generate(path)}
    else:
        kz = yaml.safe_load(open(kfile)) or {}
    if spec.get("targetNamespace"):
        kz["namespace"] = spec["targetNamespace"]
    if spec.get("namePrefix"):
        kz["namePrefix"] = spec["namePrefix"]
    if spec.get("nameSuffix"):
        kz["nameSuffix"] = spec["nameSuffix"]
    if spec.get("components"):
        kz["components"] = (kz.get("components") or []) + spec["components"]
    if spec.get("patches"):
        kz["patches"] = (kz.get("patches") or []) + spec["patches"]
    if spec.get("images"):
        kz["images"] = (kz.get("images") or []) + spec["images"]
    with open(kfile, "w") as f:
        yaml.safe_dump(kz, f, sort_keys=False)
    out = subprocess.run([KUSTOMIZE, "build", "--load-restrictor", "LoadRestrictionsNone", path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(out.returncode)
    vars = dict(extra)
    vars.update({k: str(v) for k, v in ((spec.get("postBuild") or {}).get("substitute") or {}).items()})
    docs = []
    for doc in out.stdout.split("\n---\n"):
        d = yaml.safe_load(doc)
        if not d:
            continue
        ann = (d.get("metadata") or {}).get("annotations") or {}
        if ann.get("kustomize.toolkit.fluxcd.io/substitute") == "disabled" or not (spec.get("postBuild")):
            docs.append(doc)
        else:
            docs.append(envsubst(doc, vars))
    print("\n---\n".join(docs))
    shutil.rmtree(tmp)


main()
