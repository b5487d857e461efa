#!/usr/bin/env python3
"""Summarise autoscalers, HelmReleases and Flux Kustomizations in a render (stdin)."""
import sys, yaml

for d in yaml.safe_load_all(sys.stdin):
    if not d or not isinstance(d, dict):
        continue
    k = d.get("kind"); md = d.get("metadata") or {}; s = d.get("spec") or {}
    ns = md.get("namespace", "-")
    if k == "HorizontalPodAutoscaler":
        ms = []
        for m in s.get("metrics") or []:
            t = m["type"]
            if t == "Resource":
                tg = m["resource"]["target"]
                ms.append(f"{m['resource']['name']} {tg.get('averageUtilization', tg.get('averageValue'))}")
            elif t == "External":
                ms.append(f"external {m['external']['metric']['name']} {m['external']['target']}")
            else:
                ms.append(str(m))
        if "targetCPUUtilizationPercentage" in s:
            ms.append(f"cpu {s['targetCPUUtilizationPercentage']}%")
        print(f"HPA {d['apiVersion']} {ns}/{md['name']} -> {s['scaleTargetRef'].get('kind')}/{s['scaleTargetRef']['name']} {s.get('minReplicas')}..{s['maxReplicas']} {ms}")
    elif k == "ScaledObject":
        t = s["scaleTargetRef"]
        print(f"SO {ns}/{md['name']} -> {t.get('kind','Deployment')}/{t['name']} {s.get('minReplicaCount')}..{s.get('maxReplicaCount')} triggers={[ (x['type'], x.get('metadata',{}).get('threshold')) for x in s.get('triggers',[])]}")
    elif k == "HelmRelease":
        c = (s.get("chart") or {}).get("spec") or {}
        print(f"HR {ns}/{md['name']} chart={c.get('chart')} src={c.get('sourceRef')} chartRef={s.get('chartRef')} target={s.get('targetNamespace')}")
    elif k == "Kustomization" and d["apiVersion"].startswith("kustomize.toolkit"):
        print(f"KS {ns}/{md['name']} path={s.get('path')} src={s.get('sourceRef')} comps={s.get('components')} tns={s.get('targetNamespace')} subst={(s.get('postBuild') or {}).get('substitute')}")
    elif k == "ResourceSet":
        print(f"RSET {ns}/{md['name']} inputs={s.get('inputs')}")
    elif k in ("GitRepository", "OCIRepository", "HelmRepository"):
        print(f"{k} {ns}/{md['name']} url={s.get('url')}")
