package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
)

// TestPlan holds the CLI side to the renders capreport's report names: a
// configured value set gets its own values, release and namespace, a
// discovered chart the command line's, a Kustomize root one build, and
// what no CLI renders is counted, not run.
func TestPlan(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		".capreport.yaml":             "sources:\n  - path: charts/api\n    releaseName: api\n    valueSets:\n      - {name: prod, namespace: prod, values: [values-prod.yaml], set: [a=b]}\n",
		"charts/api/Chart.yaml":       "apiVersion: v2\nname: api\nversion: 1.0.0\n",
		"charts/api/values-prod.yaml": "a: 1\n",
		"charts/web/Chart.yaml":       "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"cli.yaml":                    "b: 2\n",
		"deploy/kustomization.yaml":   "resources: []\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := parseCapFlags([]string{"-f", "cli.yaml", "--release-name", "rel", "--render-memory", "1Gi", "-n", "demo", "-a", "x/v1"})
	if err != nil {
		t.Fatal(err)
	}
	rep := &contract.Report{Root: root, Sources: []contract.Source{
		{Path: "charts/api", Type: "helm", ValueSet: "prod", Status: "rendered"},
		{Path: "charts/web", Type: "helm", Status: "failed"},
		{Path: "deploy", Type: "kustomize", Status: "rendered"},
		{Path: "plain.yaml", Type: "plain", Status: "rendered"},
		{Path: "charts/lib", Type: "helm", Status: "skipped"},
	}}
	pl, err := newPlanner(rep, root, f, settings{helm: "helm", kustomize: "kustomize"})
	if err != nil {
		t.Fatal(err)
	}
	p := pl.plan(rep.Sources)
	r := pl.root
	want := []string{
		"helm template api " + r + "/charts/api --namespace prod --kube-version 1.34.0 --skip-tests --values " + r + "/charts/api/values-prod.yaml --set a=b",
		"helm template rel " + r + "/charts/web --namespace demo --kube-version 1.34.0 --skip-tests --values " + r + "/cli.yaml",
		"kustomize build " + r + "/deploy",
	}
	var got []string
	for _, j := range p.jobs {
		got = append(got, strings.Join(withoutAPIVersions(j.argv), " "))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(strings.Join(p.jobs[0].argv, " "), "--api-versions x/v1") {
		t.Errorf("-a x/v1 not passed on: %q", p.jobs[0].argv)
	}
	if len(p.omitted) != 2 || p.types["helm"] != 3 {
		t.Errorf("omitted %v, types %v", p.omitted, p.types)
	}
}

// withoutAPIVersions drops the --api-versions pairs (render's defaults).
func withoutAPIVersions(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		if argv[i] == "--api-versions" {
			i++
			continue
		}
		out = append(out, argv[i])
	}
	return out
}
