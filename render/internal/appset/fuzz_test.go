package appset

import (
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// fuzzRepo is the tree every fuzzed ApplicationSet sees; the fuzzer also picks the content of its one file.
func fuzzRepo(content string) memRepo {
	return newRepo(map[string]string{
		"apps/a/config.yaml":    content,
		"apps/b/config.json":    `{"name": "b", "list": [1, 2]}`,
		"cluster-config/x.yaml": "- cluster: {name: dev}\n- cluster: {name: prod}\n",
	}, "apps/c/d", ".hidden/e")
}

// FuzzExpand feeds Expand arbitrary ApplicationSets (and one file of the repository). Property: no panic
// (Expand would report it as an internal error), at most MaxApplications Applications, every problem
// well-formed, and a bounded time.
func FuzzExpand(f *testing.F) {
	for _, c := range append(expandCases(), patchCases()...) {
		f.Add(c.appSet, "a: b\n")
	}
	seeds := []string{
		`{spec: {goTemplate: true, generators: [{list: {elements: [{a: "{{.b}}"}]}}], template: {metadata: {name: "{{range .a}}{{.}}{{end}}"}}}}`,
		`{spec: {generators: [{matrix: {generators: [{git: {repoURL: RepoURL, files: [{path: "apps/**"}]}}, {list: {elements: [{x: "{{path}}"}]}}]}}], template: {metadata: {name: "{{x}}-{{path.basename}}"}}}}`,
		`{spec: {goTemplate: true, generators: [{merge: {mergeKeys: [name], generators: [{git: {repoURL: RepoURL, files: [{path: "apps/*/config.*"}]}}, {list: {elements: [{name: b, extra: "1"}]}}]}}], template: {metadata: {name: "{{.name}}{{.extra}}"}}}}`,
		`{spec: {goTemplate: true, templatePatch: "spec: {project: x, source: {path: '{{.path.path}}'}}", generators: [{git: {repoURL: RepoURL, directories: [{path: "*/*"}, {path: "apps/c", exclude: true}]}}], template: {metadata: {name: "{{.path.basenameNormalized}}"}}}}`,
		`{spec: {goTemplate: true, generators: [{list: {elementsYaml: "{{ toYaml . }}"}}], template: {metadata: {name: '{{ toJson . | sha256sum | trunc 8 }}'}}}}`,
	}
	for _, s := range seeds {
		f.Add(s, "- a: 1\n- a: 2\n")
	}
	f.Fuzz(func(t *testing.T, appSetYAML, file string) {
		var appSet map[string]any
		if yaml.Unmarshal([]byte(appSetYAML), &appSet) != nil || appSet == nil {
			return
		}
		start := time.Now()
		res := Expand(appSet, fuzzRepo(file), Options{IsThisRepo: isThisRepo, MaxApplications: 20})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Expand took %v", d)
		}
		if len(res.Applications) > 20 {
			t.Errorf("%d Applications, more than MaxApplications", len(res.Applications))
		}
		for _, fd := range res.Problems {
			if strings.Contains(fd.Message, "internal error") {
				t.Fatalf("panic inside Expand: %s", fd.Message)
			}
			if fd.Check == "" || fd.Severity == "" || fd.Message == "" {
				t.Errorf("malformed problem %+v", fd)
			}
		}
		for _, a := range res.Applications {
			if a["kind"] != "Application" || appName(a) == "" {
				t.Errorf("malformed Application %v", a)
			}
		}
	})
}
