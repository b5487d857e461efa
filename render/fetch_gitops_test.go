package render

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// appOnLib is a chart (served from a repository) that includes lib.
func appOnLib(version string) testChart {
	return testChart{name: "web", version: version, files: map[string]string{
		"templates/hpa.yaml":            `{{ include "lib.hpa" . }}` + "\n",
		"charts/lib/Chart.yaml":         "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
		"charts/lib/templates/_hpa.tpl": libChart("1.0.0").files["templates/_hpa.tpl"],
	}}
}

func TestFetchFluxHelmRepository(t *testing.T) {
	h := newHelmRepo(t, appOnLib("1.0.0"), appOnLib("1.1.0"))
	files := map[string]string{"flux/hr.yaml": fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: charts, namespace: flux-system}
spec: {url: %s}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: prod}
spec:
  chart:
    spec:
      chart: web
      version: "1.0.x"
      sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}
`, h.URL)}
	res := fetchRender(t, files, false, "")
	if len(findingsOf(res, check.GitOpsNotFollowed)) != 1 {
		t.Fatalf("offline: want gitops-not-followed; got\n%s", dumpFindings(res.Findings))
	}
	res = fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	o := objectNamed(res, "HorizontalPodAutoscaler", "web-web")
	if o == nil || o.Namespace != "prod" {
		t.Fatalf("want HPA prod/web-web from the HelmRelease; findings:\n%s", dumpFindings(res.Findings))
	}
	if len(o.Origin.Chain) == 0 || o.Origin.Chain[0].Kind != "HelmRelease" {
		t.Errorf("chain %v does not start at the HelmRelease", o.Origin.Chain)
	}
}

func TestFetchFluxOCI(t *testing.T) {
	reg := newOCIRegistry(t)
	reg.push(t, "charts/web", appOnLib("1.0.0"))
	reg.push(t, "charts/web", appOnLib("2.0.0"))
	files := map[string]string{"flux/hr.yaml": fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: web, namespace: flux-system}
spec:
  url: oci://%[1]s/charts/web
  ref: {semver: ">=1.0.0 <2.0.0"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: pinned, namespace: flux-system}
spec:
  chartRef: {kind: OCIRepository, name: web}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: oci, namespace: flux-system}
spec: {type: oci, url: "oci://%[1]s/charts"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: latest, namespace: flux-system}
spec:
  chart:
    spec:
      chart: web
      sourceRef: {kind: HelmRepository, name: oci}
`, reg.host())}
	res := fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	for _, name := range []string{"pinned-web", "latest-web"} {
		if objectNamed(res, "HorizontalPodAutoscaler", name) == nil {
			t.Errorf("no HPA %s; findings:\n%s", name, dumpFindings(res.Findings))
		}
	}
}

func TestFetchArgoHelmRepository(t *testing.T) {
	h := newHelmRepo(t, appOnLib("3.1.0"))
	files := map[string]string{"apps/web.yaml": fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  destination: {namespace: shop}
  source:
    repoURL: %s
    chart: web
    targetRevision: 3.*
    helm:
      releaseName: front
`, h.URL)}
	res := fetchRender(t, files, false, "")
	if len(findingsOf(res, check.GitOpsNotFollowed)) != 1 {
		t.Fatalf("offline: want gitops-not-followed; got\n%s", dumpFindings(res.Findings))
	}
	res = fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	if o := objectNamed(res, "HorizontalPodAutoscaler", "front-web"); o == nil || o.Namespace != "shop" {
		t.Fatalf("want HPA shop/front-web; findings:\n%s", dumpFindings(res.Findings))
	}
}

func TestFetchKustomizeHelmCharts(t *testing.T) {
	h := newHelmRepo(t, appOnLib("1.0.0"))
	files := map[string]string{"k/kustomization.yaml": fmt.Sprintf("helmCharts:\n  - name: web\n    repo: %s\n    version: 1.0.0\n    releaseName: k\n", h.URL)}
	res := fetchRender(t, files, false, "")
	if len(findingsOf(res, check.HelmChartRemote)) != 1 {
		t.Fatalf("offline: want helm-chart-remote; got\n%s", dumpFindings(res.Findings))
	}
	res = fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	if objectNamed(res, "HorizontalPodAutoscaler", "k-web") == nil {
		t.Fatalf("no HPA k-web; findings:\n%s", dumpFindings(res.Findings))
	}
}

// gitServer serves a git repository over local smart HTTP (git
// http-backend as CGI), as a remote kustomize base is fetched.
func gitServer(t *testing.T, files map[string]string) string {
	t.Helper()
	base := t.TempDir()
	work := filepath.Join(base, "work")
	testutil.WriteTree(t, work, files)
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(work, "init", "-q", "-b", "main")
	run(work, "add", ".")
	run(work, "commit", "-qm", "base")
	run(base, "clone", "-q", "--bare", work, filepath.Join(base, "srv", "base.git"))
	h := &cgi.Handler{Path: "/usr/lib/git-core/git-http-backend",
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Join(base, "srv"), "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.StripPrefix("/git", h))
	t.Cleanup(srv.Close)
	return srv.URL + "/git/base.git"
}

func TestFetchRemoteBase(t *testing.T) {
	url := gitServer(t, map[string]string{
		"deploy/kustomization.yaml": "resources: [hpa.yaml]\n",
		"deploy/hpa.yaml":           "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: remote}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n",
	})
	files := map[string]string{
		"o/kustomization.yaml": "resources:\n  - " + url + "//deploy?ref=main\n  - cm.yaml\n",
		"o/cm.yaml":            checksCM,
	}
	res := fetchRender(t, files, false, "")
	if len(findingsOf(res, check.PartialRender)) != 1 || objectNamed(res, "HorizontalPodAutoscaler", "remote") != nil {
		t.Fatalf("offline: want partial-render and no remote HPA; got\n%s", dumpFindings(res.Findings))
	}
	res = fetchRender(t, files, true, t.TempDir())
	noFetchProblems(t, res)
	if objectNamed(res, "HorizontalPodAutoscaler", "remote") == nil || objectNamed(res, "ConfigMap", "cm") == nil {
		t.Fatalf("the remote base was not built in; findings:\n%s", dumpFindings(res.Findings))
	}
}
