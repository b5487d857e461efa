package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"helm.sh/helm/v3/pkg/chart"
)

// libChart is a library chart whose template makes an HPA, the shape of
// bitnami/common: the charts that include it render nothing without it.
func libChart(version string) testChart {
	return testChart{name: "lib", version: version, lib: true, files: map[string]string{
		"templates/_hpa.tpl": `{{- define "lib.hpa" -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  labels:
    lib: "` + version + `"
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
{{- end -}}
`}}
}

// cmChart renders one ConfigMap named by its values.
var cmChart = testChart{name: "cm", version: "1.0.0", files: map[string]string{
	"values.yaml":       "name: default-name\n",
	"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n",
}}

// appChart depends on lib at repo with version, plus extra Chart.yaml.
func appChart(repoURL, version, extra string) map[string]string {
	return map[string]string{
		"app/Chart.yaml":         fmt.Sprintf("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: lib\n    version: %q\n    repository: %s\n%s", version, repoURL, extra),
		"app/templates/hpa.yaml": `{{ include "lib.hpa" . }}` + "\n",
	}
}

// fetchRender renders files in-process with fetching on or off and the
// given cache directory.
func fetchRender(t *testing.T, files map[string]string, on bool, cache string, tweak ...func(*Options)) *Result {
	t.Helper()
	return checkInput{files: files, opts: func(o *Options) {
		o.Fetch = FetchOptions{Enabled: on, CacheDir: cache, RequestTimeout: 2 * time.Second, RunTimeout: 30 * time.Second}
		for _, f := range tweak {
			f(o)
		}
	}}.render(t)
}

// objectNamed finds a rendered object by kind and name.
func objectNamed(res *Result, kind, name string) *Object {
	for i := range res.Objects {
		if res.Objects[i].Kind == kind && res.Objects[i].Name == name {
			return &res.Objects[i]
		}
	}
	return nil
}

func findingsOf(res *Result, id string) []check.Finding {
	var out []check.Finding
	for _, f := range res.Findings {
		if f.Check == id {
			out = append(out, f)
		}
	}
	return out
}

// noErrors fails on any error finding and on any fetch or missing finding.
func noFetchProblems(t *testing.T, res *Result) {
	t.Helper()
	for _, f := range res.Findings {
		if f.Severity == check.SeverityError || strings.HasPrefix(f.Check, "fetch-") || f.Check == check.HelmDependencyMissing || f.Check == check.GitOpsNotFollowed {
			t.Errorf("unexpected finding %s [%s]: %s", f.Check, f.Severity, f.Message)
		}
	}
}

func hpaLibVersion(t *testing.T, res *Result, name string) string {
	t.Helper()
	o := objectNamed(res, "HorizontalPodAutoscaler", name)
	if o == nil {
		t.Fatalf("no HPA %s; findings:\n%s", name, dumpFindings(res.Findings))
	}
	md, _ := o.Doc["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	return fmt.Sprint(labels["lib"])
}

// lockFor writes a Chart.lock whose digest is Helm's for these deps.
func lockFor(t *testing.T, req, locked []*chart.Dependency) string {
	t.Helper()
	d, err := helm.LockDigest(req, locked)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("dependencies:\n")
	for _, l := range locked {
		fmt.Fprintf(&b, "- name: %s\n  repository: %s\n  version: %s\n", l.Name, l.Repository, l.Version)
	}
	fmt.Fprintf(&b, "digest: %s\ngenerated: \"2026-01-01T00:00:00Z\"\n", d)
	return b.String()
}

func TestFetchDependencyRange(t *testing.T) {
	h := newHelmRepo(t, libChart("1.0.0"), libChart("1.2.0"), libChart("2.0.0"))
	res := fetchRender(t, appChart(h.URL, "^1.0.0", ""), true, t.TempDir())
	noFetchProblems(t, res)
	if v := hpaLibVersion(t, res, "capreport-app"); v != "1.2.0" {
		t.Errorf("range ^1.0.0 resolved to lib %s, want 1.2.0 (Helm: the highest match)", v)
	}
}

func TestFetchDependencyLock(t *testing.T) {
	h := newHelmRepo(t, libChart("1.0.0"), libChart("1.2.0"))
	files := appChart(h.URL, "^1.0.0", "")
	req := []*chart.Dependency{{Name: "lib", Version: "^1.0.0", Repository: h.URL}}
	files["app/Chart.lock"] = lockFor(t, req, []*chart.Dependency{{Name: "lib", Version: "1.0.0", Repository: h.URL}})
	res := fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	if v := hpaLibVersion(t, res, "capreport-app"); v != "1.0.0" {
		t.Errorf("locked lib 1.0.0 rendered as %s", v)
	}

	// A lock whose digest is not Helm's for Chart.yaml is refused, as
	// `helm dependency build` refuses it.
	files["app/Chart.lock"] = strings.Replace(files["app/Chart.lock"], "digest: sha256:", "digest: sha256:0", 1)
	res = fetchRender(t, files, true, t.TempDir())
	if len(findingsOf(res, check.FetchDigest)) != 1 {
		t.Fatalf("stale Chart.lock: want one fetch-digest finding; got\n%s", dumpFindings(res.Findings))
	}
}

func TestFetchDependencyAliasAndCondition(t *testing.T) {
	h := newHelmRepo(t, cmChart)
	dead := "http://127.0.0.1:1" // nothing listens: a fetch would fail
	files := map[string]string{
		"app/Chart.yaml": fmt.Sprintf(`apiVersion: v2
name: app
version: 0.1.0
dependencies:
  - name: cm
    version: 1.0.0
    repository: %s
    alias: cache
  - name: extra
    version: 1.0.0
    repository: %s
    condition: extra.enabled
  - name: tagged
    version: 1.0.0
    repository: %s
    tags: [optional]
`, h.URL, dead, dead),
		"app/values.yaml":       "cache:\n  name: aliased\nextra:\n  enabled: false\ntags:\n  optional: false\n",
		"app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n",
	}
	res := fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	if objectNamed(res, "ConfigMap", "aliased") == nil {
		t.Errorf("the alias cache did not take its values; findings:\n%s", dumpFindings(res.Findings))
	}
	// Offline, the disabled dependencies are not reported either; the
	// alias is named in the one that is.
	res = fetchRender(t, files, false, "")
	got := findingsOf(res, check.HelmDependencyMissing)
	if len(got) != 1 || !strings.Contains(got[0].Message, `alias "cache"`) {
		t.Errorf("offline: want one helm-dependency-missing naming the alias; got\n%s", dumpFindings(res.Findings))
	}
}

func TestFetchDependencyOCI(t *testing.T) {
	reg := newOCIRegistry(t)
	reg.push(t, "charts/lib", libChart("1.0.0"))
	reg.push(t, "charts/lib", libChart("1.1.0"))
	res := fetchRender(t, appChart("oci://"+reg.host()+"/charts", "~1.0.0", ""), true, t.TempDir())
	noFetchProblems(t, res)
	if v := hpaLibVersion(t, res, "capreport-app"); v != "1.0.0" {
		t.Errorf("oci ~1.0.0 gave lib %s", v)
	}
}

func TestFetchWrongDigest(t *testing.T) {
	h := newHelmRepo(t)
	h.badDigest = true
	h.add(t, libChart("1.0.0"))
	res := fetchRender(t, appChart(h.URL, "1.0.0", ""), true, t.TempDir())
	if len(findingsOf(res, check.FetchDigest)) == 0 {
		t.Fatalf("want fetch-digest; got\n%s", dumpFindings(res.Findings))
	}
	if objectNamed(res, "HorizontalPodAutoscaler", "capreport-app") != nil {
		t.Error("a chart whose digest is wrong was rendered")
	}
}

func TestFetchBasicAuthFromEnv(t *testing.T) {
	h := newHelmRepo(t, libChart("1.0.0"))
	h.user, h.password = "reader", "s3cret"
	files := appChart(h.URL, "1.0.0", "")
	res := fetchRender(t, files, true, t.TempDir())
	if len(findingsOf(res, check.FetchFailed)) == 0 {
		t.Fatalf("without credentials: want fetch-failed; got\n%s", dumpFindings(res.Findings))
	}
	t.Setenv("CAPREPORT_FETCH_AUTH", h.URL+" reader s3cret")
	res = fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	if objectNamed(res, "HorizontalPodAutoscaler", "capreport-app") == nil {
		t.Errorf("with credentials: no HPA; findings:\n%s", dumpFindings(res.Findings))
	}
}

// TestFetchOfflineAndWarmCache: without --fetch the findings are today's;
// with --fetch the cache fills; with the server gone it still renders.
func TestFetchOfflineAndWarmCache(t *testing.T) {
	h := newHelmRepo(t, libChart("1.0.0"), libChart("1.3.0"))
	files := appChart(h.URL, "^1.0.0", "")
	res := fetchRender(t, files, false, "")
	if len(findingsOf(res, check.HelmDependencyMissing)) != 1 || h.hits.Load() != 0 {
		t.Fatalf("offline: want one helm-dependency-missing and no request (%d); got\n%s", h.hits.Load(), dumpFindings(res.Findings))
	}
	cache := t.TempDir()
	res = fetchRender(t, files, true, cache)
	noFetchProblems(t, res)
	h.Close()
	res = fetchRender(t, files, true, cache)
	noFetchProblems(t, res)
	if v := hpaLibVersion(t, res, "capreport-app"); v != "1.3.0" {
		t.Errorf("from the cache: lib %s, want 1.3.0", v)
	}
}
