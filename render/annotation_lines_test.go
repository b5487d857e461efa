package render

import (
	"reflect"
	"testing"
)

// annotationLinesCase renders a tree and checks the Origin of some objects,
// keyed Kind/name.
type annotationLinesCase struct {
	name  string
	files map[string]string
	want  map[string]Origin
}

func (c annotationLinesCase) run(t *testing.T) {
	res := renderMem(t, c.files, ".", DefaultOptions())
	got := map[string]Origin{}
	for _, o := range res.Objects {
		got[o.Kind+"/"+o.Name] = o.Origin
	}
	for k, w := range c.want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s not rendered (objects %v, sources %+v)", k, got, res.Sources)
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: origin\n  %+v\nwant\n  %+v", k, g, w)
		}
	}
}

const plainAnnotated = `# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: bare
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  labels: {app: web}
  annotations:
    capreport.io/pod-rate: "50"

    capreport.io/dead-time: 90s
    note: |
      two
      lines
    capreport.io/overload: 3x,10x
spec: {}
--- # a comment on the marker line
apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: item
      annotations: {a: "1", b: "2"}
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      annotations: &common
        shared: "yes"
      name: other
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: merged
      annotations:
        <<: *common
        own: "x"
        shared: "no"
`

const annotatedChartHPA = `{{- if .Values.enabled }}
{{- /* a comment the renderer drops */}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .Release.Name }}
  annotations:
    {{- toYaml .Values.annotations | nindent 4 }}
    fixed: "yes"
spec:
  maxReplicas: 3
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: second
  annotations:
    {{- range $k, $v := .Values.annotations }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
`

func TestAnnotationLines(t *testing.T) {
	cases := []annotationLinesCase{
		{
			name:  "plain",
			files: map[string]string{"plain/all.yaml": plainAnnotated},
			want: map[string]Origin{
				"ConfigMap/bare": {Source: "plain/all.yaml", SourceType: SourcePlain, File: "plain/all.yaml", Line: 2},
				"HorizontalPodAutoscaler/web": {Source: "plain/all.yaml", SourceType: SourcePlain, File: "plain/all.yaml", Line: 7,
					AnnotationLines: map[string]int{"capreport.io/pod-rate": 13, "capreport.io/dead-time": 15, "note": 16, "capreport.io/overload": 19}},
				"Deployment/item": {Source: "plain/all.yaml", SourceType: SourcePlain, File: "plain/all.yaml", Line: 25,
					AnnotationLines: map[string]int{"a": 29, "b": 29}},
				"Deployment/other": {Source: "plain/all.yaml", SourceType: SourcePlain, File: "plain/all.yaml", Line: 30,
					AnnotationLines: map[string]int{"shared": 34}},
				// A merged key counts at its anchor; a direct key shadows it.
				"Deployment/merged": {Source: "plain/all.yaml", SourceType: SourcePlain, File: "plain/all.yaml", Line: 36,
					AnnotationLines: map[string]int{"own": 42, "shared": 43}},
			},
		},
		{
			// Helm lines are in the template's rendered output: the leading
			// actions leave one blank line (the comment's "{{-" eats the
			// first), toYaml sorts the keys, the range writes one per line.
			name: "helm",
			files: map[string]string{
				"charts/web/Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
				"charts/web/values.yaml":        "enabled: true\nannotations:\n  capreport.io/pod-rate: \"50\"\n  capreport.io/dead-time: 45s\n",
				"charts/web/templates/hpa.yaml": annotatedChartHPA,
			},
			want: map[string]Origin{
				"HorizontalPodAutoscaler/capreport": {Source: "charts/web", SourceType: SourceHelm, File: "charts/web/templates/hpa.yaml", Line: 2,
					AnnotationLines: map[string]int{"capreport.io/dead-time": 7, "capreport.io/pod-rate": 8, "fixed": 9}},
				"ConfigMap/second": {Source: "charts/web", SourceType: SourceHelm, File: "charts/web/templates/hpa.yaml", Line: 13,
					AnnotationLines: map[string]int{"capreport.io/dead-time": 18, "capreport.io/pod-rate": 19}},
			},
		},
		{
			// Annotations a patch or commonAnnotations added or changed have
			// no line; the others keep theirs in the resource file.
			name: "kustomize",
			files: map[string]string{
				"deploy/base/kustomization.yaml": "resources:\n  - app.yaml\n",
				"deploy/base/app.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n" +
					"    capreport.io/dead-time: 90s\n    capreport.io/pod-rate: \"100\"\n    patched: before\n" +
					"---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  annotations:\n" +
					"    capreport.io/overload: 3x,10x\nspec:\n  maxReplicas: 3\n",
				"deploy/prod/kustomization.yaml": "namePrefix: prod-\nresources:\n  - ../base\ncommonAnnotations:\n  team: shop\n" +
					"patches:\n  - path: patch.yaml\n",
				"deploy/prod/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n" +
					"    patched: after\n    added: by-patch\n",
				// helmCharts inflated through krusty keep the rendered lines.
				"deploy/infl/kustomization.yaml": "helmCharts:\n  - name: local\n    releaseName: inflated\n" +
					"commonAnnotations:\n  team: shop\n",
				"deploy/infl/charts/local/Chart.yaml": "apiVersion: v2\nname: local\nversion: 0.1.0\n",
				"deploy/infl/charts/local/templates/hpa.yaml": "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n" +
					"metadata:\n  name: {{ .Release.Name }}\n  annotations:\n    capreport.io/dead-time: 30s\n    team: other\nspec:\n  maxReplicas: 3\n",
			},
			want: map[string]Origin{
				"Deployment/prod-web": {Source: "deploy/prod", SourceType: SourceKustomize, File: "deploy/base/app.yaml", Line: 1,
					AnnotationLines: map[string]int{"capreport.io/dead-time": 6, "capreport.io/pod-rate": 7}},
				"HorizontalPodAutoscaler/prod-web": {Source: "deploy/prod", SourceType: SourceKustomize, File: "deploy/base/app.yaml", Line: 10,
					AnnotationLines: map[string]int{"capreport.io/overload": 15}},
				"HorizontalPodAutoscaler/inflated": {Source: "deploy/infl", SourceType: SourceKustomize, File: "deploy/infl/charts/local/templates/hpa.yaml", Line: 1,
					AnnotationLines: map[string]int{"capreport.io/dead-time": 6}},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
