package render

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// The corpus (../shared/corpus next to the repository) holds real charts
// and overlays; its README says what a correct render contains.

// findCorpus walks up from the package directory to the module root (the
// directory holding go.mod) and returns ../shared/corpus from there.
// CAPREPORT_CORPUS overrides the location (scripts/bench-render.sh).
func findCorpus() (string, bool) {
	if c := os.Getenv("CAPREPORT_CORPUS"); c != "" {
		_, err := os.Stat(filepath.Join(c, "README.md"))
		return c, err == nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(c, "README.md")); err != nil {
		return "", false
	}
	return c, true
}

type corpusAutoscaler struct {
	kind, name, namespace, apiVersion string
}

type corpusCase struct {
	name       string
	kind       string // "helm", "kustomize", "plain"
	renderRoot string // kustomize
	// Helm: defaults render; failDefaults when the README says it fails.
	defaultsHPA, defaultsSO int
	failDefaults            bool
	// The values render (Helm with capreport-values.yaml) or the only render.
	wantHPA, wantSO int
	autoscalers     []corpusAutoscaler
	hasValues       bool
}

var (
	countRE      = regexp.MustCompile(`(no|one|two|three|four|five|\d+) (HorizontalPodAutoscalers?|ScaledObjects?)`)
	autoscalerRE = regexp.MustCompile("^\\s+- (HorizontalPodAutoscaler|ScaledObject) `([^`]+)` in `([^`]+)` \\(([^)]+)\\)")
	rootRE       = regexp.MustCompile("Render root inside this directory: `([^`]+)`")
)

func words(s string) int {
	switch s {
	case "no":
		return 0
	case "one":
		return 1
	case "two":
		return 2
	case "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	}
	n, _ := strconv.Atoi(s)
	return n
}

func counts(line string) (hpa, so int) {
	for _, m := range countRE.FindAllStringSubmatch(line, -1) {
		if strings.HasPrefix(m[2], "Horizontal") {
			hpa = words(m[1])
		} else {
			so = words(m[1])
		}
	}
	return hpa, so
}

// parseCorpusREADME reads the expectations of every case.
func parseCorpusREADME(t *testing.T, dir string) []corpusCase {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	var c *corpusCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			cases = append(cases, corpusCase{name: strings.TrimSpace(line[3:])})
			c = &cases[len(cases)-1]
			_, err := os.Stat(filepath.Join(dir, c.name, "capreport-values.yaml"))
			c.hasValues = err == nil
		case c == nil:
		case strings.HasPrefix(line, "- Kind: "):
			switch k := strings.ToLower(line); {
			case strings.Contains(k, "helm"):
				c.kind = "helm"
			case strings.Contains(k, "kustomize"):
				c.kind = "kustomize"
			default:
				c.kind = "plain"
			}
		case rootRE.MatchString(line):
			c.renderRoot = rootRE.FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "- With the chart defaults:"):
			c.failDefaults = strings.Contains(line, "render fails")
			c.defaultsHPA, c.defaultsSO = counts(line)
		case strings.HasPrefix(line, "- With `capreport-values.yaml` added:"), strings.HasPrefix(line, "- Expected:"):
			c.wantHPA, c.wantSO = counts(line)
		case autoscalerRE.MatchString(line):
			m := autoscalerRE.FindStringSubmatch(line)
			ns := m[3]
			if ns == "(no namespace)" {
				ns = ""
			}
			c.autoscalers = append(c.autoscalers, corpusAutoscaler{kind: m[1], name: m[2], namespace: ns, apiVersion: m[4]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// corpusSources is how README.md says each case is rendered.
func (c corpusCase) sources() []SourceSpec {
	hv := HelmValues{ReleaseName: "rel", Namespace: "demo"}
	switch c.kind {
	case "helm":
		s := []SourceSpec{{Path: ".", Type: SourceHelm, Name: "defaults", Helm: hv}}
		if c.hasValues {
			v := hv
			v.ValuesFiles = []string{"capreport-values.yaml"}
			s = append(s, SourceSpec{Path: ".", Type: SourceHelm, Name: "capreport", Helm: v})
		}
		return s
	case "kustomize":
		return []SourceSpec{{Path: c.renderRoot, Type: SourceKustomize}}
	}
	return []SourceSpec{{Path: ".", Type: SourcePlain}}
}

func autoscalersOf(res *Result, sourceID string) []corpusAutoscaler {
	var out []corpusAutoscaler
	for _, o := range res.Objects {
		if o.Origin.Source != sourceID || (o.Kind != "HorizontalPodAutoscaler" && o.Kind != "ScaledObject") {
			continue
		}
		out = append(out, corpusAutoscaler{kind: o.Kind, name: o.Name, namespace: o.Namespace, apiVersion: o.APIVersion})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].kind+out[i].name < out[j].kind+out[j].name })
	return out
}

func countKinds(as []corpusAutoscaler) (hpa, so int) {
	for _, a := range as {
		if a.kind == "ScaledObject" {
			so++
		} else {
			hpa++
		}
	}
	return hpa, so
}

func TestCorpus(t *testing.T) {
	testutil.SkipIfShort(t)
	dir, ok := findCorpus()
	if !ok {
		t.Skip("corpus not found at ../shared/corpus next to the module root; skipping the corpus test")
	}
	cases := parseCorpusREADME(t, dir)
	if len(cases) < 10 {
		t.Fatalf("parsed only %d corpus cases from README.md", len(cases))
	}
	for _, kv := range []string{DefaultKubeVersion, "1.37.0"} {
		for _, c := range cases {
			t.Run(kv+"/"+c.name, func(t *testing.T) {
				opts := DefaultOptions()
				opts.KubeVersion = kv
				opts.Sources = c.sources()
				res, err := Render(context.Background(), filepath.Join(dir, c.name), opts)
				if err != nil {
					t.Fatal(err)
				}
				byID := map[string]SourceResult{}
				for _, s := range res.Sources {
					id := s.Path
					if s.ValueSet != "" {
						id += "@" + s.ValueSet
					}
					byID[id] = s
				}
				main := opts.Sources[len(opts.Sources)-1].ID()
				if c.kind == "helm" {
					d := byID[".@defaults"]
					if c.failDefaults {
						if d.Status != StatusFailed || d.Reason == "" {
							t.Errorf("defaults render: status %q, want failed with the chart's message", d.Status)
						}
						t.Logf("defaults render failed as expected: %s", d.Reason)
					} else {
						if d.Status != StatusRendered {
							t.Errorf("defaults render: status %q: %s", d.Status, d.Reason)
						}
						hpa, so := countKinds(autoscalersOf(res, ".@defaults"))
						if hpa != c.defaultsHPA || so != c.defaultsSO {
							t.Errorf("defaults render: %d HPAs and %d ScaledObjects, want %d and %d", hpa, so, c.defaultsHPA, c.defaultsSO)
						}
					}
				}
				m := byID[main]
				if m.Status != StatusRendered {
					t.Fatalf("%s: status %q: %s", main, m.Status, m.Reason)
				}
				got := autoscalersOf(res, main)
				hpa, so := countKinds(got)
				if hpa != c.wantHPA || so != c.wantSO {
					t.Errorf("%s: %d HPAs and %d ScaledObjects, want %d and %d: %+v", main, hpa, so, c.wantHPA, c.wantSO, got)
				}
				want := append([]corpusAutoscaler(nil), c.autoscalers...)
				sort.Slice(want, func(i, j int) bool { return want[i].kind+want[i].name < want[j].kind+want[j].name })
				if len(want) != len(got) {
					t.Fatalf("autoscalers %+v, want %+v", got, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("autoscaler %+v, want %+v", got[i], want[i])
					}
				}
				if len(res.Sources) != len(opts.Sources) {
					t.Errorf("%d sources rendered, want only the %d explicit ones: %+v", len(res.Sources), len(opts.Sources), res.Sources)
				}
				for _, o := range res.Objects {
					if o.Origin.File == "" || o.Origin.Source == "" {
						t.Errorf("%s %s/%s has no origin: %+v", o.Kind, o.Namespace, o.Name, o.Origin)
					}
					if o.Kind == "HorizontalPodAutoscaler" || o.Kind == "ScaledObject" {
						t.Logf("%s %s/%s from %s:%d", o.Kind, o.Namespace, o.Name, o.Origin.File, o.Origin.Line)
					}
				}
			})
		}
	}
}

// TestCorpusDiscovery renders the whole corpus as one repository: each case
// is discovered once (kustomize bases and subcharts are not sources of
// their own) and renders.
func TestCorpusDiscovery(t *testing.T) {
	dir, ok := findCorpus()
	if !ok {
		t.Skip("corpus not found at ../shared/corpus next to the module root; skipping the corpus test")
	}
	cases := parseCorpusREADME(t, dir)
	var want []string
	for _, c := range cases {
		switch c.kind {
		case "helm":
			want = append(want, c.name)
		case "kustomize":
			want = append(want, filepath.ToSlash(filepath.Join(c.name, c.renderRoot)))
		default:
			ents, _ := os.ReadDir(filepath.Join(dir, c.name))
			for _, e := range ents {
				if isYAMLName(e.Name()) {
					want = append(want, c.name+"/"+e.Name())
				}
			}
		}
	}
	sort.Strings(want)
	specs, findings, err := discoverSources(dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.Path)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("discovered\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if len(findings) != 0 {
		t.Errorf("discovery findings: %s", dumpFindings(findings))
	}
	// Render it all at once (in parallel): only otel-collector, whose chart
	// refuses its own defaults, fails.
	res, err := Render(context.Background(), dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sources {
		if want := StatusRendered; s.Path == "otel-collector" {
			if s.Status != StatusFailed {
				t.Errorf("otel-collector with defaults: %s, want failed", s.Status)
			}
		} else if s.Status != want {
			t.Errorf("%s: %s: %s", s.Path, s.Status, s.Reason)
		}
	}
}

// BenchmarkRenderCorpus renders every Helm and Kustomize render of the
// corpus once per iteration, one Render call per render (the same renders
// scripts/bench-render.sh runs as one helm template / kustomize build
// process each): Helm with release "rel", namespace "demo", defaults and
// capreport-values.yaml; Kustomize at the README's render root. Plain YAML
// cases have no CLI counterpart and are left out.
func BenchmarkRenderCorpus(b *testing.B) {
	jobs := corpusJobs(b)
	b.ReportMetric(float64(len(jobs)), "renders/op")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			if _, err := Render(context.Background(), j.Root, j.Opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// CorpusJob is one render of the corpus benchmarks.
type CorpusJob struct {
	Root string
	Opts Options
}

// corpusJobs lists the corpus renders the benchmarks time (skipping the
// benchmark when the corpus is absent).
func corpusJobs(b *testing.B) []CorpusJob {
	dir, ok := findCorpus()
	if !ok {
		b.Skip("corpus not found at ../shared/corpus next to the module root")
	}
	cases := parseCorpusREADME(&testing.T{}, dir)
	var jobs []CorpusJob
	for _, c := range cases {
		if c.kind == "plain" {
			continue
		}
		for _, s := range c.sources() {
			o := DefaultOptions()
			o.Sources = []SourceSpec{s}
			jobs = append(jobs, CorpusJob{Root: filepath.Join(dir, c.name), Opts: o})
		}
	}
	return jobs
}
