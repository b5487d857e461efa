package appset

import (
	"reflect"
	"testing"
)

func wantField(path string, want any) func(t *testing.T, apps []map[string]any) {
	return func(t *testing.T, apps []map[string]any) {
		t.Helper()
		for _, a := range apps {
			if got := field(a, path); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s = %s, want %s", appName(a), path, dump(got), dump(want))
			}
		}
	}
}

func TestExpand(t *testing.T) {
	for _, c := range expandCases() {
		t.Run(c.name, c.run)
	}
}

// expandCases also seed FuzzExpand.
func expandCases() []expandCase { return expandTable }

func guestbook(generators, extra string) string {
	return `
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: guestbook, namespace: argocd}
spec:
` + extra + `
  generators: ` + generators + `
  template:
    metadata: {name: '{{cluster}}-guestbook', labels: {team: a}}
    spec:
      project: '{{project}}'
      source: {repoURL: ` + thisRepo + `, targetRevision: HEAD, path: 'guestbook/{{cluster}}'}
      destination: {server: '{{url}}', namespace: guestbook}
`
}

const guestbookList = `[{list: {elements: [{cluster: engineering-dev, url: "https://1.2.3.4", project: ""}, {cluster: engineering-prod, url: "https://2.4.6.8", project: prod}]}}]`

var expandTable = []expandCase{
	{
		name:   "legacy list: every string templated, project defaulted, finalizer added, namespace of the ApplicationSet",
		appSet: guestbook(guestbookList, ""),
		names:  []string{"engineering-dev-guestbook", "engineering-prod-guestbook"},
		check: func(t *testing.T, apps []map[string]any) {
			want := map[string]any{
				"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
				"metadata": map[string]any{"name": "engineering-dev-guestbook", "namespace": "argocd",
					"labels": map[string]any{"team": "a"}, "finalizers": []any{resourcesFinalizer}},
				"spec": map[string]any{"project": "default",
					"source":      map[string]any{"repoURL": thisRepo, "targetRevision": "HEAD", "path": "guestbook/engineering-dev"},
					"destination": map[string]any{"server": "https://1.2.3.4", "namespace": "guestbook"}},
			}
			if !reflect.DeepEqual(apps[0], want) {
				t.Errorf("got %s\nwant %s", dump(apps[0]), dump(want))
			}
			if p := field(apps[1], "spec.project"); p != "prod" {
				t.Errorf("project = %v", p)
			}
		},
	},
	{
		name:   "preserveResourcesOnDeletion: no finalizer (TestRenderTemplateParamsFinalizers)",
		appSet: guestbook(guestbookList, "  syncPolicy: {preserveResourcesOnDeletion: true}"),
		names:  []string{"engineering-dev-guestbook", "engineering-prod-guestbook"},
		check:  wantField("metadata.finalizers", nil),
	},
	{
		name: "goTemplate with a generator template override (TestMergeTemplateApplications)",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - list:
      elements: [{name: app1}]
      template:
        metadata: {name: 'test-{{.name}}', labels: {foo: bar}}
        spec: {destination: {namespace: override}}
  template:
    metadata: {name: name, namespace: namespace, labels: {label_name: label_value}}
    spec: {project: p, destination: {server: "https://kubernetes.default.svc", namespace: base}}
`,
		names: []string{"test-app1"},
		check: func(t *testing.T, apps []map[string]any) {
			if got := field(apps[0], "metadata.labels"); !reflect.DeepEqual(got, map[string]any{"foo": "bar", "label_name": "label_value"}) {
				t.Errorf("labels = %v", got)
			}
			dest := map[string]any{"server": "https://kubernetes.default.svc", "namespace": "override"}
			if got := field(apps[0], "spec.destination"); !reflect.DeepEqual(got, dest) {
				t.Errorf("destination = %v", got)
			}
			if got := field(apps[0], "metadata.namespace"); got != "argocd" {
				t.Errorf("namespace = %v, want the ApplicationSet's", got)
			}
		},
	},
	{
		name: "git directories with exclude",
		appSet: `
metadata: {name: cluster-addons, namespace: argocd}
spec:
  goTemplate: true
  goTemplateOptions: ["missingkey=error"]
  generators:
  - git:
      repoURL: ` + thisRepo + `
      revision: HEAD
      directories:
      - path: 'cluster-addons/*'
      - path: cluster-addons/exclude-helm-guestbook
        exclude: true
  template:
    metadata: {name: '{{.path.basename}}'}
    spec:
      project: my-project
      source: {repoURL: ` + thisRepo + `, targetRevision: HEAD, path: '{{.path.path}}'}
      destination: {server: "https://kubernetes.default.svc", namespace: '{{.path.basenameNormalized}}'}
`,
		repo:  dirsRepo("cluster-addons/argo-workflows", "cluster-addons/helm_guestbook", "cluster-addons/exclude-helm-guestbook", "other/x"),
		names: []string{"argo-workflows", "helm_guestbook"},
		check: func(t *testing.T, apps []map[string]any) {
			if got := field(apps[1], "spec.destination.namespace"); got != "helm-guestbook" {
				t.Errorf("namespace = %v", got)
			}
			if got := field(apps[1], "spec.source.path"); got != "cluster-addons/helm_guestbook" {
				t.Errorf("path = %v", got)
			}
		},
	},
	{
		name: "git files holding a YAML list",
		appSet: `
metadata: {name: guestbook, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - git:
      repoURL: ` + thisRepo + `
      revision: HEAD
      files: [{path: "cluster-config/**/config.yaml"}]
  template:
    metadata: {name: '{{.cluster.name}}-guestbook'}
    spec:
      source: {repoURL: ` + thisRepo + `, path: 'apps/{{index .path.segments 1}}'}
      destination: {server: '{{.cluster.address}}', namespace: guestbook}
`,
		repo: newRepo(map[string]string{
			"cluster-config/engineering/config.yaml": "- cluster: {name: dev, address: 'https://1.2.3.4'}\n- cluster: {name: prod, address: 'https://2.4.6.8'}\n",
		}),
		names: []string{"dev-guestbook", "prod-guestbook"},
		check: wantField("spec.source.path", "apps/engineering"),
	},
	{
		name: "unsupported generators yield nothing, the others still do",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  generators:
  - clusters: {}
  - clusterDecisionResource: {configMapRef: cm}
  - scmProvider: {github: {organization: o}}
  - pullRequest: {github: {owner: o, repo: r}}
  - plugin: {configMapRef: {name: p}}
  - list: {elements: [{name: only}]}
  - matrix: {generators: [{list: {elements: [{name: m}]}}, {clusters: {}}]}
  - bogus: {}
  template: {metadata: {name: '{{name}}'}, spec: {}}
`,
		names:    []string{"only"},
		wantFind: []string{CheckUnsupported, CheckUnsupported, CheckUnsupported, CheckUnsupported, CheckUnsupported, CheckUnsupported, CheckUnsupported},
		contains: "generators[6].matrix.generators[1].clusters",
	},
	{
		name: "another repository",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  generators: [{git: {repoURL: "https://github.com/someone/else.git", revision: HEAD, directories: [{path: "*"}]}}]
  template: {metadata: {name: '{{path.basename}}'}, spec: {}}
`,
		repo:     dirsRepo("a"),
		wantFind: []string{CheckOtherRepo},
		contains: "someone/else",
	},
	{
		name: "a template error leaves the ApplicationSet with no Application",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  goTemplate: true
  goTemplateOptions: ["missingkey=error"]
  generators: [{list: {elements: [{name: a}, {name: b, extra: x}]}}]
  template: {metadata: {name: '{{.name}}-{{.extra}}'}, spec: {}}
`,
		wantFind: []string{CheckTemplate},
		contains: `map has no entry for key "extra"`,
	},
	{
		name: "duplicate names: neither is created",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  generators: [{list: {elements: [{name: a}, {name: a}, {name: b}]}}]
  template: {metadata: {name: '{{name}}'}, spec: {}}
`,
		names:    []string{"b"},
		wantFind: []string{CheckInvalid},
		contains: "duplicate name: a",
	},
	{
		name: "an empty parameter set renders nothing (RenderTemplateParams returns the template)",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  goTemplate: true
  generators: [{list: {elements: [{}]}}]
  template: {metadata: {name: 'x{{.name}}'}, spec: {}}
`,
		names: []string{"x{{.name}}"},
		check: wantField("metadata.finalizers", nil),
	},
	{
		name: "MaxApplications keeps the first ones",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  generators: [{list: {elements: [{name: c}, {name: b}, {name: a}, {name: d}]}}]
  template: {metadata: {name: '{{name}}'}, spec: {}}
`,
		max:      2,
		names:    []string{"b", "c"},
		wantFind: []string{CheckTooMany},
	},
	{
		name: "invalid spec",
		appSet: `
metadata: {name: s, namespace: argocd}
spec: {goTemplate: "yes", generators: []}
`,
		wantFind: []string{CheckInvalid},
		contains: "spec.goTemplate must be a boolean",
	},
	{
		name: "nested matrix with git files and values",
		appSet: `
metadata: {name: s, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - matrix:
      generators:
      - git: {repoURL: ` + thisRepo + `, revision: HEAD, files: [{path: "envs/*.yaml"}], values: {env: '{{trimSuffix ".yaml" .path.filename}}'}}
      - matrix:
          generators:
          - list: {elements: [{region: eu}, {region: us}]}
          # Upstream renders this child with the outer first child's parameters (no region yet), so
          # a nested second child can only use those.
          - list: {elements: [{app: '{{.values.env}}'}]}
  template:
    metadata: {name: '{{.app}}-{{.region}}'}
    spec: {destination: {server: '{{.server}}'}}
`,
		repo:  newRepo(map[string]string{"envs/dev.yaml": "server: https://dev", "envs/prod.yaml": "server: https://prod"}),
		names: []string{"dev-eu", "dev-us", "prod-eu", "prod-us"},
	},
}

// Ported from controllers/template/patch_test.go Test_ApplyTemplatePatch and TestError.
func TestTemplatePatch(t *testing.T) {
	for _, c := range patchCases() {
		t.Run(c.name, c.run)
	}
}

func patchCases() []expandCase { return patchTable }

func patchAppSet(patch string) string {
	return `
metadata: {name: s, namespace: namespace}
spec:
  goTemplate: true
  generators: [{list: {elements: [{cluster: my-cluster}]}}]
  template:
    metadata: {name: '{{.cluster}}-guestbook'}
    spec:
      project: default
      source: {repoURL: "https://github.com/argoproj/argocd-example-apps.git", targetRevision: HEAD, path: guestbook}
      destination: {server: "https://kubernetes.default.svc", namespace: guestbook}
  templatePatch: ` + patch
}
func patched(t *testing.T, apps []map[string]any) {
	want := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "my-cluster-guestbook", "namespace": "namespace", "finalizers": []any{resourcesFinalizer},
			"annotations": map[string]any{"annotation-some-key": "annotation-some-value"}},
		"spec": map[string]any{"project": "default",
			"source": map[string]any{"repoURL": "https://github.com/argoproj/argocd-example-apps.git", "targetRevision": "HEAD", "path": "guestbook",
				"helm": map[string]any{"valueFiles": []any{"values.test.yaml", "values.big.yaml"}}},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
			"syncPolicy":  map[string]any{"automated": map[string]any{"prune": true}}},
	}
	if !reflect.DeepEqual(apps[0], want) {
		t.Errorf("got %s\nwant %s", dump(apps[0]), dump(want))
	}
}

const yamlPatch = `|
    metadata:
      annotations:
        annotation-some-key: annotation-some-value
    spec:
      source:
        helm:
          valueFiles:
            - values.test.yaml
            - values.big.yaml
      syncPolicy:
        automated:
          prune: true`
const jsonPatch = `'{"metadata": {"annotations": {"annotation-some-key": "annotation-some-value"}}, "spec": {"source": {"helm": {"valueFiles": ["values.test.yaml", "values.big.yaml"]}}, "syncPolicy": {"automated": {"prune": true}}}}'`

var patchTable = []expandCase{
	{name: "patch with JSON", appSet: patchAppSet(jsonPatch), names: []string{"my-cluster-guestbook"}, check: patched},
	{name: "patch with YAML", appSet: patchAppSet(yamlPatch), names: []string{"my-cluster-guestbook"}, check: patched},
	{name: "project field isn't overwritten", appSet: patchAppSet(`"spec: {project: my-project}"`), names: []string{"my-cluster-guestbook"},
		check: wantField("spec.project", "default")},
	{name: "the patch is templated", appSet: patchAppSet(`"spec: {destination: {namespace: '{{.cluster}}'}}"`), names: []string{"my-cluster-guestbook"},
		check: wantField("spec.destination.namespace", "my-cluster")},
	{name: "null deletes", appSet: patchAppSet(`"spec: {destination: {namespace: null}}"`), names: []string{"my-cluster-guestbook"},
		check: wantField("spec.destination", map[string]any{"server": "https://kubernetes.default.svc"})},
	{name: "TestError", appSet: patchAppSet(`"hello world"`), wantFind: []string{CheckTemplate}, contains: "invalid templatePatch"},
}
