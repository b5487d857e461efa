#!/usr/bin/env python3
# usage: children.py ROOT RENDER_FILE [K=V...]: renders every Flux Kustomization found in RENDER_FILE (sourceRef flux-system) and summarises.
import sys, yaml, subprocess, tempfile, os
HERE = os.path.dirname(os.path.abspath(__file__))
root, render = sys.argv[1:3]; extra = sys.argv[3:]
for d in yaml.safe_load_all(open(render)):
    if not d or d.get('kind') != 'Kustomization' or not d['apiVersion'].startswith('kustomize.toolkit'): continue
    f = tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False); yaml.safe_dump(d, f); f.close()
    out = subprocess.run(['python3', os.path.join(HERE, 'fluxrender.py'), root, f.name, d['metadata']['name']] + extra, capture_output=True, text=True)
    name = f"{d['metadata'].get('namespace')}/{d['metadata']['name']}"
    if out.returncode:
        print(f"== {name} path={d['spec']['path']} BUILD FAILED: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ''}"); continue
    os.makedirs('/tmp/render/children', exist_ok=True)
    open(f"/tmp/render/children/{d['metadata']['name']}.yaml", 'w').write(out.stdout)
    s = subprocess.run(['python3', os.path.join(HERE, 'summ.py')], input=out.stdout, capture_output=True, text=True).stdout
    print(f"== {name} path={d['spec']['path']}"); print(s, end='')
