package genrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Kind is how WriteKind delivers the generated autoscalers.
type Kind string

// The source kinds capreport renders.
const (
	Plain     Kind = "plain"     // manifests as Write writes them
	Helm      Kind = "helm"      // one chart whose values list the apps
	Kustomize Kind = "kustomize" // an overlay over a base of Write's manifests
	Flux      Kind = "flux"      // a Flux Kustomization delivering Write's manifests
	ArgoCD    Kind = "argocd"    // an Argo CD Application delivering the chart
)

// Kinds lists every Kind.
var Kinds = []Kind{Helm, Kustomize, Plain, Flux, ArgoCD}

// RepoURL is the URL the Flux and Argo CD objects name the repository by;
// pass it to the renderer (render.Options.RepoURLs) to follow them.
const RepoURL = "https://github.com/example/generated.git"

// WriteKind creates n autoscalers (with their Deployments) under dir,
// delivered as kind says. Every kind prices the same autoscalers: the Helm
// chart renders from values what Write writes as files.
func WriteKind(dir string, kind Kind, n int) error {
	switch kind {
	case Plain:
		return Write(dir, n)
	case Helm:
		return writeChart(dir, n)
	case Kustomize:
		return writeOverlay(dir, n)
	case Flux:
		return writeFlux(dir, n)
	case ArgoCD:
		return writeArgo(dir, n)
	}
	return fmt.Errorf("genrepo: unknown kind %q", kind)
}

// writeFiles writes name -> content under dir.
func writeFiles(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// chartTemplate renders Write's CPU apps and Kafka consumers from values.
const chartTemplate = `{{- range .Values.apps }}
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .name }}, namespace: {{ .namespace }}}
spec:
  replicas: {{ .replicas }}
  selector: {matchLabels: {app: {{ .name }}}}
  template:
    metadata: {labels: {app: {{ .name }}}}
    spec:
      containers:
        - name: app
          image: example/app:{{ .name }}
          resources: {requests: {cpu: {{ .request | quote }}}, limits: {cpu: {{ .limit | quote }}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  annotations:
    capreport.io/dead-time: {{ .deadTime }}
    capreport.io/pod-rate: "100"
    capreport.io/latency-target: 5m
    capreport.io/overload: 3x,10x,30x
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: {{ .name }}}
  minReplicas: {{ .replicas }}
  maxReplicas: 5000
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: {{ .target }}}}
---
{{- end }}
`

// writeChart writes a chart at dir whose values hold n apps.
func writeChart(dir string, n int) error {
	targets := []int{50, 60, 70, 80}
	limits := []string{"1", "1", "2", "1500m"}
	var vals strings.Builder
	vals.WriteString("apps:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&vals, "  - {name: app-%d, namespace: ns-%d, replicas: %d, request: \"1\", limit: %q, deadTime: %ds, target: %d}\n",
			i, i%20, 3+i%17, limits[i%len(limits)], 30+15*(i%7), targets[i%len(targets)])
	}
	return writeFiles(dir, map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
		"values.yaml":         vals.String(),
		"templates/apps.yaml": chartTemplate,
	})
}

// writeOverlay writes Write's manifests as a base and an overlay that
// labels them and patches every HPA's maxReplicas.
func writeOverlay(dir string, n int) error {
	base := filepath.Join(dir, "base")
	if err := Write(base, n); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(base, "*.yaml"))
	if err != nil {
		return err
	}
	var k strings.Builder
	k.WriteString("resources:\n")
	for _, f := range files {
		fmt.Fprintf(&k, "  - %s\n", filepath.Base(f))
	}
	return writeFiles(dir, map[string]string{
		"base/kustomization.yaml": k.String(),
		"overlays/prod/kustomization.yaml": `resources: [../../base]
labels:
  - pairs: {env: prod}
patches:
  - target: {kind: HorizontalPodAutoscaler}
    patch: |
      - op: replace
        path: /spec/maxReplicas
        value: 4000
`,
	})
}

// writeFlux writes Write's manifests under apps/ and the flux-system
// objects of a bootstrapped cluster that deliver them.
func writeFlux(dir string, n int) error {
	if err := Write(filepath.Join(dir, "apps"), n); err != nil {
		return err
	}
	return writeFiles(dir, map[string]string{
		"clusters/prod/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec:
  interval: 1m0s
  ref: {branch: main}
  url: ` + RepoURL + `
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec:
  interval: 10m0s
  path: ./clusters/prod
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`,
		"clusters/prod/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
		"clusters/prod/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`,
	})
}

// writeArgo writes the chart under charts/apps and an Argo CD
// Application that delivers it.
func writeArgo(dir string, n int) error {
	if err := writeChart(filepath.Join(dir, "charts", "apps"), n); err != nil {
		return err
	}
	return writeFiles(dir, map[string]string{
		"argocd/apps.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: apps, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: apps}
  source:
    repoURL: ` + RepoURL + `
    targetRevision: HEAD
    path: charts/apps
`,
	})
}
