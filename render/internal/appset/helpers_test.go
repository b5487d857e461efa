package appset

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// memRepo is an in-memory Repo: files by path, and their directories (plus any listed in dirs).
type memRepo struct {
	files map[string]string
	dirs  []string
}

func newRepo(files map[string]string, dirs ...string) memRepo {
	return memRepo{files: files, dirs: dirs}
}

func (r memRepo) Files() []string {
	var out []string
	for f := range r.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (r memRepo) Dirs() []string {
	set := map[string]bool{}
	for _, d := range r.dirs {
		for ; d != "." && d != "/"; d = path.Dir(d) {
			set[d] = true
		}
	}
	for f := range r.files {
		for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
			set[d] = true
		}
	}
	var out []string
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func (r memRepo) ReadFile(rel string) ([]byte, error) {
	s, ok := r.files[rel]
	if !ok {
		return nil, errors.New("no such file")
	}
	return []byte(s), nil
}

const thisRepo = "https://github.com/example/repo.git"

func isThisRepo(url string) bool {
	return url == thisRepo || url == "RepoURL" || url == "https://git.example.com"
}

func mustYAML(t testing.TB, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("test YAML: %v\n%s", err, text)
	}
	return m
}

// genCase runs one generator (YAML of an ApplicationSetGenerator) and compares its parameter sets, the way
// upstream's generator tests call GenerateParams.
type genCase struct {
	name       string // upstream test name where ported
	goTemplate bool
	options    []string
	generator  string
	repo       memRepo
	newGlob    bool
	want       []map[string]any // nil with wantErr
	anyOrder   bool             // compare as sets (upstream's ElementsMatch)
	wantErr    string           // substring of the error
	wantFind   []string         // checks of the problems
}

func (c genCase) run(t *testing.T) {
	t.Helper()
	e := &expander{repo: c.repo, goTemplate: c.goTemplate, options: c.options, work: workBudget,
		readLeft: maxReadBytes, seen: map[Problem]bool{}, set: "argocd/test",
		opts: Options{IsThisRepo: isThisRepo, MaxApplications: 1000, NewGitFileGlobbing: c.newGlob}}
	raw := mustYAML(t, c.generator)
	budget := maxInputNodes
	n, err := normalize(raw, true, 0, &budget)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	_, err = e.transform("generators[0]", n.(map[string]any), nil, nil, 0, func(_, p map[string]any) bool {
		got = append(got, p)
		return true
	})
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("error = %v, want one containing %q", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if c.anyOrder {
		sortParams(got)
		sortParams(c.want)
	}
	if len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
		t.Errorf("params:\n got %s\nwant %s", dump(got), dump(c.want))
	}
	assertChecks(t, e.problems, c.wantFind)
}

func sortParams(ps []map[string]any) {
	sort.SliceStable(ps, func(i, j int) bool { return fmt.Sprint(ps[i]) < fmt.Sprint(ps[j]) })
}

func dump(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return "\n" + string(b)
}

func assertChecks(t *testing.T, problems []Problem, want []string) {
	t.Helper()
	var got []string
	for _, f := range problems {
		got = append(got, f.Check)
	}
	sort.Strings(got)
	w := append([]string(nil), want...)
	sort.Strings(w)
	if strings.Join(got, ",") != strings.Join(w, ",") {
		t.Errorf("problem checks = %v, want %v\n%s", got, w, dumpFindings(problems))
	}
}

func dumpFindings(fs []Problem) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s: %s\n", f.Severity, f.Check, f.Message)
	}
	return b.String()
}

// expandCase runs Expand on an ApplicationSet (YAML) and checks the Applications and problems.
type expandCase struct {
	name     string
	appSet   string
	repo     memRepo
	max      int
	names    []string                                  // names of the Applications, in order
	check    func(t *testing.T, apps []map[string]any) // more checks, optional
	wantFind []string                                  // checks of the problems
	contains string                                    // a substring some problem's message must hold
}

func (c expandCase) run(t *testing.T) {
	t.Helper()
	res := Expand(mustYAML(t, c.appSet), c.repo, Options{IsThisRepo: isThisRepo, MaxApplications: c.max})
	var names []string
	for _, a := range res.Applications {
		names = append(names, appName(a))
	}
	if strings.Join(names, ",") != strings.Join(c.names, ",") {
		t.Errorf("applications = %v, want %v\n%s", names, c.names, dumpFindings(res.Problems))
	}
	assertChecks(t, res.Problems, c.wantFind)
	if c.contains != "" && !strings.Contains(dumpFindings(res.Problems), c.contains) {
		t.Errorf("no problem mentions %q:\n%s", c.contains, dumpFindings(res.Problems))
	}
	if c.check != nil {
		c.check(t, res.Applications)
	}
}

// field reads a dotted path ("spec.source.path", "spec.sources.1.path") of a document.
func field(doc any, dotted string) any {
	cur := doc
	for _, part := range strings.Split(dotted, ".") {
		switch t := cur.(type) {
		case map[string]any:
			cur = t[part]
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i >= len(t) {
				return nil
			}
			cur = t[i]
		default:
			return nil
		}
	}
	return cur
}
