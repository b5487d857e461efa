package appset

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func elements(key string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{key: fmt.Sprintf("%s%d", key, i)}
	}
	return out
}

func appSetWith(goTemplate bool, generators []any, name string) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"name": "hostile", "namespace": "argocd"},
		"spec": map[string]any{
			"goTemplate": goTemplate,
			"generators": generators,
			"template": map[string]any{
				"metadata": map[string]any{"name": name},
				"spec":     map[string]any{"project": "default", "destination": map[string]any{"namespace": name}},
			},
		},
	}
}

// hostileCase is an ApplicationSet built to cost too much; it must finish fast with a problem.
type hostileCase struct {
	name      string
	appSet    map[string]any
	repo      memRepo
	maxApps   int      // at most this many Applications
	wantCheck []string // a problem with one of these checks (none: no problem needed)
}

func (c hostileCase) run(t *testing.T) {
	t.Helper()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := Expand(c.appSet, c.repo, Options{IsThisRepo: isThisRepo, MaxApplications: 1000})
	elapsed := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Generous: go test runs packages in parallel on small CI machines; a second is the usual worst.
	if elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
	if len(res.Applications) > c.maxApps {
		t.Errorf("%d Applications, want at most %d", len(res.Applications), c.maxApps)
	}
	found := len(c.wantCheck) == 0
	for _, f := range res.Problems {
		found = found || slices.Contains(c.wantCheck, f.Check)
		if strings.Contains(f.Message, "internal error") {
			t.Errorf("internal error: %s", f.Message)
		}
	}
	if !found {
		t.Errorf("no %s problem:\n%s", c.wantCheck, dumpFindings(res.Problems))
	}
	t.Logf("%v, %d Applications, %d problems", elapsed, len(res.Applications), len(res.Problems))
}

func TestHostile(t *testing.T) {
	matrix := func(second map[string]any) []any {
		return []any{map[string]any{"matrix": map[string]any{"generators": []any{
			map[string]any{"list": map[string]any{"elements": elements("a", 1000)}},
			second,
		}}}}
	}
	list1000 := map[string]any{"list": map[string]any{"elements": elements("b", 1000)}}
	filtered := map[string]any{"list": map[string]any{"elements": elements("b", 1000)},
		"selector": map[string]any{"matchLabels": map[string]any{"b": "none"}}}
	templated := elements("b", 1000)
	templated[0] = map[string]any{"b": "{{.a}}"}
	filteredTemplated := map[string]any{"list": map[string]any{"elements": templated},
		"selector": map[string]any{"matchLabels": map[string]any{"b": "none"}}}
	tmpl := func(name string) []any {
		return []any{map[string]any{"list": map[string]any{"elements": []any{map[string]any{"a": "x"}}}}}
	}
	for _, c := range []hostileCase{
		{name: "matrix of two 1000-element lists (legacy)", appSet: appSetWith(false, matrix(list1000), "{{a}}-{{b}}"), maxApps: 1000, wantCheck: []string{CheckTooMany}},
		{name: "matrix of two 1000-element lists (goTemplate)", appSet: appSetWith(true, matrix(list1000), "{{.a}}-{{.b}}"), maxApps: 1000, wantCheck: []string{CheckTooMany}},
		{name: "matrix whose second child a selector empties", appSet: appSetWith(true, matrix(filtered), "{{.a}}-{{.b}}"), maxApps: 0},
		{name: "matrix whose templated second child a selector empties", appSet: appSetWith(true, matrix(filteredTemplated), "{{.a}}-{{.b}}"), maxApps: 0, wantCheck: []string{CheckTooMany}},
		{name: "merge of two 1000 x 1000 matrices", appSet: appSetWith(false, []any{map[string]any{"merge": map[string]any{
			"mergeKeys":  []any{"a"},
			"generators": []any{matrix(list1000)[0], matrix(list1000)[0]},
		}}}, "{{a}}-{{b}}"), maxApps: 0, wantCheck: []string{CheckTooMany}},
		{name: "range over a billion", appSet: appSetWith(true, tmpl(""), "{{range 1000000000}}{{end}}"), wantCheck: []string{CheckTooMany}},
		{name: "nested ranges", appSet: appSetWith(true, tmpl(""), "{{range until 100000}}{{range until 100000}}{{end}}{{end}}"), wantCheck: []string{CheckTooMany, CheckTemplate}},
		{name: "nested ranges over ints", appSet: appSetWith(true, tmpl(""), "{{range 100000}}{{range 100000}}{{end}}{{end}}"), wantCheck: []string{CheckTooMany}},
		{name: "until a billion", appSet: appSetWith(true, tmpl(""), "{{until 1000000000}}"), wantCheck: []string{CheckTemplate}},
		{name: "repeat a billion", appSet: appSetWith(true, tmpl(""), `{{repeat 1000000000 "x"}}`), wantCheck: []string{CheckTemplate}},
		{name: "indent a billion", appSet: appSetWith(true, tmpl(""), `{{indent 1000000000 "x"}}`), wantCheck: []string{CheckTemplate}},
		{name: "printf widths", appSet: appSetWith(true, tmpl(""), strings.Repeat("{{printf \"%999999d\" 1}}", 1000)), wantCheck: []string{CheckTemplate}},
		{name: "replace everywhere", appSet: appSetWith(true, tmpl(""), `{{ $s := repeat 1000000 "x" }}{{ replace "" $s $s }}`), wantCheck: []string{CheckTemplate}},
		{name: "regexReplaceAll with $0", appSet: appSetWith(true, tmpl(""), `{{ $s := repeat 100000 "x" }}{{ regexReplaceAll "x" $s "$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0" }}`), wantCheck: []string{CheckTemplate}},
		{name: "doubling strings", appSet: appSetWith(true, tmpl(""), `{{ $s := "xx" }}{{ range until 64 }}{{ $s = printf "%s%s" $s $s }}{{ end }}`), wantCheck: []string{CheckTemplate}},
		{name: "doubling a shared dict, then printing it", appSet: appSetWith(true, tmpl(""), `{{ $d := dict }}{{ range until 64 }}{{ $d = dict "a" $d "b" $d }}{{ end }}{{ toJson $d }}`), wantCheck: []string{CheckTemplate}},
		{name: "doubling lists", appSet: appSetWith(true, tmpl(""), `{{ $l := list 1 }}{{ range until 64 }}{{ $l = concat $l $l }}{{ end }}`), wantCheck: []string{CheckTemplate}},
		{name: "a dict that holds itself", appSet: appSetWith(true, tmpl(""), `{{ $d := dict }}{{ $_ := set $d "me" $d }}{{ $d }}`), wantCheck: []string{CheckTemplate}},
		{name: "params that hold themselves", appSet: appSetWith(true, tmpl(""), `{{ $_ := set . "me" . }}{{ . }}`), wantCheck: []string{CheckTemplate}},
		{name: "recursion that branches", appSet: appSetWith(true, tmpl(""), `{{define "x"}}{{template "x" .}}{{template "x" .}}{{end}}{{template "x" .}}`), wantCheck: []string{CheckTemplate}},
		{name: "growing a list one by one", appSet: appSetWith(true, tmpl(""), `{{ $l := list }}{{ range until 1000000 }}{{ $l = append $l . }}{{ end }}`), wantCheck: []string{CheckTooMany, CheckTemplate}},
		{name: "an Application over 1 MiB", appSet: appSetWith(true, tmpl(""), `{{ repeat 600000 "x" }}`), wantCheck: []string{CheckTemplate}},
		{name: "slow crypto", appSet: appSetWith(true, tmpl(""), `{{ genPrivateKey "rsa" }}`), wantCheck: []string{CheckTemplate}},
		{name: "legacy: one tag, many times, a large value", appSet: appSetWith(false, []any{map[string]any{"list": map[string]any{"elements": []any{
			map[string]any{"a": strings.Repeat("x", 100000)}}}}}, strings.Repeat("{{a}}", 1000)), wantCheck: []string{CheckTemplate}},
		{name: "deep input", appSet: appSetWith(true, []any{deep(5000)}, "x"), wantCheck: []string{CheckInvalid}},
		{name: "many git files", appSet: appSetWith(true, []any{map[string]any{"git": map[string]any{"repoURL": thisRepo,
			"files": []any{map[string]any{"path": "**"}}}}}, "{{.path.path}}-{{.path.filename}}"), repo: manyFiles(5000), maxApps: 1000, wantCheck: []string{CheckTooMany}},
	} {
		t.Run(c.name, c.run)
	}
}

func deep(n int) map[string]any {
	m := map[string]any{"list": map[string]any{"elements": []any{map[string]any{"a": "b"}}}}
	cur := m["list"].(map[string]any)
	for i := 0; i < n; i++ {
		next := map[string]any{}
		cur["x"] = next
		cur = next
	}
	return m
}

func manyFiles(n int) memRepo {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("d%d/f%d.yaml", i%50, i)] = "a: b\n"
	}
	return newRepo(files)
}

// TestMillionMatrix is the hostile case of the brief: a matrix of two 1000-element lists would make 10^6
// Applications; Expand stops after MaxApplications+1, in well under a second and little memory.
func TestMillionMatrix(t *testing.T) {
	for _, goTemplate := range []bool{false, true} {
		name := "{{a}}-{{b}}"
		if goTemplate {
			name = "{{.a}}-{{.b}}"
		}
		appSet := appSetWith(goTemplate, []any{map[string]any{"matrix": map[string]any{"generators": []any{
			map[string]any{"list": map[string]any{"elements": elements("a", 1000)}},
			map[string]any{"list": map[string]any{"elements": elements("b", 1000)}},
		}}}}, name)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		res := Expand(appSet, newRepo(nil), Options{})
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if elapsed > 2*time.Second {
			t.Errorf("goTemplate %v: took %v", goTemplate, elapsed)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Errorf("goTemplate %v: allocated %d MiB", goTemplate, alloc>>20)
		}
		if len(res.Applications) != defaultMaxApplications {
			t.Errorf("goTemplate %v: %d Applications, want %d", goTemplate, len(res.Applications), defaultMaxApplications)
		}
		if len(res.Problems) != 1 || res.Problems[0].Check != CheckTooMany {
			t.Errorf("goTemplate %v: problems\n%s", goTemplate, dumpFindings(res.Problems))
		}
		t.Logf("goTemplate %v: %v, %d MiB allocated", goTemplate, elapsed, (after.TotalAlloc-before.TotalAlloc)>>20)
	}
}

// TestLargeButLegit makes sure the work budget leaves room for a large, honest ApplicationSet: 50
// directories times 20 environments, a template printing 2 KB of values with toYaml, 1000 Applications.
func TestLargeButLegit(t *testing.T) {
	var dirs []string
	for i := 0; i < 50; i++ {
		dirs = append(dirs, fmt.Sprintf("apps/app%d", i))
	}
	values := map[string]any{}
	for i := 0; i < 20; i++ {
		values[fmt.Sprintf("key%d", i)] = map[string]any{"enabled": true, "replicas": i, "image": "registry.example.com/team/app:1.2.3"}
	}
	var envs []any
	for i := 0; i < 20; i++ {
		envs = append(envs, map[string]any{"env": fmt.Sprintf("env%d", i), "values": values})
	}
	appSet := map[string]any{
		"metadata": map[string]any{"name": "big", "namespace": "argocd"},
		"spec": map[string]any{
			"goTemplate":        true,
			"goTemplateOptions": []any{"missingkey=error"},
			"generators": []any{map[string]any{"matrix": map[string]any{"generators": []any{
				map[string]any{"git": map[string]any{"repoURL": thisRepo, "revision": "HEAD", "directories": []any{map[string]any{"path": "apps/*"}}}},
				map[string]any{"list": map[string]any{"elements": envs}},
			}}}},
			"template": map[string]any{
				"metadata": map[string]any{"name": "{{.path.basename}}-{{.env}}", "labels": map[string]any{"env": "{{.env}}", "app": "{{.path.basename}}"}},
				"spec": map[string]any{
					"project": "{{.env}}",
					"source": map[string]any{"repoURL": thisRepo, "path": "{{.path.path}}", "helm": map[string]any{
						"values":       "{{ toYaml .values }}",
						"valuesObject": map[string]any{"env": "{{.env}}", "name": "{{ .path.basename | upper | trunc 20 }}"},
					}},
					"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "{{.path.basenameNormalized}}-{{.env}}"},
				},
			},
		},
	}
	start := time.Now()
	res := Expand(appSet, dirsRepo(dirs...), Options{IsThisRepo: isThisRepo})
	elapsed := time.Since(start)
	t.Logf("%v for %d Applications", elapsed, len(res.Applications))
	if elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if len(res.Applications) != 1000 || len(res.Problems) != 0 {
		t.Errorf("%d Applications, problems:\n%s", len(res.Applications), dumpFindings(res.Problems))
	}
}

// TestRunWorkShared: the work budget is the run's, not only each
// ApplicationSet's (issue 31: 2,000 ApplicationSets spent 100 s, each
// within its own budget). Once the run's budget is spent, every further
// ApplicationSet fails at once with a problem that says so; before, each
// expands in full.
func TestRunWorkShared(t *testing.T) {
	appSet := appSetWith(false, []any{map[string]any{"matrix": map[string]any{"generators": []any{
		map[string]any{"list": map[string]any{"elements": elements("a", 1000)}},
		map[string]any{"list": map[string]any{"elements": elements("b", 1000)}},
	}}}}, "{{a}}-{{b}}")
	run := NewRunWork(workBudget)
	var expanded, refused int
	start := time.Now()
	for i := range 2000 {
		res := Expand(appSet, newRepo(nil), Options{Run: run})
		switch {
		case len(res.Applications) > 0 && refused == 0:
			expanded++
		case len(res.Problems) == 1 && strings.Contains(res.Problems[0].Message, "ApplicationSets of this run together"):
			refused++
		default:
			t.Fatalf("ApplicationSet %d: neither expanded before the budget ran out nor refused after:\n%s", i, dumpFindings(res.Problems))
		}
	}
	// Each stops at 1,000 Applications, a small part of one call's budget:
	// some dozens fit in the run's, and none after it is spent.
	if expanded == 0 || refused == 0 {
		t.Errorf("%d expanded and %d refused, want the run's budget to stop the rest", expanded, refused)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("2,000 ApplicationSets took %v", took)
	}
}
